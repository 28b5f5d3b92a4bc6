"""The SBLR classifier: shapes, pickling, float32, pipelines, and Python exceptions for
bad input."""

import pickle

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import bilinear
from bilinear import SparseBilinearLogisticRegression as SBLR


def _data(n=60, s=6, t=5, classes=2, seed=0, shift=2.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, s, t))
    y = np.arange(n) % classes
    for c in range(classes):
        X[y == c, c % s, c % t] += shift
    return X, y


@pytest.mark.parametrize("multi_class", ["ovr", "multinomial"])
@pytest.mark.parametrize("classes", [2, 3])
def test_fit_predict_shapes(multi_class, classes):
    X, y = _data(classes=classes)
    labels = np.array(["walk", "run", "sit"])[y]
    model = SBLR(rank=2, multi_class=multi_class).fit(X, labels)
    assert model.score(X, labels) > 0.9
    assert set(model.predict(X)) <= set(labels)
    proba = model.predict_proba(X)
    assert proba.shape == (len(X), classes)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    scores = model.decision_function(X)
    assert scores.shape == ((len(X),) if classes == 2 else (len(X), classes))
    if classes == 2 and multi_class == "ovr":
        assert model.U_.shape == (6, 2) and model.V_.shape == (5, 2)
    else:
        k = classes if multi_class == "ovr" else classes - 1
        assert model.U_.shape == (k, 6, 2) and model.V_.shape == (k, 5, 2)
    assert model.n_iter_ >= 1


def test_defaults_come_from_the_rust_preset():
    # The keyword defaults are sblr::SblrParams::standardized(), read from Rust.
    defaults = bilinear._native.sblr_standardized_defaults()
    params = SBLR().get_params()
    seed = defaults.pop("seed")
    for name, value in defaults.items():
        assert params[name] == value, name
    assert params["random_state"] is None and params["threads"] is None
    # random_state=None is the crate's default seed, read from Rust too.
    X, y = _data()
    unseeded = SBLR(init="random").fit(X, y)
    seeded = SBLR(init="random", random_state=seed).fit(X, y)
    other = SBLR(init="random", random_state=seed + 1).fit(X, y)
    np.testing.assert_array_equal(unseeded.U_, seeded.U_)
    assert not np.array_equal(unseeded.U_, other.U_)
    assert (defaults["mu2"], defaults["nu2"]) == (0.01, 0.01)
    assert defaults["init"] == "label_weighted_svd"
    assert (defaults["solver"], defaults["tol"], defaults["max_iter"]) == ("alg2", 1e-3, 500)


@pytest.mark.parametrize("multi_class", ["ovr", "multinomial"])
def test_threads_reach_the_fit_and_do_not_change_it(multi_class):
    # The crate's `threads`: the same model on 1, 2 and all cores; 0 and non-ints refused.
    X, y = _data(classes=3)
    fits = [SBLR(multi_class=multi_class, threads=t).fit(X, y) for t in (1, 2, None)]
    for fit in fits[1:]:
        np.testing.assert_array_equal(fit.U_, fits[0].U_)
        np.testing.assert_array_equal(fit.decision_function(X), fits[0].decision_function(X))
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="threads"):
            SBLR(threads=bad).fit(X, y)


def test_a_pickle_from_before_the_threads_keyword_loads():
    # Estimators pickled before the classifier had `threads` load with threads=None.
    X, y = _data()
    model = SBLR().fit(X, y)
    state = model.__getstate__()
    del state["threads"]
    old = SBLR.__new__(SBLR)
    old.__setstate__(state)
    assert old.get_params()["threads"] is None
    np.testing.assert_array_equal(old.predict(X), model.predict(X))


def test_matrix_shape_equals_three_d():
    X, y = _data()
    n, s, t = X.shape
    a = SBLR(rank=2).fit(X, y)
    b = SBLR(rank=2, matrix_shape=(s, t)).fit(X.reshape(n, s * t), y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X.reshape(n, -1)))


@pytest.mark.parametrize("multi_class", ["ovr", "multinomial"])
@pytest.mark.parametrize("classes", [2, 3])
def test_pickle_round_trip(multi_class, classes):
    X, y = _data(classes=classes)
    model = SBLR(multi_class=multi_class).fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(again.U_, model.U_)
    native = pickle.loads(pickle.dumps(model._model))
    assert native.to_json() == model._model.to_json()


