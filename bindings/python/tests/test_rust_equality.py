"""Same data, same parameters, same seed: the Python estimators give the Rust crates'
numbers (the reference is computed by ``examples/rust_reference.rs``)."""

import numpy as np

import bilinear
from bilinear import SparseBilinearLogisticRegression


def _fitted_sblr(rust_reference, case_name, flat=False, **extra):
    """The estimator with the reference's parameters (and ``extra``), fitted on the data
    of the reference's case ``case_name``; returns the model, ``X`` and the case. With
    ``flat``, the samples are given as rows of ``s * t`` values with ``matrix_shape``."""
    ref = rust_reference["sblr"]
    case = ref[case_name]
    X, y = np.array(case["data"]["x"]), np.array(case["data"]["y"])
    if flat:
        extra["matrix_shape"] = X.shape[1:]
        X = X.reshape(len(X), -1)
    model = SparseBilinearLogisticRegression(**ref["params"], **extra).fit(X, y)
    return model, X, case


def test_sblr_binary_equals_rust(rust_reference):
    model, X, case = _fitted_sblr(rust_reference, "binary")
    np.testing.assert_array_equal(model.U_, np.array(case["u"]))
    np.testing.assert_array_equal(model.V_, np.array(case["v"]))
    np.testing.assert_array_equal(model.intercept_, [case["intercept"]])
    np.testing.assert_array_equal(model.decision_function(X), case["decision"])
    assert model.n_iter_ == case["n_iter"]


def test_sblr_binary_equals_rust_through_matrix_shape(rust_reference):
    model, X_flat, case = _fitted_sblr(rust_reference, "binary", flat=True)
    np.testing.assert_array_equal(model.decision_function(X_flat), case["decision"])


def test_sblr_one_vs_all_equals_rust(rust_reference):
    model, X, case = _fitted_sblr(rust_reference, "three", multi_class="ovr")
    np.testing.assert_array_equal(model.decision_function(X), case["ovr_decision"])
    assert model.n_iter_ == case["ovr_n_iter"]


def test_sblr_multinomial_equals_rust(rust_reference):
    model, X, case = _fitted_sblr(rust_reference, "three", multi_class="multinomial")
    np.testing.assert_array_equal(model.decision_function(X), case["multinomial_decision"])
    np.testing.assert_array_equal(model.predict_proba(X), case["multinomial_proba"])
    assert model.n_iter_ == case["multinomial_n_iter"]


def _tensor_case(rust_reference):
    ref = rust_reference["tensor"]
    return ref, np.array(ref["x"], dtype=float)


def test_bmp_equals_rust(rust_reference):
    ref, X = _tensor_case(rust_reference)
    case = ref["bmp"]
    model = bilinear.BooleanTensorDecomposition(**case["params"]).fit(X)
    assert [m for m, *_ in model.factors_] == case["modes"]
    assert len(case["z"]) == len(model.factors_)
    for (_, z, _, _), z_rust in zip(model.factors_, case["z"]):
        np.testing.assert_array_equal(z, z_rust)
    np.testing.assert_array_equal(model.weights_, case["coefficients"])
    np.testing.assert_array_equal(model.rmse_path_, case["rmse_path"])
    np.testing.assert_allclose(model.reconstruct(), case["reconstruction"], rtol=0, atol=1e-12)


def test_cp_equals_rust(rust_reference):
    ref, X = _tensor_case(rust_reference)
    case = ref["cp"]
    model = bilinear.CPDecomposition(**case["params"]).fit(X)
    assert len(model.factors_) == len(case["factors"]) == 3
    for f, f_rust in zip(model.factors_, case["factors"]):
        np.testing.assert_array_equal(f, f_rust)
    assert model.loss_ == case["loss"]
    np.testing.assert_allclose(model.reconstruct(), case["reconstruction"], rtol=0, atol=1e-12)


def test_tucker_equals_rust(rust_reference):
    ref, X = _tensor_case(rust_reference)
    case = ref["tucker"]
    model = bilinear.TuckerDecomposition(**case["params"]).fit(X)
    # the crate stores the core with mode 0 fastest
    np.testing.assert_array_equal(model.core_.ravel(order="F"), case["core"])
    assert model.loss_ == case["loss"]
    np.testing.assert_allclose(model.reconstruct(), case["reconstruction"], rtol=0, atol=1e-12)


def test_maxcut_equals_rust(rust_reference):
    case = rust_reference["maxcut"]
    res = bilinear.maxcut(np.array(case["edges"]), n_nodes=case["n"])
    np.testing.assert_array_equal(res.mixing.y, case["y"])
    assert res.cut_value == case["value"]
    assert res.sdp_value == case["sdp_value"]
    assert res.certified_bound == case["certified_bound"]


def test_gop_equals_rust(rust_reference):
    case = rust_reference["gop"]
    res = bilinear.gop_mmf(np.array(case["y"]), k=2, budget=1.0, tol=0.01, random_state=7,
                           threads=1)
    np.testing.assert_array_equal(res.x, case["x"])
    np.testing.assert_array_equal(res.theta, case["theta"])
    assert res.lower_bound == case["lower_bound"]
    assert res.upper_bound == case["upper_bound"]
    assert res.certified == case["certified"]
    assert res.n_iter == case["n_iter"]


def test_bol_tagger_equals_rust(rust_reference):
    case = rust_reference["tagger"]
    tagger = bilinear.BilinearTagger(learner="bol", max_iter=10).fit(case["x"], case["y"])
    assert tagger.model_.alpha == case["alpha"]
    assert tagger.model_.beta == case["beta"]
    assert tagger.predict(case["x"]) == case["predicted"]
