"""The checks of the Python layer (``bilinear/_keywords.py``): every integer, real and
Boolean keyword of every entry is refused with a ``ValueError`` naming it when it is of
the wrong type or out of the native module's range (no ``OverflowError``, no silent
``int(1.5)`` or ``bool("no")``), complex data is refused, paths and model bytes must
be of their types, and the docstring claims fixed with these checks hold."""

import math
import pickle
import re
import warnings

import numpy as np
import pytest
import scipy.sparse

import bilinear
from bilinear import SparseBilinearLogisticRegression as SBLR
from bilinear import _keywords
from bilinear.crfsuite import CRF, Tagger

ComplexWarning = getattr(getattr(np, "exceptions", np), "ComplexWarning")

# ------------------------------------------------------------------ small data


def _sblr_data(n=24, s=3, t=4):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, s, t))
    y = np.arange(n) % 2
    X[y == 1, 0, 0] += 2.0
    return X, y


def _tensor():
    rng = np.random.default_rng(1)
    z = (rng.random(5) < 0.5).astype(float)
    z[0] = 1.0
    return np.einsum("i,j,k->ijk", z, rng.normal(size=4), rng.normal(size=3))


SBLR_X, SBLR_Y = _sblr_data()
TENSOR = _tensor()
C = np.array([[0.0, 1.0, -2.0, 0.5], [1.0, 0.0, 1.0, -1.0], [-2.0, 1.0, 0.0, 1.5],
              [0.5, -1.0, 1.5, 0.0]])
EDGES = np.array([(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)])
GOP_Y = [[0.0, -1.0, -0.5]]
TAGGER_X = [list("我爱北京"), list("北京很大"), list("我在北京")]
TAGGER_Y = [list("ssbe"), list("bess"), list("ssbe")]
CRF_X = [[{"walk": 1, "shop": 0.5}, {"walk": 1}, {"clean": 1}, {"shop": 0.5, "clean": 0.5}]]
CRF_Y = [["sunny", "sunny", "rainy", "rainy"]]


# ------------------------------------------------------------------ the entries

def _with(defaults, kw):
    return {**defaults, **kw}


def _sblr(**kw):
    return SBLR(**_with(dict(max_iter=5), kw)).fit(SBLR_X, SBLR_Y)


def _bmp(**kw):
    return bilinear.BooleanTensorDecomposition(**_with(dict(n_atoms=1), kw)).fit(TENSOR)


def _cp(**kw):
    return bilinear.CPDecomposition(**_with(dict(rank=1, max_iter=5, n_starts=1), kw)).fit(
        TENSOR)


def _tucker(**kw):
    return bilinear.TuckerDecomposition(**_with(dict(ranks=(1, 1, 1)), kw)).fit(TENSOR)


def _mixing(**kw):
    return bilinear.mixing_sdp(C, **_with(dict(trials=2), kw))


def _maxcut(**kw):
    return bilinear.maxcut(EDGES, **_with(dict(trials=2), kw))


def _gop(**kw):
    return bilinear.gop_mmf(GOP_Y, **_with(dict(threads=1), kw))


def _tagger(**kw):
    return bilinear.BilinearTagger(**_with(dict(max_iter=2), kw)).fit(TAGGER_X, TAGGER_Y)


ENTRIES = {
    "sblr": _sblr, "bmp": _bmp, "cp": _cp, "tucker": _tucker, "mixing": _mixing,
    "maxcut": _maxcut, "gop": _gop, "tagger": _tagger,
}

#: The integer keywords of each entry.
INTS = {
    "sblr": ["rank", "max_iter"],
    "bmp": ["n_atoms", "alternations", "refit_sweeps"],
    "cp": ["rank", "max_iter", "n_starts"],
    "tucker": ["max_iter"],
    "mixing": ["rank", "max_iter", "trials"],
    "maxcut": ["n_nodes", "rank", "max_iter", "trials"],
    "gop": ["k", "max_iter", "max_nodes"],
    "tagger": ["max_iter", "power_steps", "cutoff"],
}
#: The real keywords of each entry.
FLOATS = {
    "sblr": ["mu1", "mu2", "nu1", "nu2", "tol"],
    "bmp": ["tol", "refit_tol"],
    "cp": ["tol"],
    "tucker": ["tol"],
    "mixing": ["tol"],
    "maxcut": ["tol"],
    "gop": ["budget", "tol", "time_limit"],
    "tagger": ["tol", "c"],
}
#: The Boolean keywords of each entry.
BOOLS = {
    "mixing": ["local_search", "certify"],
    "maxcut": ["local_search", "certify"],
    "tagger": ["averaging", "zero_order", "transitions_only", "shuffle"],
}
#: The entries with ``threads`` and with ``random_state``.
THREADS = ["sblr", "bmp", "cp", "tucker", "mixing", "maxcut", "gop", "tagger"]
SEEDED = ["sblr", "bmp", "cp", "mixing", "maxcut", "gop", "tagger"]