def test_tampered_saved_model_is_value_error():
    X, y = _data()
    model = SBLR().fit(X, y)
    text = model._model.to_json().replace('"s":6', '"s":7')
    with pytest.raises(ValueError):
        bilinear._native.SblrModel.from_json(text)
    with pytest.raises(ValueError):
        bilinear._native.SblrModel.from_json("{not json")
    with pytest.raises(ValueError):
        bilinear._native.SblrModel.from_json('{"kind": "other", "model": {}}')


def test_float32_dtype():
    X, y = _data()
    model = SBLR(dtype="float32").fit(X.astype(np.float32), y)
    assert model.U_.dtype == np.float32
    assert model.decision_function(X).dtype == np.float32
    assert model.predict_proba(X).dtype == np.float32


def test_a_random_state_object_gives_its_first_draw_as_the_seed():
    # One draw per fit: the seed is RandomState(0)'s first integer below 2^31 - 1, as the
    # parameters are built once (they were built twice, and the second draw seeded it).
    X, y = _data()
    first = int(np.random.RandomState(0).randint(np.iinfo(np.int32).max))
    drawn = SBLR(init="random", random_state=np.random.RandomState(0)).fit(X, y)
    np.testing.assert_array_equal(
        drawn.U_, SBLR(init="random", random_state=first).fit(X, y).U_)


def test_random_state_reproducible():
    X, y = _data()
    a = SBLR(init="random", random_state=5).fit(X, y)
    b = SBLR(init="random", random_state=5).fit(X, y)
    np.testing.assert_array_equal(a.U_, b.U_)
    # the seed reaches the random start: another seed ends elsewhere
    c = SBLR(init="random", random_state=6).fit(X, y)
    assert not np.array_equal(a.U_, c.U_)


def test_pipeline_and_grid_search():
    X, y = _data(n=90, classes=3, shift=3.0)
    n, s, t = X.shape
    pipe = make_pipeline(StandardScaler(), SBLR(matrix_shape=(s, t)))
    scores = cross_val_score(pipe, X.reshape(n, -1), y, cv=3)
    assert scores.mean() > 0.8
    grid = GridSearchCV(SBLR(matrix_shape=(s, t)), {"rank": [1, 2], "mu1": [0.0, 0.01]}, cv=3)
    grid.fit(X.reshape(n, -1), y)
    # every candidate was fitted and scored, and the one kept is the best of them
    means = grid.cv_results_["mean_test_score"]
    assert len(means) == 4 and np.all(np.isfinite(means))
    assert grid.best_score_ == means.max() > 0.8
    assert grid.best_params_ == grid.cv_results_["params"][int(np.argmax(means))]


BAD_FITS = [
    ("rank above min(s, t)", dict(rank=9), None),
    ("rank 0", dict(rank=0), None),
    ("negative penalty", dict(mu1=-1.0), None),
    ("bad solver", dict(solver="newton"), None),
    ("bad init", dict(init="zeros"), None),
    ("bad multi_class", dict(multi_class="ovo"), None),
    ("bad dtype", dict(dtype="int8"), None),
    ("matrix_shape not fitting", dict(matrix_shape=(4, 4)), "flat"),
    ("matrix_shape not a pair", dict(matrix_shape="6x5"), "flat"),
    ("zero max_iter", dict(max_iter=0), None),
    ("NaN in X", {}, "nan"),
    ("one class", {}, "one_class"),
    ("wrong number of labels", {}, "short_y"),
    ("string samples", {}, "strings"),
    ("regression target", {}, "continuous"),
]


@pytest.mark.parametrize("what,params,data", BAD_FITS, ids=[b[0] for b in BAD_FITS])
def test_bad_input_is_value_error(what, params, data):
    X, y = _data()
    n = len(X)
    if data == "flat":
        X = X.reshape(n, -1)
    elif data == "nan":
        X[3, 1, 1] = np.nan
    elif data == "one_class":
        y = np.zeros(n, dtype=int)
    elif data == "short_y":
        y = y[:-1]
    elif data == "strings":
        X = np.full((n, 2, 2), "a")
    elif data == "continuous":
        y = np.linspace(0, 1, n)
    with pytest.raises(ValueError):
        SBLR(**params).fit(X, y)


# The parameters of the native fit, as ``SparseBilinearLogisticRegression._native_params``
# gives them.
_NATIVE_PARAMS = dict(rank=1, mu1=0.0, mu2=0.0, nu1=0.0, nu2=0.0, solver="alg2", tol=1e-3,
                      max_iter=5, init="mean_svd", seed=0, threads=None)


