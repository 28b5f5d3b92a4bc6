"""Hostile keywords and inputs of the Python layer: every public entry refuses them with a
ValueError / TypeError naming the keyword the caller passed, before it scans, copies or
materialises anything large. Large inputs are stride-0 views (``np.broadcast_to``), so
that no test allocates more than a few kilobytes for them."""

import decimal
import fractions
import itertools

import numpy as np
import pytest

import bilinear
import bilinear.crfsuite as cs
from bilinear import (
    BilinearTagger,
    BooleanTensorDecomposition,
    SparseBilinearLogisticRegression,
    TuckerDecomposition,
    gop_mmf,
    maxcut,
    mixing_sdp,
)

#: bl_core::limits::MAX_ELEMENTS
MAX_ELEMENTS = 2**32


def _huge(shape):
    """A stride-0 view of ones with ``shape`` (no memory behind it)."""
    return np.broadcast_to(np.ones(1), shape)


# ----------------------------------------------------------------------------- 1. sizes


def test_sblr_fit_refuses_more_than_max_elements_before_scanning():
    X = _huge((10**6, 1000, 1000))
    with pytest.raises(ValueError, match=r"^X has shape \(1000000, 1000, 1000\).*2\*\*32"):
        SparseBilinearLogisticRegression().fit(X, np.arange(10**6) % 2)


def test_sblr_fit_refuses_2d_rows_above_max_elements():
    X = _huge((2**20, 2**12 + 1))
    with pytest.raises(ValueError, match=r"^X has shape"):
        SparseBilinearLogisticRegression().fit(X, np.arange(2**20) % 2)


def test_sblr_predict_refuses_more_than_max_elements():
    rng = np.random.default_rng(0)
    model = SparseBilinearLogisticRegression(max_iter=3).fit(
        rng.normal(size=(20, 3, 4)), [0, 1] * 10)
    X = _huge((MAX_ELEMENTS // 12 + 1, 3, 4))
    for method in ("predict", "decision_function", "predict_proba"):
        with pytest.raises(ValueError, match=r"^X has shape"):
            getattr(model, method)(X)


@pytest.mark.parametrize("cls", [BooleanTensorDecomposition,
                                 bilinear.CPDecomposition, TuckerDecomposition])
def test_tensor_fit_refuses_more_than_max_elements(cls):
    with pytest.raises(ValueError, match=r"^X has shape \(2000, 2000, 2000\)"):
        cls().fit(_huge((2000, 2000, 2000)))


def test_gop_refuses_more_than_max_elements():
    with pytest.raises(ValueError, match=r"^y has shape \(100000, 100000\)"):
        gop_mmf(_huge((10**5, 10**5)))


def test_mixing_and_maxcut_refuse_more_than_max_elements():
    with pytest.raises(ValueError, match=r"^C has shape \(70000, 70000\)"):
        mixing_sdp(_huge((70000, 70000)))
    edges = np.broadcast_to(np.array([0.0, 1.0, 1.0]), (MAX_ELEMENTS // 3 + 1, 3))
    with pytest.raises(ValueError, match=r"^edges has shape"):
        maxcut(edges)


# ------------------------------------------------------------------ 2. endless iterables


def _counted(n):
    """A generator of ``n`` zeros (standing for one without end) and the counter of the
    items it gave."""
    counter = itertools.count()
    return (0 for _ in itertools.islice(counter, n)), counter


def test_bmp_modes_generator_is_read_a_bounded_number_of_items():
    modes, counter = _counted(10**6)
    with pytest.raises(ValueError, match=r"^modes must be .*more than 64 items"):
        BooleanTensorDecomposition(modes=modes).fit(np.ones((2, 2, 2)))
    # (the generator was not run further than the bound)
    assert next(counter) <= 66


def test_bmp_modes_may_repeat_but_name_at_most_three_modes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3, 3, 3))
    # Repeats fit as the distinct modes do (the crate drops them), as before.
    a = BooleanTensorDecomposition(n_atoms=1, modes=[0, 0, 2, 2]).fit(X)
    b = BooleanTensorDecomposition(n_atoms=1, modes=(0, 2)).fit(X)
    assert np.array_equal(a.weights_, b.weights_)
    with pytest.raises(ValueError, match=r"^modes must name at most 3 distinct modes"):
        BooleanTensorDecomposition(n_atoms=1, modes=[0, 1, 2, 3]).fit(X)


def test_bmp_modes_still_take_arrays_and_tuples():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3, 3, 3))
    a = BooleanTensorDecomposition(n_atoms=1, modes=np.array([0, 2])).fit(X)
    b = BooleanTensorDecomposition(n_atoms=1, modes=(0, 2)).fit(X)
    assert np.array_equal(a.weights_, b.weights_)
    with pytest.raises(ValueError, match="modes"):
        BooleanTensorDecomposition(modes=np.array(1)).fit(X)