BAD_INTS = [-1, 2**64, 1.5, 2.0, "2", True, np.bool_(True), np.float64(3.0), 1 + 0j]
BAD_FLOATS = ["0.1", True, np.bool_(False), 1j, float("nan"), [0.1]]
BAD_BOOLS = ["no", "yes", 2, 1, 0, 1.0, [True]]


def _cases(table, bad_values):
    return [pytest.param(entry, keyword, bad, id=f"{entry}-{keyword}-{bad!r}")
            for entry, keywords in table.items() for keyword in keywords
            for bad in bad_values]


def _refused(entry, keyword, bad, exception=ValueError):
    with pytest.raises(exception, match=rf"\b{re.escape(keyword)} must"):
        ENTRIES[entry](**{keyword: bad})


@pytest.mark.parametrize("entry, keyword, bad", _cases(INTS, BAD_INTS))
def test_bad_integer_keywords_are_value_errors_naming_them(entry, keyword, bad):
    _refused(entry, keyword, bad)


@pytest.mark.parametrize("entry, keyword, bad", _cases(FLOATS, BAD_FLOATS))
def test_bad_real_keywords_are_value_errors_naming_them(entry, keyword, bad):
    _refused(entry, keyword, bad)


@pytest.mark.parametrize("entry, keyword, bad", _cases(BOOLS, BAD_BOOLS))
def test_bad_boolean_keywords_are_value_errors_naming_them(entry, keyword, bad):
    _refused(entry, keyword, bad)


@pytest.mark.parametrize("entry", THREADS)
@pytest.mark.parametrize("bad", [-1, 2**64, 1.5, "2", True])
def test_bad_threads_are_value_errors(entry, bad):
    _refused(entry, "threads", bad)


@pytest.mark.parametrize("entry", SEEDED)
@pytest.mark.parametrize("bad", [-1, 2**64, True, "seed"])
def test_bad_random_state_is_a_value_error(entry, bad):
    with pytest.raises(ValueError, match="random_state|seed"):
        ENTRIES[entry](random_state=bad)


@pytest.mark.parametrize("bad", [(-1,), (1.5,), (2**64,), ("0",), (True,), 3, "012"])
def test_bad_bmp_modes(bad):
    _refused("bmp", "modes", bad)


@pytest.mark.parametrize("bad", [(-1, 1, 1), (1.5, 1, 1), (2**64, 1, 1), (True, 1, 1),
                                 (1, 1), "abc", 3])
def test_bad_tucker_ranks_say_positive(bad):
    with pytest.raises(ValueError, match="ranks must be three positive ints"):
        _tucker(ranks=bad)


def test_zero_is_still_the_rust_checks_value_error():
    for entry, keyword in [("sblr", "rank"), ("cp", "rank"), ("bmp", "n_atoms"),
                           ("mixing", "max_iter"), ("gop", "max_iter"), ("tagger", "max_iter")]:
        with pytest.raises(ValueError):
            ENTRIES[entry](**{keyword: 0})
    with pytest.raises(ValueError):
        _tucker(ranks=(0, 1, 1))


@pytest.mark.parametrize("bad", [-1, 2**64, 1.5, True, "1000"])
def test_bad_memory_budget_is_a_value_error(tmp_path, bad):
    path = tmp_path / "x.npy"
    np.save(path, SBLR_X)
    with pytest.raises(ValueError, match="memory_budget"):
        SBLR(max_iter=5).fit_npy(path, SBLR_Y, memory_budget=bad)


@pytest.mark.parametrize("params", [
    dict(solver=1), dict(init=None), dict(multi_class=2), dict(dtype=["float64"])])
def test_bad_sblr_choices_are_value_errors(params):
    (name,) = params
    with pytest.raises(ValueError, match=name):
        _sblr(**params)


@pytest.mark.parametrize("params", [dict(learner=1), dict(templates=2)])
def test_bad_tagger_choices_are_value_errors(params):
    (name,) = params
    with pytest.raises(ValueError, match=name):
        _tagger(**params)


# ------------------------------------------------------------------ the CRF's parameters