def test_bad_prediction_input():
    X, y = _data()
    model = SBLR().fit(X, y)
    with pytest.raises(ValueError):
        model.predict(X[:, :5, :])  # other sample shape
    with pytest.raises(ValueError):
        model.predict(X.reshape(len(X), -1))  # 2-D X read as 1 x d: other shape
    Xn = X.copy()
    Xn[0, 0, 0] = np.inf
    with pytest.raises(ValueError):
        model.decision_function(Xn)
    with pytest.raises(ValueError):
        bilinear._native.sblr_fit(
            X, -np.ones(len(X), dtype=np.int64), 2, _NATIVE_PARAMS, multi_class="ovr")


def test_native_rejects_out_of_range_labels():
    X, y = _data()
    with pytest.raises(ValueError, match="labels"):
        bilinear._native.sblr_fit(
            X, np.full(len(X), 7, dtype=np.int64), 2, _NATIVE_PARAMS, multi_class="ovr")


def test_native_rejects_wrong_array_dtype():
    X, y = _data()
    with pytest.raises(TypeError):
        bilinear._native.sblr_fit(
            X.astype(np.float32), y.astype(np.int64), 2, _NATIVE_PARAMS, multi_class="ovr")


def test_float32_fit_agrees_with_float64():
    # The f32 fit stores the samples in single precision (the crate's MatrixDataset<f32>);
    # its objective and predictions agree with the f64 fit to single-precision rounding.
    X, y = _data()
    a = SBLR(random_state=0).fit(X, y)
    b = SBLR(random_state=0, dtype="float32").fit(X, y)
    assert b.U_.dtype == np.float32
    np.testing.assert_allclose(b.U_, a.U_, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(b.intercept_, a.intercept_, rtol=1e-3, atol=1e-4)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("fortran", [False, True])
@pytest.mark.parametrize("classes", [2, 3])
def test_fit_npy_equals_fit_bit_for_bit(tmp_path, dtype, fortran, classes):
    X, y = _data(n=50, classes=classes, seed=3)
    X = X.astype(dtype)
    path = tmp_path / "x.npy"
    np.save(path, np.asfortranarray(X) if fortran else X)
    labels = np.array(["a", "b", "c"])[y]
    params = dict(rank=2, max_iter=20, tol=0.0, dtype=dtype)
    # A budget of a few samples: several blocks per pass.
    streamed = SBLR(**params).fit_npy(path, labels, memory_budget=5 * X[0].nbytes + (1 << 18))
    memory = SBLR(**params).fit(X.astype(np.float64), labels)
    np.testing.assert_array_equal(streamed.U_, memory.U_)
    np.testing.assert_array_equal(streamed.V_, memory.V_)
    np.testing.assert_array_equal(streamed.intercept_, memory.intercept_)
    np.testing.assert_array_equal(streamed.classes_, memory.classes_)
    np.testing.assert_array_equal(streamed.predict(X), memory.predict(X))
    assert streamed.matrix_shape_ == memory.matrix_shape_ == (6, 5)


def test_fit_npy_bad_input_raises_value_error(tmp_path):
    X, y = _data(n=20)
    path = tmp_path / "x.npy"
    np.save(path, X)
    with pytest.raises(ValueError, match="memory_budget"):
        SBLR().fit_npy(path, y, memory_budget=100)
    with pytest.raises(ValueError, match="labels"):
        SBLR().fit_npy(path, y[:-1], memory_budget=1 << 20)
    with pytest.raises(ValueError, match="multinomial"):
        SBLR(multi_class="multinomial").fit_npy(path, y, memory_budget=1 << 20)
    bad = X.copy()
    bad[13, 2, 4] = np.nan
    np.save(tmp_path / "nan.npy", bad)
    with pytest.raises(ValueError, match="sample 13 .* row 2, column 4"):
        SBLR().fit_npy(tmp_path / "nan.npy", y, memory_budget=1 << 20)
    np.save(tmp_path / "int.npy", np.zeros((20, 6, 5), dtype=np.int32))
    with pytest.raises(ValueError, match="dtype"):
        SBLR().fit_npy(tmp_path / "int.npy", y, memory_budget=1 << 20)
    raw = path.read_bytes()
    (tmp_path / "cut.npy").write_bytes(raw[:-10])
    with pytest.raises(ValueError, match="data bytes"):
        SBLR().fit_npy(tmp_path / "cut.npy", y, memory_budget=1 << 20)
    with pytest.raises(ValueError):
        SBLR().fit_npy(tmp_path / "missing.npy", y, memory_budget=1 << 20)
