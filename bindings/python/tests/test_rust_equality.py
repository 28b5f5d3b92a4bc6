"""Same data, same parameters, same seed: the Python estimators give the Rust crates'
numbers (the reference is computed by ``examples/rust_reference.rs``)."""

import numpy as np

import bilinear
from bilinear import SparseBilinearLogisticRegression


def _sblr(params, **extra):
    return SparseBilinearLogisticRegression(**params, **extra)


def _xy(case):
    return np.array(case["data"]["x"]), np.array(case["data"]["y"])


def test_sblr_binary_equals_rust(rust_reference):
    ref = rust_reference["sblr"]
    case = ref["binary"]
    X, y = _xy(case)
    model = _sblr(ref["params"]).fit(X, y)
    np.testing.assert_array_equal(model.U_, np.array(case["u"]))
    np.testing.assert_array_equal(model.V_, np.array(case["v"]))
    np.testing.assert_array_equal(model.intercept_, [case["intercept"]])
    np.testing.assert_array_equal(model.decision_function(X), case["decision"])
    assert model.n_iter_ == case["n_iter"]


def test_sblr_binary_equals_rust_through_matrix_shape(rust_reference):
    ref = rust_reference["sblr"]
    case = ref["binary"]
    X, y = _xy(case)
    n, s, t = X.shape
    model = _sblr(ref["params"], matrix_shape=(s, t)).fit(X.reshape(n, s * t), y)
    np.testing.assert_array_equal(model.decision_function(X.reshape(n, s * t)), case["decision"])


def test_sblr_one_vs_all_equals_rust(rust_reference):
    ref = rust_reference["sblr"]
    case = ref["three"]
    X, y = _xy(case)
    model = _sblr(ref["params"], multi_class="ovr").fit(X, y)
    np.testing.assert_array_equal(model.decision_function(X), case["ovr_decision"])
    assert model.n_iter_ == case["ovr_n_iter"]


def test_sblr_multinomial_equals_rust(rust_reference):
    ref = rust_reference["sblr"]
    case = ref["three"]
    X, y = _xy(case)
    model = _sblr(ref["params"], multi_class="multinomial").fit(X, y)
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
    for (_, z, _, _), z_rust in zip(model.factors_, case["z"]):
        np.testing.assert_array_equal(z, z_rust)
    np.testing.assert_array_equal(model.weights_, case["coefficients"])
    np.testing.assert_array_equal(model.rmse_path_, case["rmse_path"])
    np.testing.assert_allclose(model.reconstruct(), case["reconstruction"], rtol=0, atol=1e-12)


def test_cp_equals_rust(rust_reference):
    ref, X = _tensor_case(rust_reference)
    case = ref["cp"]
    model = bilinear.CPDecomposition(**case["params"]).fit(X)
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
    res = bilinear.gop_mmf(np.array(case["y"]), k=2, budget=1.0, eps=0.01, random_state=7,
                           n_threads=1)
    np.testing.assert_array_equal(res.x, case["x"])
    np.testing.assert_array_equal(res.theta, case["theta"])
    assert res.lower_bound == case["lower_bound"]
    assert res.upper_bound == case["upper_bound"]
    assert res.certified == case["certified"]
    assert res.n_iter == case["n_iter"]


def test_bol_tagger_equals_rust(rust_reference):
    case = rust_reference["tagger"]
    tagger = bilinear.BilinearTagger(learner="bol", epochs=10).fit(case["x"], case["y"])
    assert tagger.model_.alpha == case["alpha"]
    assert tagger.model_.beta == case["beta"]
    assert tagger.predict(case["x"]) == case["predicted"]