def test_tucker_ranks_generator_is_read_at_most_four_items():
    ranks, counter = _counted(10**6)
    with pytest.raises(ValueError, match=r"^ranks must be three positive ints"):
        TuckerDecomposition(ranks=ranks).fit(np.ones((2, 2, 2)))
    assert next(counter) <= 5
    model = TuckerDecomposition(ranks=(1 for _ in range(3))).fit(np.ones((2, 2, 2)))
    assert model.core_.shape == (1, 1, 1)


# ---------------------------------------------------------------- 3. the keyword's name


def test_bmp_n_atoms_is_named_n_atoms():
    with pytest.raises(ValueError, match=r"`n_atoms`") as info:
        BooleanTensorDecomposition(n_atoms=2**40).fit(np.ones((3, 3, 3)))
    assert "max_iter" not in str(info.value)
    with pytest.raises(ValueError, match=r"`n_atoms` = 0"):
        BooleanTensorDecomposition(n_atoms=0).fit(np.ones((3, 3, 3)))


CX, CY = [[{"a": 1}, {"b": 1}]], [["A", "B"]]


@pytest.mark.parametrize("algorithm", ["lbfgs", "l2sgd", "ap", "pa", "arow", "bol", "sp"])
def test_crf_max_iterations_zero_names_max_iterations(algorithm):
    with pytest.raises(ValueError, match=r"^parameter max_iterations must be >= 1"):
        cs.CRF(algorithm=algorithm, max_iterations=0).fit(CX, CY)


@pytest.mark.parametrize("algorithm", ["lbfgs", "l2sgd"])
def test_crf_delta_names_delta(algorithm):
    for value in (-1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"^parameter delta must be finite and >= 0"):
            cs.CRF(algorithm=algorithm, delta=value).fit(CX, CY)


@pytest.mark.parametrize("algorithm", ["lbfgs", "ap", "pa", "arow", "bol", "bcd", "sp"])
def test_crf_epsilon_names_epsilon(algorithm):
    with pytest.raises(ValueError, match=r"^parameter epsilon must be finite and >= 0"):
        cs.CRF(algorithm=algorithm, epsilon=-1).fit(CX, CY)


def test_crf_pa_type_names_pa_type():
    for value in (3, 5, 5.0, 2**70):
        with pytest.raises(ValueError, match=r"^parameter pa_type must be 0 \(PA\)"):
            cs.CRF(algorithm="pa", pa_type=value).fit(CX, CY)
    # the valid values and the reader's own refusals are unchanged
    for value in (0, 1, 2, 2.0):
        cs.CRF(algorithm="pa", pa_type=value, max_iterations=2).fit(CX, CY)
    with pytest.raises(ValueError, match="pa_type"):
        cs.CRF(algorithm="pa", pa_type=1.5).fit(CX, CY)


def test_crf_range_checks_keep_get_params_and_clone():
    from sklearn.base import clone

    crf = cs.CRF(max_iterations=0, delta=-1)
    assert clone(crf).get_params()["max_iterations"] == 0
    crf.set_params(max_iterations=3, delta=1e-3)
    crf.fit(CX, CY)


def test_sblr_empty_samples_name_x():
    with pytest.raises(ValueError, match=r"^X has samples of shape \(0, 4\)"):
        SparseBilinearLogisticRegression().fit(np.ones((20, 0, 4)), [0, 1] * 10)
    with pytest.raises(ValueError, match=r"^X has samples of shape \(3, 0\)"):
        SparseBilinearLogisticRegression().fit(np.ones((20, 3, 0)), [0, 1] * 10)


def test_sblr_float32_overflow_names_x():
    X = np.random.default_rng(0).normal(size=(20, 3, 4))
    X[3, 1, 2] = -1e300
    with pytest.raises(ValueError, match=r"^X has a value of magnitude 1e\+300, which does "
                                         r"not fit float32"):
        SparseBilinearLogisticRegression(dtype="float32").fit(X, [0, 1] * 10)
    # a value that fits float32 is taken
    X[3, 1, 2] = 1e30
    SparseBilinearLogisticRegression(dtype="float32", max_iter=2).fit(X, [0, 1] * 10)


# ---------------------------------------------------------------- 4. unnamed errors


