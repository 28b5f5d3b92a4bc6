"""What the package's docstrings state, checked against what the code does: each test
names the docstring it holds to."""

import io
import contextlib
import random

import numpy as np
import pytest

import bilinear
from bilinear import CPDecomposition, TuckerDecomposition, _native
from bilinear.crfsuite import CRF, metrics


def _noisy_corpus(seed=1, n=80):
    """Sequences of real-valued and string features with noisy labels (no trainer fits
    them exactly, so no early stop)."""
    rng = random.Random(seed)
    X, y = [], []
    for _ in range(n):
        xs, ys = [], []
        for t in range(rng.randint(3, 8)):
            w = rng.randint(0, 30)
            xs.append({"w": str(w), "p": str(w % 4), "v": rng.gauss(0, 3)})
            ys.append("ABCD"[(w + t) % 4] if rng.random() < 0.8 else "ABCD"[rng.randint(0, 3)])
        X.append(xs)
        y.append(ys)
    return X, y


def _binary(X):
    """The same sequences with binary attributes only (what bol, bcd, sp take)."""
    return [[{f"w:{d['w']}": 1, f"p:{d['p']}": 1} for d in s] for s in X]


# ---------------------------------------------------------------------------------------
# bilinear.crfsuite.CRF


def test_linesearch_values_run_different_searches_with_c1_zero():
    """``linesearch``: with ``c1 = 0`` each value runs its own search (Moré-Thuente is not
    the backtracking search); with ``c1 > 0`` every value runs the same one."""
    X, y = _noisy_corpus()
    loss = {}
    for c1 in (0.0, 0.1):
        for ls in ("MoreThuente", "Backtracking", "StrongBacktracking"):
            crf = CRF(linesearch=ls, c1=c1, c2=0.01, max_iterations=50).fit(X, y)
            loss[c1, ls] = [it["loss"] for it in crf.training_log_.iterations]
    assert loss[0.0, "MoreThuente"] != loss[0.0, "Backtracking"]
    assert loss[0.1, "MoreThuente"] == loss[0.1, "Backtracking"] \
        == loss[0.1, "StrongBacktracking"]


@pytest.mark.parametrize("algorithm,budget", [("ap", 100), ("pa", 100), ("arow", 100),
                                              ("bol", 20), ("bcd", 20), ("sp", 20)])
def test_default_iteration_budgets(algorithm, budget):
    """``max_iterations``: ap, pa, arow 100 epochs by default; bol, bcd, sp 20."""
    X, y = _noisy_corpus(n=30)
    if algorithm in ("bol", "bcd", "sp"):
        X = _binary(X)
    crf = CRF(algorithm=algorithm).fit(X, y)
    assert len(crf.training_log_.iterations) == budget


def test_online_epsilon_stops_on_the_mean_loss_per_sequence():
    """``epsilon`` (ap, pa, arow): stop after the first epoch whose loss per sequence is
    below it (at most it, for arow); a bound above any epoch's mean loss stops after one
    epoch."""
    X, y = _noisy_corpus(n=30)
    crf = CRF(algorithm="pa", epsilon=1e9, max_iterations=50).fit(X, y)
    assert len(crf.training_log_.iterations) == 1


def test_sp_does_not_take_c():
    """``c`` is bol's and bcd's (and pa's); sp does not take it, so any value is refused
    like any other parameter the algorithm does not take."""
    X, y = _noisy_corpus(n=10)
    X = _binary(X)
    for c in (1.0, 2.0):
        with pytest.raises(ValueError, match="c does not apply"):
            CRF(algorithm="sp", c=c).fit(X, y)
    CRF(algorithm="bol", c=2.0, max_iterations=2).fit(X, y)


@pytest.mark.parametrize("algorithm", ["lbfgs", "l2sgd", "ap", "pa", "arow", "bol", "bcd",
                                       "sp"])
def test_crfsuite_parameters_lists_what_a_fit_accepts(algorithm):
    """``_native.crfsuite_parameters``: the parameters a fit of the algorithm accepts; a
    parameter it does not list is refused."""
    X, y = _noisy_corpus(n=10)
    if algorithm in ("bol", "bcd", "sp"):
        X = _binary(X)
    listed = set(_native.crfsuite_parameters(algorithm))
    values = {"min_freq": 0.0, "all_possible_states": False,
              "all_possible_transitions": False, "max_iterations": 2, "c1": 0.0, "c2": 1.0,
              "num_memories": 6, "epsilon": 0.0, "period": 10, "delta": 1e-5,
              "linesearch": "MoreThuente", "max_linesearch": 20, "calibration_eta": 0.1,
              "calibration_rate": 2.0, "calibration_samples": 1000,
              "calibration_candidates": 10, "calibration_max_trials": 20, "pa_type": 1,
              "c": 1.0, "error_sensitive": True, "averaging": False, "variance": 1.0,
              "gamma": 1.0, "zero_order": False, "transitions_only": False}
    for name, value in values.items():
        crf = CRF(algorithm=algorithm, **{name: value})
        if name != "max_iterations":
            crf.set_params(max_iterations=2)
        if name in listed:
            crf.fit(X, y)
        else:
            with pytest.raises(ValueError, match="does not apply"):
                crf.fit(X, y)