@pytest.mark.parametrize("params, name", [
    (dict(max_iterations=True), "max_iterations"),
    (dict(c1=True), "c1"),
    (dict(c2=np.bool_(True)), "c2"),
    (dict(num_memories=False), "num_memories"),
    (dict(all_possible_states=2), "all_possible_states"),
    (dict(all_possible_states="no"), "all_possible_states"),
    (dict(all_possible_transitions=-1), "all_possible_transitions"),
    (dict(all_possible_transitions=1.0), "all_possible_transitions"),
    (dict(algorithm="pa", averaging=2), "averaging"),
    (dict(algorithm="pa", error_sensitive="yes"), "error_sensitive"),
    (dict(algorithm="pa", pa_type=True), "pa_type"),
    (dict(algorithm="sp", zero_order=2), "zero_order"),
    (dict(n_jobs=2**64), "n_jobs"),
    (dict(n_jobs=True), "n_jobs"),
    (dict(max_iterations=-1), "max_iterations"),
    (dict(max_iterations=2**64), "max_iterations"),
])
def test_bad_crf_parameters_are_value_errors(params, name):
    with pytest.raises(ValueError, match=rf"\b{name} must"):
        CRF(**params).fit(CRF_X, CRF_Y)


@pytest.mark.parametrize("flag", [True, False, 1, 0, np.bool_(True), np.int64(1)])
def test_crf_flags_take_bools_and_zero_one(flag):
    a = CRF(max_iterations=3, all_possible_states=flag).fit(CRF_X, CRF_Y)
    b = CRF(max_iterations=3, all_possible_states=bool(flag)).fit(CRF_X, CRF_Y)
    assert a.state_features_ == b.state_features_


def test_crf_numbers_take_numpy_scalars():
    a = CRF(max_iterations=np.int64(3), c2=np.float32(0.5)).fit(CRF_X, CRF_Y)
    b = CRF(max_iterations=3, c2=float(np.float32(0.5))).fit(CRF_X, CRF_Y)
    assert a.state_features_ == b.state_features_


# ------------------------------------------------------------------ good values still work

def test_numpy_integers_and_floats_give_the_same_fits():
    a = _sblr(rank=np.int64(2), max_iter=np.int32(5), mu1=np.float32(0.0),
              random_state=np.uint8(3), threads=np.int16(1))
    b = _sblr(rank=2, max_iter=5, mu1=0, random_state=3, threads=1)
    np.testing.assert_array_equal(a.U_, b.U_)

    a = _cp(rank=np.int64(2), max_iter=np.uint64(5), random_state=np.int64(0))
    b = _cp(rank=2, max_iter=5, random_state=0)
    np.testing.assert_array_equal(a.reconstruct(), b.reconstruct())

    a = _bmp(n_atoms=np.int8(2), modes=np.array([0, 1, 2]), tol=np.float64(1e-6))
    b = _bmp(n_atoms=2, modes=(0, 1, 2), tol=1e-6)
    np.testing.assert_array_equal(a.reconstruct(), b.reconstruct())
    assert a.weights_.shape == (a.n_iter_,)

    a = _tucker(ranks=np.array([2, 2, 1]), max_iter=np.int64(3))
    b = _tucker(ranks=(2, 2, 1), max_iter=3)
    np.testing.assert_array_equal(a.reconstruct(), b.reconstruct())

    a = _mixing(rank=np.int64(2), trials=np.int32(3), local_search=np.bool_(False),
                certify=np.True_, random_state=np.int64(1))
    b = _mixing(rank=2, trials=3, local_search=False, certify=True, random_state=1)
    np.testing.assert_array_equal(a.y, b.y)
    assert a.certified_bound == b.certified_bound

    a = _maxcut(n_nodes=np.int64(4), max_iter=np.int64(50))
    b = _maxcut(n_nodes=4, max_iter=50)
    np.testing.assert_array_equal(a.cut, b.cut)

    a = _gop(k=np.int64(2), budget=np.float64(1.0), max_iter=np.int64(100), random_state=7)
    b = _gop(k=2, budget=1.0, max_iter=100, random_state=7)
    np.testing.assert_array_equal(a.x, b.x)

    a = _tagger(max_iter=np.int64(3), c=np.float64(1.0), averaging=np.bool_(True),
                shuffle=False)
    b = _tagger(max_iter=3, c=1.0, averaging=True, shuffle=False)
    assert a.predict(TAGGER_X) == b.predict(TAGGER_X)


def test_none_keeps_the_rust_defaults():
    _mixing(rank=None, tol=None, max_iter=None, trials=None, local_search=None,
            certify=None, threads=None, random_state=None)
    _maxcut(n_nodes=None, rank=None, certify=None)
    _gop(k=None, budget=None, tol=None, max_iter=None, max_nodes=None, time_limit=None)
    _tagger(max_iter=None, tol=None, c=None, power_steps=None, averaging=None,
            zero_order=None, transitions_only=None, cutoff=None, shuffle=None)