def test_bmp_reconstruct_negative_mode_names_factors():
    model = BooleanTensorDecomposition(n_atoms=1).fit(
        np.random.default_rng(0).normal(size=(3, 3, 3)))
    mode, z, u, w = model.factors_[0]
    model.factors_ = [(-1, z, u, w)]
    with pytest.raises(ValueError, match=r"^the mode of factors_\[0\] must be non-negative"):
        model.reconstruct()


def _crf_tagger():
    tagger = cs.CRF(max_iterations=3).fit(CX, CY).tagger_
    tagger.set(CX[0])
    return tagger


def test_tagger_probability_names_yseq():
    tagger = _crf_tagger()
    with pytest.raises(TypeError, match=r"^yseq must be a sequence of labels \(str\): "
                                        r"yseq\[0\] is int"):
        tagger.probability([1, 2])
    with pytest.raises(TypeError, match=r"^yseq must be a sequence of labels"):
        tagger.probability(None)
    assert 0.0 <= tagger.probability(["A", "B"]) <= 1.0


TX = [list("abcd"), list("bcda")]
TY = [list("ssbe"), list("bess")]


def test_bilinear_tagger_none_sequence_names_y():
    with pytest.raises(ValueError, match=r"^y: sequence 0 is NoneType"):
        BilinearTagger(max_iter=2).fit(TX, [None, None])


def test_bilinear_tagger_surrogate_names_the_token():
    with pytest.raises(ValueError, match=r"^X: sentence 1, token 2 is not valid Unicode"):
        BilinearTagger(max_iter=2).fit([list("ab"), ["a", "b", "\ud800"]],
                                       [list("ss"), list("sss")])
    with pytest.raises(ValueError, match=r"^y: sentence 0, token 1 is not valid Unicode"):
        BilinearTagger(max_iter=2).fit([list("ab")], [["s", "\udfff"]])
    model = BilinearTagger(max_iter=2).fit(TX, TY)
    with pytest.raises(ValueError, match=r"^X: sentence 0, token 0 is not valid Unicode"):
        model.predict([["\ud800"]])


def test_fit_npy_path_must_be_a_path():
    with pytest.raises(TypeError, match=r"^path must be a path"):
        SparseBilinearLogisticRegression().fit_npy(3, [0, 1], memory_budget=10**6)


@pytest.mark.parametrize("C", [
    np.array([["0", "1"], ["1", "0"]]),
    [["0", "1"], ["1", "0"]],
    np.array([[0, "a"], [1, 0]], dtype=object),
    np.array([[0, None], [None, 0]], dtype=object),
    np.array([[b"0", b"1"], [b"1", b"0"]]),
])
def test_sdp_refuses_non_numeric_arrays(C):
    with pytest.raises(ValueError, match=r"^C must hold real numbers"):
        mixing_sdp(C)
    with pytest.raises(ValueError, match=r"^edges must hold real numbers"):
        maxcut(C)
    with pytest.raises(ValueError, match=r"^y must hold real numbers"):
        gop_mmf(C)


@pytest.mark.parametrize("text", [bytearray(b"1"), memoryview(b"1")])
def test_sdp_refuses_text_that_float_would_parse(text):
    C = np.array([[0, None], [None, 0]], dtype=object)
    C[0, 1] = C[1, 0] = text
    with pytest.raises(ValueError, match=r"^C must hold real numbers"):
        mixing_sdp(C)


def test_sdp_says_an_integer_beyond_float64_is_too_large():
    C = np.array([[0, 10**400], [10**400, 0]], dtype=object)
    with pytest.raises(ValueError, match=r"^C holds int .*too large for float64"):
        mixing_sdp(C)


def test_sdp_still_takes_numeric_object_and_int_arrays():
    C = np.array([[0, 1], [1, 0]], dtype=object)
    a = mixing_sdp(C)
    # Objects `float` takes are numbers (they were before the non-number check).
    for one in (decimal.Decimal(1), np.bool_(True), fractions.Fraction(1)):
        c = np.array([[0, one], [one, 0]], dtype=object)
        assert mixing_sdp(c).value == a.value
    b = mixing_sdp(np.array([[0.0, 1.0], [1.0, 0.0]]))
    assert a.value == b.value
    assert maxcut(np.array([[0, 1]])).cut_value == 1.0


def test_gop_tol_message_matches_the_check():
    for value in (0, -1, float("inf")):
        with pytest.raises(ValueError, match=r"^tol must be finite and > 0"):
            gop_mmf(np.ones((3, 3)), tol=value)