def test_verbose_prints_iterations_of_crfsuite_trainers_only():
    """``verbose``: one line per iteration for CRFsuite's trainers, none for bol, bcd, sp."""
    X, y = _noisy_corpus(n=20)
    for algorithm, data, lines in (("ap", X, 3), ("bol", _binary(X), 0)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            CRF(algorithm=algorithm, verbose=True, max_iterations=3).fit(data, y)
        assert out.getvalue().count("Iter ") == lines


def test_held_out_data_of_bilinear_learners_is_scored_once():
    """``fit``: held-out data is scored after every iteration, for bol, bcd, sp once (the
    returned model, in the last iteration)."""
    X, y = _noisy_corpus(n=20)
    Xb = _binary(X)
    ap = CRF(algorithm="ap", max_iterations=3).fit(X, y, X_dev=X, y_dev=y)
    assert all("item_accuracy" in it for it in ap.training_log_.iterations)
    bol = CRF(algorithm="bol", max_iterations=3).fit(Xb, y, X_dev=Xb, y_dev=y)
    its = bol.training_log_.iterations
    assert len(its) == 3
    assert ["item_accuracy" in it for it in its] == [False, False, True]


def test_dump_of_a_bilinear_model_is_a_value_error(tmp_path):
    """``Tagger.dump``: ``ValueError`` for a model of bol, bcd or sp (it has no CRFsuite
    features), as ``state_features_`` says; a CRF's dump works."""
    X, y = _noisy_corpus(n=10)
    bol = CRF(algorithm="bol", max_iterations=2).fit(_binary(X), y)
    with pytest.raises(ValueError, match="has no state features"):
        bol.tagger_.dump(str(tmp_path / "bol.txt"))
    crf = CRF(max_iterations=2).fit(X, y)
    crf.tagger_.dump(str(tmp_path / "crf.txt"))
    assert "STATE_FEATURES = {" in (tmp_path / "crf.txt").read_text()


def test_model_info_of_a_bilinear_model():
    """``ModelInfo`` of bol, bcd, sp: no transitions nor state features, every attribute
    of the training data."""
    X, y = _noisy_corpus(n=10)
    Xb = _binary(X)
    info = CRF(algorithm="bcd", max_iterations=2).fit(Xb, y).tagger_.info()
    assert info.transitions is None and info.state_features is None
    assert set(info.attributes) == {a for s in Xb for d in s for a in d}


def test_flat_metrics_keywords():
    """``metrics``: the flat functions pass extra keywords on, but for
    ``flat_accuracy_score``, which takes none; ``sequence_accuracy_score`` refuses
    sequences of different counts."""
    y = [["A", "B"], ["B"]]
    p = [["A", "A"], ["B"]]
    assert metrics.flat_f1_score(y, p, average="macro") == pytest.approx(2 / 3)
    with pytest.raises(TypeError):
        metrics.flat_accuracy_score(y, p, normalize=False)
    with pytest.raises(ValueError, match="sequences"):
        metrics.sequence_accuracy_score(y, p[:1])


# ---------------------------------------------------------------------------------------
# Tensor decompositions


def test_tucker_without_missing_entries_checks_but_ignores_max_iter():
    """``TuckerDecomposition``: one HOSVD without missing entries; ``max_iter`` is still
    checked."""
    X = np.random.default_rng(0).normal(size=(5, 6, 7))
    a = TuckerDecomposition(ranks=(2, 2, 2)).fit(X)
    b = TuckerDecomposition(ranks=(2, 2, 2), max_iter=1, tol=0.5).fit(X)
    assert a.n_iter_ == b.n_iter_ == 1
    np.testing.assert_array_equal(a.core_, b.core_)
    with pytest.raises(ValueError, match="max_iter"):
        TuckerDecomposition(ranks=(2, 2, 2), max_iter=0).fit(X)


def test_cp_n_iter_counts_the_sweeps_of_all_starts():
    """``CPDecomposition.n_iter_``: ALS sweeps of all starts."""
    X = np.random.default_rng(0).normal(size=(5, 6, 7))
    for starts in (1, 3):
        cp = CPDecomposition(rank=2, n_starts=starts, max_iter=4, tol=0.0).fit(X)
        assert cp.n_iter_ == 4 * starts


# ---------------------------------------------------------------------------------------
# bilinear.BilinearTagger


def test_rank_one_factors_of_bilinear_learners_only():
    """``TaggerModel.alpha`` / ``beta``: bol's and bcd's rank-1 factors; None for sp and
    the CRFs."""
    from bilinear import BilinearTagger

    X = [["the", "dog"], ["a", "cat", "runs"]] * 5
    y = [["D", "N"], ["D", "N", "V"]] * 5
    for learner, has in (("bol", True), ("bcd", True), ("sp", False), ("crf-l2", False)):
        model = BilinearTagger(learner=learner, max_iter=2).fit(X, y).model_
        assert (model.alpha is not None) == has and (model.beta is not None) == has


def test_evaluate_gives_the_error_rate_and_f1_only():
    """``BilinearTagger.evaluate``: ``label_error_rate`` and ``f1`` (word F1 for BMES
    tags; NaN for tags without spans)."""
    from bilinear import BilinearTagger

    X = [["the", "dog"], ["a", "cat", "runs"]] * 5
    y = [["D", "N"], ["D", "N", "V"]] * 5
    plain = BilinearTagger(max_iter=2).fit(X, y).evaluate(X, y)
    assert set(plain) == {"label_error_rate", "f1"} and np.isnan(plain["f1"])
    Xc = [list("abcd"), list("ef")] * 5
    yc = [["B", "E", "B", "E"], ["S", "S"]] * 5
    tagger = BilinearTagger(max_iter=5).fit(Xc, yc)
    # Scored against other gold tags, so that the word F1 is neither 0 nor 1: it is the F1
    # of the word spans, computed here from the predicted tags.
    gold = [["B", "E", "S", "S"], ["S", "S"]] * 5
    pred = tagger.predict(Xc)
    bmes = tagger.evaluate(Xc, gold)
    tokens = [(p, g) for ps, gs in zip(pred, gold) for p, g in zip(ps, gs)]
    assert bmes["label_error_rate"] == pytest.approx(
        sum(p != g for p, g in tokens) / len(tokens))
    found = [_bmes_words(s) for s in pred]
    truth = [_bmes_words(s) for s in gold]
    right = sum(len(f & t) for f, t in zip(found, truth))
    precision = right / sum(map(len, found))
    recall = right / sum(map(len, truth))
    assert 0.0 < right < sum(map(len, truth))
    assert bmes["f1"] == pytest.approx(2 * precision * recall / (precision + recall))


def _bmes_words(tags):
    """The words of a BMES tag sequence as ``(start, end)`` spans."""
    words, start = set(), 0
    for i, tag in enumerate(tags):
        if tag in ("B", "S"):
            start = i
        if tag in ("E", "S"):
            words.add((start, i))
    return words


def test_attributes_of_a_bilinear_model_are_all_the_training_attributes():
    """``CRF.attributes_``: the attributes with a nonzero feature; for bol, bcd, sp every
    attribute of the training data."""
    X, y = _noisy_corpus(n=10)
    Xb = _binary(X)
    crf = CRF(algorithm="bol", max_iterations=2).fit(Xb, y)
    assert set(crf.attributes_) == {a for s in Xb for d in s for a in d}
    assert crf.num_attributes_ == len(crf.attributes_)


# The package README, "Errors, pickling, threads": every estimator and function takes
# `threads`; bad parameters raise `ValueError`.
_C = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
_TENSOR = np.random.default_rng(0).normal(size=(4, 3, 3))
_THREADED = {
    "classifier": lambda t: bilinear.SparseBilinearLogisticRegression(threads=t).fit(
        np.random.default_rng(0).normal(size=(8, 2, 2)), np.arange(8) % 2),
    "bmp": lambda t: bilinear.BooleanTensorDecomposition(n_atoms=1, threads=t).fit(_TENSOR),
    "cp": lambda t: CPDecomposition(rank=1, threads=t).fit(_TENSOR),
    "tucker": lambda t: TuckerDecomposition(ranks=(1, 1, 1), threads=t).fit(_TENSOR),
    "tagger": lambda t: bilinear.BilinearTagger(threads=t, max_iter=1).fit(
        [["a", "b"]], [["s", "e"]]),
    "mixing_sdp": lambda t: bilinear.mixing_sdp(_C, threads=t),
    "maxcut": lambda t: bilinear.maxcut(_C, threads=t),
    "gop_mmf": lambda t: bilinear.gop_mmf([[0.0, -1.0, -0.5]], k=2, budget=1.0, threads=t),
}


@pytest.mark.parametrize("name", sorted(_THREADED))
def test_every_entry_takes_threads_and_refuses_bad_values(name):
    fit = _THREADED[name]
    fit(None)
    fit(1)
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="threads"):
            fit(bad)