def test_the_largest_seed_is_accepted():
    _mixing(random_state=2**64 - 1)
    _sblr(random_state=np.uint64(2**64 - 1))


def test_the_checkers():
    assert _keywords._int("k", np.int64(3)) == 3 and type(_keywords._int("k", 3)) is int
    assert _keywords._int("k", 2**64 - 1) == 2**64 - 1
    assert _keywords._float("x", 1) == 1.0 and type(_keywords._float("x", 1)) is float
    assert _keywords._float("x", math.inf) == math.inf  # the Rust checks judge infinities
    assert _keywords._bool("b", np.bool_(True)) is True
    assert _keywords._bool("b", 1, zero_one=True) is True
    assert _keywords._opt(_keywords._int, "k", None) is None
    for check, bad in [(_keywords._int, 1.5), (_keywords._float, "1"),
                       (_keywords._bool, "no")]:
        with pytest.raises(ValueError, match="kw must"):
            check("kw", bad)


# ------------------------------------------------------------------ complex data

@pytest.mark.parametrize("call", [
    lambda: bilinear.mixing_sdp(np.eye(3) + 1j),
    lambda: bilinear.mixing_sdp(scipy.sparse.csr_matrix(np.eye(3) + 1j)),
    lambda: bilinear.mixing_sdp(np.array([[1, 2j], [-2j, 1]], dtype=object)),
    lambda: bilinear.maxcut([(0, 1, 1 + 1j), (1, 2, 1.0)]),
    lambda: bilinear.maxcut(np.array([(0, 1), (1, 2)]) + 0j),
    lambda: bilinear.gop_mmf(np.ones((2, 2)) + 1j, k=2),
    lambda: SBLR().fit(SBLR_X + 1j, SBLR_Y),
], ids=["mixing dense", "mixing sparse", "mixing object", "maxcut weights", "maxcut nodes",
        "gop", "sblr numpy"])
def test_complex_data_is_a_value_error(call):
    # (no ComplexWarning either: no imaginary part is dropped on the way)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ComplexWarning)
        with pytest.raises(ValueError, match="Complex data not supported"):
            call()


def test_complex_dask_chunks_are_value_errors(client):
    da = pytest.importorskip("dask.array")
    X = da.from_array(SBLR_X + 1j, chunks=(12, 3, 4))
    with pytest.raises(ValueError, match="Complex data not supported"):
        SBLR(max_iter=5).fit(X, SBLR_Y)
    # a block whose complex values hide in an object array, on the worker
    from bilinear import _sblr_dask
    block = np.empty((1, 1, 1), dtype=object)
    block[0, 0, 0] = 1 + 1j
    with pytest.raises(ValueError, match="Complex data not supported"):
        _sblr_dask._make_chunk(block, 1, 1, 0, 0, "float64")


# ------------------------------------------------------------------ dimensions, sparse

@pytest.mark.parametrize("C", [None, 3.0, np.float64(2.0)])
def test_mixing_of_a_scalar_says_zero_dimensions(C):
    with pytest.raises(ValueError, match="C must be a 2-D array .* got 0 dimensions"):
        bilinear.mixing_sdp(C)


@pytest.mark.parametrize("y", [None, 1.0])
def test_gop_of_a_scalar_says_zero_dimensions(y):
    with pytest.raises(ValueError, match="y must be a 2-D array .* got 0 dimensions"):
        bilinear.gop_mmf(y)


def test_gop_of_a_sparse_matrix_says_so():
    with pytest.raises(TypeError, match="sparse"):
        bilinear.gop_mmf(scipy.sparse.csr_matrix(np.ones((2, 3))), k=2)


# ------------------------------------------------------------------ paths and model bytes

@pytest.fixture(scope="module")
def saved_model():
    return CRF(max_iterations=3).fit(CRF_X, CRF_Y)


@pytest.mark.parametrize("bad", [10**10, 3, True, None, "model", 1.5])
def test_open_inmemory_takes_only_bytes(saved_model, bad):
    with pytest.raises(TypeError, match="bytes"):
        Tagger().open_inmemory(bad)


def test_open_inmemory_takes_bytes_bytearray_memoryview(saved_model):
    data = saved_model.tagger_._model.to_bytes()
    for value in (data, bytearray(data), memoryview(data)):
        tagger = Tagger()
        tagger.open_inmemory(value)
        assert tagger.tag(CRF_X[0]) == saved_model.predict_single(CRF_X[0])


@pytest.mark.parametrize("bad", [True, 1, 0, 2.5])
def test_paths_are_not_file_descriptors(saved_model, bad, tmp_path):
    with pytest.raises(TypeError, match="model_filename"):
        CRF(model_filename=bad).predict(CRF_X)
    with pytest.raises(TypeError, match="model_filename"):
        CRF(model_filename=bad).fit(CRF_X, CRF_Y)
    with pytest.raises(TypeError, match="model_filename"):
        bool(CRF(model_filename=bad).tagger_)
    with pytest.raises(TypeError, match="name"):
        Tagger().open(bad)
    with pytest.raises(TypeError, match="filename"):
        saved_model.tagger_.dump(bad)


def test_paths_of_every_kind_work(tmp_path):
    path = tmp_path / "model.crf"
    crf = CRF(max_iterations=3, model_filename=path).fit(CRF_X, CRF_Y)
    for name in (path, str(path), bytes(path)):
        assert CRF(model_filename=name).predict(CRF_X)[0] == crf.predict(CRF_X)[0]
        tagger = Tagger()
        tagger.open(name)
        assert tagger.tag(CRF_X[0]) == crf.predict_single(CRF_X[0])


# ------------------------------------------------------------------ docstring claims

@pytest.mark.parametrize("bad", [(1.5, 12), (True, 12), ("3", 6), (3,), 18, "36", (-3, -6)])
def test_bad_matrix_shapes_are_value_errors(bad):
    # no int() on the pair's entries: 1.5, True and "3" were read as 1, 1 and 3
    X = SBLR_X.reshape(len(SBLR_X), -1)
    with pytest.raises(ValueError, match="matrix_shape"):
        SBLR(matrix_shape=bad).fit(X, SBLR_Y)


def test_three_d_predictions_after_a_matrix_shape_fit():
    """``matrix_shape``: "3-D X of shape (n, s, t) is always accepted"; after a fit on
    ``(n, s*t)`` rows it is read as ``X.reshape(n, s*t)``."""
    n, s, t = SBLR_X.shape
    flat = SBLR_X.reshape(n, s * t)
    model = SBLR(rank=2, max_iter=20, matrix_shape=(s, t)).fit(flat, SBLR_Y)
    np.testing.assert_array_equal(model.predict(SBLR_X), model.predict(flat))
    np.testing.assert_array_equal(model.decision_function(SBLR_X),
                                  model.decision_function(flat))
    np.testing.assert_array_equal(model.predict_proba(SBLR_X), model.predict_proba(flat))
    # a fit on the 3-D samples is the same model
    three_d = SBLR(rank=2, max_iter=20, matrix_shape=(s, t)).fit(SBLR_X, SBLR_Y)
    np.testing.assert_array_equal(three_d.decision_function(SBLR_X),
                                  model.decision_function(SBLR_X))
    # other sample shapes are still refused
    with pytest.raises(ValueError):
        model.predict(SBLR_X.reshape(n, t, s))
    with pytest.raises(ValueError, match="Complex"):
        model.predict(SBLR_X + 1j)
    # and the pickled model predicts the same
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(SBLR_X), model.predict(flat))


def test_defaults_functions_are_exported():
    assert "gop_mmf_defaults" in bilinear.__all__ and "tagger_defaults" in bilinear.__all__
    assert bilinear.gop_mmf_defaults()["k"] >= 1
    assert bilinear.tagger_defaults()["max_iter"] >= 1
    assert bilinear.tagger_defaults("crf-l2")["max_iter"] >= 1
    assert ":func:`gop_mmf_defaults`" in bilinear.gop_mmf.__doc__
    assert ":func:`tagger_defaults`" in bilinear.BilinearTagger.__doc__
    with pytest.raises(ValueError, match="learner must"):
        bilinear.tagger_defaults(1)


def test_bmp_weights_have_one_entry_per_atom():
    model = _bmp(n_atoms=3)
    assert model.weights_.shape == (model.n_iter_,) == (len(model.factors_),)
    assert model.rmse_path_.shape == (model.n_iter_,)
    # a zero tensor: no atom scores above 0, so one iteration that adds none
    zero = bilinear.BooleanTensorDecomposition(n_atoms=3).fit(np.zeros((4, 5, 6)))
    assert (len(zero.factors_), zero.weights_.shape, zero.n_iter_) == (0, (0,), 1)
    assert zero.rmse_path_.shape == (1,)
    doc = bilinear.BooleanTensorDecomposition.__doc__
    assert "weights_ : ndarray of shape (len(factors_),)" in doc
    assert "``len(factors_)`` or ``len(factors_) + 1``" in doc
