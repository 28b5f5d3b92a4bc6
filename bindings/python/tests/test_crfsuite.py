"""``bilinear.crfsuite``, the drop-in for sklearn-crfsuite: the behaviour sklearn-crfsuite's
own tests expect (fit/predict on tiny data, marginals, score, pickling, model_filename,
cross-validation, searches), python-crfsuite's reading of items rule by rule, the errors
that name the sequence and position, held-out logs, and every CRFsuite trainer."""

import itertools
import math
import os
import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, RandomizedSearchCV, cross_val_score

import bilinear.crfsuite as sklearn_crfsuite
from bilinear.crfsuite import CRF, metrics, scorers

ALGORITHMS = ["lbfgs", "l2sgd", "ap", "pa", "arow"]
#: CRFsuite's default c2 = 1 is too strong a prior for the six sentences of _pos_corpus.
LIGHT_L2 = {"lbfgs": {"c2": 0.01}, "l2sgd": {"c2": 0.01}}


@pytest.fixture
def xseq():
    """sklearn-crfsuite's test sequence (weather; real values, an empty item, a bytes
    value)."""
    return [
        {"walk": 1, "shop": 0.5},
        {"walk": 1},
        {"walk": 1, "clean": 0.5},
        {"shop": 0.5, "clean": 0.5},
        {"walk": 0.5, "clean": 1},
        {"clean": 1, "shop": 0.1},
        {"walk": 1, "shop": 0.5},
        {},
        {"clean": 1},
        {"солнце": "не светит".encode("utf8"), "clean": 1},
    ]


@pytest.fixture
def yseq():
    return ["sunny", "sunny", "sunny", "rainy", "rainy", "rainy",
            "sunny", "sunny", "rainy", "rainy"]


def _pos_corpus():
    """A tiny tagging corpus: word identity decides the tag, except 'run' (verb after
    'I'/'they', noun after 'the')."""
    sents = [
        [("the", "DT"), ("dog", "NN"), ("barks", "VB")],
        [("the", "DT"), ("cat", "NN"), ("sleeps", "VB")],
        [("I", "PR"), ("run", "VB"), ("home", "NN")],
        [("they", "PR"), ("run", "VB")],
        [("the", "DT"), ("run", "NN"), ("ends", "VB")],
        [("a", "DT"), ("dog", "NN"), ("sleeps", "VB")],
    ]

    def feats(words, i):
        f = {"w": words[i], "bias": 1.0}
        f["prev"] = words[i - 1] if i > 0 else "<s>"
        return f

    X = [[feats([w for w, _ in s], i) for i in range(len(s))] for s in sents]
    y = [[t for _, t in s] for s in sents]
    return X, y


# ---------------------------------------------------------------------------------------
# sklearn-crfsuite's own test expectations.


def test_import_line_gives_sklearn_crfsuite_names():
    assert sklearn_crfsuite.CRF is CRF
    assert sklearn_crfsuite.metrics is metrics
    assert sklearn_crfsuite.scorers is scorers
    for name in ("flat_accuracy_score", "flat_precision_score", "flat_recall_score",
                 "flat_f1_score", "flat_classification_report", "sequence_accuracy_score"):
        assert callable(getattr(metrics, name))
    assert callable(scorers.flat_accuracy) and callable(scorers.sequence_accuracy)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_crf_fits_and_predicts_tiny_data(xseq, yseq, algorithm):
    crf = CRF(algorithm).fit([xseq], [yseq])
    y_pred = crf.predict([xseq])
    assert isinstance(y_pred, np.ndarray) and y_pred.shape == (1,)
    if algorithm != "ap":  # sklearn-crfsuite: the averaged perceptron is regularized too much
        assert list(y_pred[0]) == yseq
        assert crf.predict_single(xseq) == yseq


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("use_dev", [True, False])
def test_crf_verbose(xseq, yseq, algorithm, use_dev, capsys):
    crf = CRF(algorithm, verbose=True)
    X_dev, y_dev = ([xseq], [yseq]) if use_dev else (None, None)
    crf.fit(X=[xseq, xseq], y=[yseq, yseq], X_dev=X_dev, y_dev=y_dev)
    out = capsys.readouterr().out
    assert "Iter 1 " in out
    assert ("Held-out accuracy" in out) == use_dev
    if algorithm != "ap":
        assert list(crf.predict([xseq])[0]) == yseq


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_marginals_sum_to_one_over_tagger_labels(xseq, yseq, algorithm):
    crf = CRF(algorithm).fit([xseq], [yseq])
    marginals = crf.predict_marginals([xseq])
    assert len(marginals) == 1
    assert len(marginals[0]) == len(yseq)
    labels = crf.tagger_.labels()
    for m in marginals[0]:
        assert isinstance(m, dict)
        assert set(m) == set(labels)
        assert abs(sum(m.values()) - 1.0) < 1e-6
    assert crf.predict_marginals_single(xseq) == list(marginals[0])


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_predict_without_fit_raises(xseq, algorithm):
    crf = CRF(algorithm)
    with pytest.raises(NotFittedError):
        crf.predict([xseq])
    assert crf.tagger_ is None and crf.classes_ is None and crf.training_log_ is None
    assert crf.size_ is None and crf.state_features_ is None


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_score_is_flat_accuracy(xseq, yseq, algorithm):
    crf = CRF(algorithm).fit([xseq], [yseq])
    score = crf.score([xseq], [yseq])
    if algorithm != "ap":
        assert score == 1.0
    else:
        assert score > 0.8
    assert score == metrics.flat_accuracy_score([yseq], crf.predict([xseq]))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_pickle_round_trip_predicts_identically(xseq, yseq, algorithm):
    crf = CRF(algorithm=algorithm).fit([xseq], [yseq])
    crf.tagger_.set(xseq)  # a tagger with a sequence set is not part of the state
    crf2 = pickle.loads(pickle.dumps(crf, protocol=pickle.HIGHEST_PROTOCOL))
    assert crf2.algorithm == algorithm
    assert [list(s) for s in crf2.predict([xseq])] == [list(s) for s in crf.predict([xseq])]
    assert crf2.predict_marginals_single(xseq) == crf.predict_marginals_single(xseq)
    assert crf2.state_features_ == crf.state_features_
    assert crf2.training_log_.iterations == crf.training_log_.iterations


#: sklearn-crfsuite 0.5.0 on python-crfsuite 0.9.12 (CRFsuite 0.12.2), produced by
#: ``crf = sklearn_crfsuite.CRF(**params).fit([xseq], [yseq])`` on the fixtures above:
#: iterations, last loss, state_features_ and transition_features_ (CRFsuite's dump
#: prints 6 decimals), then ``crf.tagger_.set(xseq[:3])``,
#: ``crf.tagger_.probability(["sunny", "rainy", "sunny"])`` and
#: ``crf.tagger_.marginal("rainy", 1)``.
CRFSUITE_LBFGS = [
    ({}, 12, 4.738571,
     {("clean", "rainy"): 0.542811, ("clean", "sunny"): -0.542811,
      ("shop", "rainy"): -0.015051, ("shop", "sunny"): 0.015051,
      ("walk", "rainy"): -0.46423, ("walk", "sunny"): 0.46423,
      ("солнце:не светит", "rainy"): 0.100667},
     {("rainy", "rainy"): 0.105764, ("rainy", "sunny"): -0.263369,
      ("sunny", "rainy"): -0.051996, ("sunny", "sunny"): 0.209601},
     0.07767636913445178, 0.22430668750658206),
    ({"c1": 0.1, "c2": 0.01}, 20, 1.886831,
     {("clean", "rainy"): 2.453878, ("clean", "sunny"): -2.453878,
      ("walk", "rainy"): -1.574035, ("walk", "sunny"): 1.574035},
     {("sunny", "sunny"): 1.155504},
     0.0036092894072835076, 0.00564441649140019),
]


@pytest.mark.parametrize("params, iters, loss, state, trans, prob, marginal", CRFSUITE_LBFGS)
def test_lbfgs_equals_crfsuite(xseq, yseq, params, iters, loss, state, trans, prob, marginal):
    """L-BFGS (OWL-QN with c1) reaches CRFsuite's model on the same items: same
    iterations, loss, nonzero weights (to CRFsuite's 6 printed decimals) and
    probabilities."""
    crf = CRF(**params).fit([xseq], [yseq])
    log = crf.training_log_
    assert len(log.iterations) == iters
    assert log.last_iteration["loss"] == pytest.approx(loss, abs=1e-6)
    assert set(crf.state_features_) == set(state)
    assert set(crf.transition_features_) == set(trans)
    for ours, ref in ((crf.state_features_, state), (crf.transition_features_, trans)):
        for k, w in ref.items():
            assert ours[k] == pytest.approx(w, abs=2e-6)
    crf.tagger_.set(xseq[:3])
    assert crf.tagger_.probability(["sunny", "rainy", "sunny"]) == pytest.approx(prob, rel=1e-6)
    assert crf.tagger_.marginal("rainy", 1) == pytest.approx(marginal, rel=1e-6)


def test_model_filename_writes_and_loads(xseq, yseq, tmp_path):
    path = os.path.join(str(tmp_path), "foo.crfsuite")
    assert not os.path.exists(path)
    crf = CRF(model_filename=path)
    crf.fit([xseq], [yseq])
    assert os.path.exists(path)
    assert os.path.getsize(path) == crf.size_

    crf2 = CRF(model_filename=path)  # loads the model without fitting
    assert crf2.score([xseq], [yseq]) == 1.0
    assert crf2.state_features_ == crf.state_features_
    assert crf2.training_log_ is None

    crf3 = pickle.loads(pickle.dumps(crf, protocol=pickle.HIGHEST_PROTOCOL))
    assert crf3.score([xseq], [yseq]) == 1.0


def test_model_filename_without_a_file_is_unfitted_and_says_where(tmp_path):
    """No file at model_filename: the estimator is unfitted (attributes None,
    NotFittedError), and the error names the path, so that a typo shows."""
    path = str(tmp_path / "typo.crfsuite")
    crf = CRF(model_filename=path)
    assert crf.classes_ is None and crf.tagger_ is None
    with pytest.raises(NotFittedError) as e:
        crf.predict([[{"a": 1}]])
    assert f"no model file exists at model_filename={path!r}" in str(e.value)
    with pytest.raises(NotFittedError, match="not fitted yet: call fit"):
        CRF().predict([[{"a": 1}]])


def test_model_filename_of_crfsuite_itself_is_refused(tmp_path):
    path = tmp_path / "model.crfsuite"
    path.write_bytes(b"lCRF" + bytes(60))
    with pytest.raises(ValueError, match="CRFsuite"):
        CRF(model_filename=str(path)).predict([[{"a": 1}]])


def test_cross_val_score_with_two_jobs(xseq, yseq):
    scores = cross_val_score(CRF(), [xseq] * 20, [yseq] * 20, n_jobs=2, cv=5)
    assert scores.mean() == 1.0


def test_dev_data_needs_both_halves(xseq, yseq):
    with pytest.raises(ValueError, match="X_dev and y_dev"):
        CRF().fit([xseq] * 20, [yseq] * 20, [xseq])


def test_grid_search_over_c1_c2():
    X, y = _pos_corpus()
    search = GridSearchCV(CRF(max_iterations=50), {"c1": [0.0, 0.1], "c2": [0.01, 1.0]},
                          cv=3, scoring=scorers.flat_accuracy, n_jobs=2)
    search.fit(X, y)
    assert set(search.best_params_) == {"c1", "c2"}
    assert search.best_score_ > 0.5
    assert len(search.cv_results_["mean_test_score"]) == 4


def test_randomized_search_as_in_sklearn_crfsuite_tutorial():
    """The tutorial's search: scipy.stats distributions for c1, c2 and a weighted flat F1
    scorer over some labels, on two processes."""
    import scipy.stats
    from sklearn.metrics import make_scorer

    X, y = _pos_corpus()
    crf = CRF(algorithm="lbfgs", max_iterations=50, all_possible_transitions=True)
    labels = [lab for lab in CRF(c2=0.01).fit(X, y).classes_ if lab != "DT"]
    f1 = make_scorer(metrics.flat_f1_score, average="weighted", labels=labels)
    space = {"c1": scipy.stats.expon(scale=0.5), "c2": scipy.stats.expon(scale=0.05)}
    search = RandomizedSearchCV(crf, space, cv=2, n_iter=4, n_jobs=2, scoring=f1,
                                random_state=0)
    search.fit(X, y)
    # every sampled candidate was fitted and scored, and the best of them kept
    scores = search.cv_results_["mean_test_score"]
    assert len(scores) == 4 and np.all(np.isfinite(scores))
    assert search.best_score_ == scores.max()
    assert search.best_estimator_.score(X, y) > 0.5
    seq = RandomizedSearchCV(crf, {"c2": [0.01, 1.0]}, n_iter=2, cv=2,
                             scoring=scorers.sequence_accuracy, random_state=0).fit(X, y)
    assert sorted(p["c2"] for p in seq.cv_results_["params"]) == [0.01, 1.0]
    assert np.all(np.isfinite(seq.cv_results_["mean_test_score"]))
    assert seq.best_score_ == seq.cv_results_["mean_test_score"].max()


def test_clone_keeps_parameters():
    crf = CRF(algorithm="lbfgs", c1=0.1, c2=0.2, max_iterations=7, n_jobs=2, verbose=False)
    assert clone(crf).get_params() == crf.get_params()


# ---------------------------------------------------------------------------------------
# Items are read as python-crfsuite reads them: each rule once.


def _fit_features(X, y, **kw):
    return CRF(c2=0.01, max_iterations=100, **kw).fit(X, y)


def test_string_value_is_key_colon_value():
    crf = _fit_features([[{"a": "b"}, {"a": "c"}]], [["X", "Y"]])
    assert set(crf.attributes_) == {"a:b", "a:c"}
    assert ("a:b", "X") in crf.state_features_


def test_bytes_keys_and_values_are_utf8():
    crf = _fit_features([[{b"k": "v"}, {"k": "w".encode()}]], [["X", "Y"]])
    assert set(crf.attributes_) == {"k:v", "k:w"}


def _one_item_marginal(crf, item, label):
    return crf.predict_marginals_single([item])[0][label]


def _softmax_from_weights(crf, pairs, label):
    """p(label) of a one-item sequence from the state weights by name: the independent
    check that an attribute's value multiplies its weights."""
    scores = {y: 0.0 for y in crf.classes_}
    for name, value in pairs:
        for y in crf.classes_:
            scores[y] += value * crf.state_features_.get((name, y), 0.0)
    z = sum(math.exp(s) for s in scores.values())
    return math.exp(scores[label]) / z


def test_number_value_is_the_attribute_weight():
    # (a feature's frequency is the sum of its values, as in CRFsuite: keep them positive)
    crf = _fit_features([[{"n": 2.5}], [{"n": 0.5}]], [["X"], ["Y"]])
    assert crf.attributes_ == ["n"]
    assert crf.state_features_[("n", "X")] > crf.state_features_[("n", "Y")]
    for v in (2.5, 0.3, -4.0):
        assert _one_item_marginal(crf, {"n": v}, "X") == pytest.approx(
            _softmax_from_weights(crf, [("n", v)], "X"), abs=1e-12)


def test_integers_and_numpy_scalars_are_numbers():
    crf = _fit_features([[{"n": 2.5}], [{"n": 0.5}]], [["X"], ["Y"]])
    for v in (2, np.float32(2.0), np.int64(2), np.float64(2.0)):
        assert _one_item_marginal(crf, {"n": v}, "X") == pytest.approx(
            _one_item_marginal(crf, {"n": 2.0}, "X"), abs=1e-7)


def test_booleans_are_one_and_zero():
    crf = _fit_features([[{"b": True}], [{"c": 1}]], [["X"], ["Y"]])
    assert _one_item_marginal(crf, {"b": True}, "X") == _one_item_marginal(crf, {"b": 1.0}, "X")
    assert _one_item_marginal(crf, {"b": False}, "X") == _one_item_marginal(crf, {}, "X")


def test_nested_dict_prefixes_its_keys():
    crf = _fit_features([[{"p": {"q": "r", "s": 1.0, "t": {"u": "v"}}}], [{"o": 1}]],
                        [["X"], ["Y"]])
    assert set(crf.attributes_) == {"p:q:r", "p:s", "p:t:u:v", "o"}


def _nested(levels):
    """``{"a": {"a": ... {"z": 1.0}}}``: ``levels`` dicts below the item's own."""
    d = {"z": 1.0}
    for _ in range(levels):
        d = {"a": d}
    return d


def test_nesting_is_refused_past_64_dicts_and_a_dict_that_contains_itself():
    # 64 nested dicts are read (one attribute named a:...:a:z); one more is a ValueError,
    # as is a dict that contains itself, for fit and predict alike (the walk recursed
    # without a limit: a self-referencing or 100,000-deep item crashed the process).
    crf = _fit_features([[_nested(64)], [{"o": 1}]], [["X"], ["Y"]])
    assert "a:" * 64 + "z" in crf.attributes_
    looped = {}
    looped["a"] = looped
    for bad in (_nested(65), _nested(100_000), looped):
        with pytest.raises(ValueError, match="nest deeper than 64 dicts"):
            CRF(max_iterations=2).fit([[bad]], [["X"]])
        with pytest.raises(ValueError, match="sequence 0, position 1: features nest deeper"):
            crf.predict_single([{"o": 1}, bad])


def test_shared_children_and_long_names_are_refused():
    # 64 dicts, each holding the next twice: 2^63 attributes if walked; refused after
    # 2^20 entries. A name past 2^20 bytes with its prefixes is refused too.
    shared = {"z": 1.0}
    for _ in range(63):
        shared = {"a": shared, "b": shared}
    with pytest.raises(ValueError, match="more than 1048576 feature entries"):
        CRF(max_iterations=2).fit([[shared]], [["X"]])
    long_key = {"k" * (1 << 20): {"a": 1.0}}
    with pytest.raises(ValueError, match="longer than 1048576 bytes"):
        CRF(max_iterations=2).fit([[long_key]], [["X"]])
    # a wide item below the budget is read: 1,000 attributes under one prefix
    wide = {"p": {f"f{i}": 1.0 for i in range(1000)}}
    crf = CRF(max_iterations=2).fit([[wide], [{"o": 1.0}]], [["X"], ["Y"]])
    assert len(crf.attributes_) == 1001


def test_list_and_set_values_are_prefixed_names():
    crf = _fit_features([[{"p": ["x", "y"]}, {"q": {"z"}}]], [["X", "Y"]])
    assert set(crf.attributes_) == {"p:x", "p:y", "q:z"}


#: Fits a CRF on items that hold sets (as an item and as a value) and prints its attribute
#: order, weights and marginals: run in processes with different ``PYTHONHASHSEED``.
_SET_FIT = """
import json
from bilinear.crfsuite import CRF
words = [f"w{i}" for i in range(40)]
X = [[{words[(i + j) % 40] + s for s in "abcdef"} | {"b" + str(j)} for j in range(6)]
     for i in range(30)]
X = [[item if j % 2 else {"v": item, "n": float(j)} for j, item in enumerate(seq)] for seq in X]
y = [["A" if (i + j) % 3 else "B" for j in range(6)] for i in range(30)]
for algorithm in ("lbfgs", "l2sgd"):
    crf = CRF(algorithm=algorithm, max_iterations=10, n_jobs=1).fit(X, y)
    weights = sorted((repr(k), v.hex()) for k, v in crf.state_features_.items())
    print(json.dumps([crf.attributes_, weights,
                      [m["A"].hex() for m in crf.predict_marginals_single(X[0])]]))
"""


def test_set_items_give_the_same_model_in_every_process():
    # A set of strings iterates in an order that PYTHONHASHSEED sets: the names are read
    # sorted, so attribute ids, weights and marginals are the same bits in every process.
    import subprocess
    import sys

    outputs = set()
    for seed in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = subprocess.run([sys.executable, "-c", _SET_FIT], env=env, check=True,
                             capture_output=True, text=True)
        outputs.add(run.stdout)
    assert len(outputs) == 1
    (out,) = outputs
    assert out.count("\n") == 2 and '"v:w0a"' in out


def test_item_as_list_of_strings_has_weight_one():
    X = [[["x", "y"], ("z",), {"w"}]]
    crf = _fit_features(X, [["X", "Y", "Y"]])
    assert set(crf.attributes_) == {"x", "y", "z", "w"}
    flat = _fit_features([[{"x": 1.0, "y": 1.0}, {"z": 1.0}, {"w": 1.0}]], [["X", "Y", "Y"]])
    assert crf.state_features_ == flat.state_features_


def test_a_name_twice_in_an_item_counts_twice():
    crf = _fit_features([[{"n": 1.0}], [{"m": 1.0}]], [["X"], ["Y"]])
    assert _one_item_marginal(crf, ["n", "n"], "X") == pytest.approx(
        _one_item_marginal(crf, {"n": 2.0}, "X"), abs=1e-12)


def test_a_string_item_is_read_per_character():
    crf = _fit_features([["ab"], ["c"]], [["X"], ["Y"]])
    assert set(crf.attributes_) == {"a", "b", "c"}


def test_unknown_attributes_are_dropped_at_prediction():
    crf = _fit_features([[{"n": 1.0}], [{"m": 1.0}]], [["X"], ["Y"]])
    assert _one_item_marginal(crf, {"new": 5.0, "other": "x"}, "X") == \
        _one_item_marginal(crf, {}, "X")


def test_mixed_items_equal_their_flat_form():
    """Every rule at once against the attributes written out by hand."""
    X = [[{"w": "the", "len": 3, "cap": False, "ctx": {"prev": "<s>", "suf": ["he", "e"]}},
          ["noun-ish", "short"],
          {"w": b"cat", "len": 3.0, "cap": True, "ctx": {"prev": "the", "suf": {"at"}}}]]
    flat = [[{"w:the": 1.0, "len": 3.0, "cap": 0.0, "ctx:prev:<s>": 1.0, "ctx:suf:he": 1.0,
              "ctx:suf:e": 1.0},
             {"noun-ish": 1.0, "short": 1.0},
             {"w:cat": 1.0, "len": 3.0, "cap": 1.0, "ctx:prev:the": 1.0, "ctx:suf:at": 1.0}]]
    y = [["DT", "NN", "NN"]]
    a, b = _fit_features(X, y), _fit_features(flat, y)
    assert a.state_features_ == b.state_features_
    assert a.transition_features_ == b.transition_features_


def test_generators_work_as_X_and_y(xseq, yseq):
    a = CRF().fit([xseq, xseq[:4]], [yseq, yseq[:4]])
    b = CRF().fit((s for s in [xseq, xseq[:4]]), (t for t in [yseq, yseq[:4]]))
    c = CRF().fit([iter(xseq), iter(xseq[:4])], [iter(yseq), iter(yseq[:4])])
    assert a.state_features_ == b.state_features_ == c.state_features_
    assert [list(p) for p in b.predict(s for s in [xseq])] == [yseq]


def test_predict_returns_one_dimensional_arrays(xseq, yseq):
    crf = CRF().fit([xseq], [yseq])
    y_pred = crf.predict([xseq, xseq])  # equal lengths: still one list per sequence
    assert y_pred.shape == (2,) and y_pred.dtype == object
    assert list(crf.predict([[], xseq[:2]])[0]) == []


# ---------------------------------------------------------------------------------------
# Bad input: ValueError naming the data, the sequence and the position.


@pytest.mark.parametrize("X, y, message", [
    ([[{"a": 1}], [{"a": 1}]], [["A"]], "X has 2 sequences but y has 1"),
    ([[{"a": 1}], [{"a": 1}, {"a": 1}, {"b": 1}]], [["A"], ["A", "B"]],
     "sequence 1: X has 3 items but y has 2 labels"),
    ([[{"a": 1}], [{"a": 1}]], [["A"], ["A", "B"]], "sequence 1: X has 1 items but y has 2"),
    ([[{"a": 1}], []], [["A"], []], "X: sequence 1 is empty"),
    ([[{"a": 1}, {"a": 1}]], [["A", 3]], "y: sequence 0, position 1: a label must be a str, not int"),
    ([[{"a": 1}]], [[b"A"]], "y: sequence 0, position 0: a label must be a str, not bytes"),
    ([[{"a": 1}]], [[""]], "y: sequence 0, position 0: the label is an empty string"),
    ([[{"a": 1}]], ["A"], "y: the labels of sequence 0 is a string"),
    ([[{"a": 1}, {"a": 1}, {"a": float("nan")}]], [["A", "A", "B"]],
     "X: sequence 0, position 2: feature \"a\" has the value NaN"),
    ([[{"a": 1}], [{"b": {"c": float("inf")}}]], [["A"], ["B"]],
     "X: sequence 1, position 0: feature \"b:c\" has the value inf"),
    ([[{"a": None}]], [["A"]], "X: sequence 0, position 0: feature \"a\" has a value of type NoneType"),
    ([[{"a": ("x", "y")}]], [["A"]], "feature \"a\" has a value of type tuple"),
    ([[{"a": 1 + 2j}]], [["A"]], "feature \"a\" has a value of type complex"),
    ([[{"a": frozenset("x")}]], [["A"]], "has a value of type frozenset"),
    ([[{"a": [1, 2]}]], [["A"]], "a feature name in a list must be a str (or UTF-8 bytes), not int"),
    ([[{1: "x"}]], [["A"]], "X: sequence 0, position 0: a feature name must be a str"),
    ([[{"a": b"\xff"}]], [["A"]], "is not UTF-8"),
    ([[5]], [["A"]], "X: sequence 0, position 0: an item must be a dict of features or a list"),
    ([[{"a": 1}], 7], [["A"], ["B"]], "X: sequence 1 must be an iterable of items, not int"),
    ("ab", [["A"]], "X is a string"),
])
def test_bad_training_input_names_sequence_and_position(X, y, message):
    with pytest.raises(ValueError) as e:
        CRF().fit(X, y)
    assert message in str(e.value).replace("nan", "NaN")


def test_generators_of_different_lengths_are_detected_at_the_end():
    with pytest.raises(ValueError, match="y ended after 2 sequences, X has more"):
        CRF().fit((s for s in [[{"a": 1}]] * 3), (t for t in [["A"]] * 2))
    with pytest.raises(ValueError, match="X ended after 1 sequences, y has more"):
        CRF().fit((s for s in [[{"a": 1}]]), (t for t in [["A"]] * 2))


def test_bad_dev_data_is_named_X_dev(xseq, yseq):
    with pytest.raises(ValueError, match="X_dev: sequence 1, position 0"):
        CRF().fit([xseq], [yseq], [xseq, [{"a": None}]], [yseq, ["sunny"]])
    with pytest.raises(ValueError, match="X_dev has 1 sequences but y_dev has 2"):
        CRF().fit([xseq], [yseq], [xseq], [yseq, yseq])


def test_bad_prediction_input_is_refused(xseq, yseq):
    crf = CRF().fit([xseq], [yseq])
    with pytest.raises(ValueError, match="X: sequence 1, position 0: feature \"walk\" has the value"):
        crf.predict([xseq, [{"walk": float("nan")}]])
    with pytest.raises(ValueError, match="position 1"):
        crf.predict_single([{"walk": 1}, {"walk": None}])
    with pytest.raises(ValueError, match="position 0"):
        crf.predict_marginals([[{"walk": float("inf")}]])


@pytest.mark.parametrize("params, message", [
    ({"algorithm": "ap", "c1": 0.1}, "parameter c1 does not apply to algorithm \"ap\""),
    ({"algorithm": "lbfgs", "pa_type": 1}, "parameter pa_type does not apply"),
    ({"algorithm": "arow", "delta": 1e-3}, "parameter delta does not apply"),
    ({"algorithm": "l2sgd", "num_memories": 3}, "parameter num_memories does not apply"),
    ({"algorithm": "crf"}, "invalid algorithm 'crf'"),
    ({"linesearch": "Newton"}, "invalid linesearch \"Newton\""),
    ({"c2": -1.0}, "c2"),
    ({"max_iterations": 2.5}, "max_iterations"),
    ({"c1": "0.1"}, "parameter c1 must be a number"),
    ({"trainer_cls": object}, "trainer_cls"),
    ({"n_jobs": 0}, "n_jobs"),
    ({"n_jobs": 1.5}, "n_jobs must be an int or None"),
])
def test_bad_parameters_are_value_errors(xseq, yseq, params, message):
    with pytest.raises(ValueError) as e:
        CRF(**params).fit([xseq], [yseq])
    assert message in str(e.value)


@pytest.mark.parametrize("algorithm", ["bol", "bcd", "sp"])
def test_bilinear_learners_learn_the_pos_corpus(algorithm):
    """bol, bcd and sp train on the same feature dicts (binary values) and tag them; they
    pickle and save like the CRFs."""
    X, y = _pos_corpus()
    crf = CRF(algorithm=algorithm, max_iterations=30).fit(X, y)
    assert list(crf.predict(X)) == y
    assert crf.score(X, y) == 1.0
    assert sorted(crf.classes_) == ["DT", "NN", "PR", "VB"]
    assert crf.training_log_.last_iteration["num"] <= 30
    again = pickle.loads(pickle.dumps(crf))
    assert list(again.predict(X)) == y
    assert crf.size_ > 0 and crf.num_attributes_ == len(crf.attributes_)


def test_bilinear_learner_fits_one_pass_iterators_as_lists():
    """sp through the drop-in fits one-pass iterators of X and y as it fits the lists:
    the same model. (That its weights are online-bilinear's sp on the same attributes is
    the crate's test, ``a_dataset_fit_equals_the_corpus_fit_on_the_same_features``; no
    test here compares with ``BilinearTagger``, whose templates make other features.)"""
    X, y = _pos_corpus()
    a = CRF(algorithm="sp", max_iterations=5).fit(X, y)
    b = CRF(algorithm="sp", max_iterations=5).fit(iter(X), iter(y))
    assert list(a.predict(X)) == list(b.predict(X))
    assert a.attributes_ == b.attributes_ and a.classes_ == b.classes_


@pytest.mark.parametrize("algorithm,extra", [
    ("bol", {}), ("bcd", {}), ("sp", {}), ("sp", {"transitions_only": True}),
])
def test_zero_order_features_change_the_model_and_still_learn(algorithm, extra):
    """zero_order (and sp's transitions_only) reach online-bilinear: the model gains
    one weight per (attribute, label) pair, and still tags the corpus it learned."""
    X, y = _pos_corpus()
    plain = CRF(algorithm=algorithm, max_iterations=30).fit(X, y)
    crf = CRF(algorithm=algorithm, max_iterations=30, zero_order=True, **extra).fit(X, y)
    assert crf.get_params()["zero_order"] is True
    assert list(crf.predict(X)) == y
    assert crf.size_ != plain.size_
    assert list(pickle.loads(pickle.dumps(crf)).predict(X)) == y


def test_feature_set_switches_are_checked():
    X, y = _pos_corpus()
    with pytest.raises(ValueError, match="transitions_only does not apply"):
        CRF(algorithm="bol", zero_order=True, transitions_only=True).fit(X, y)
    with pytest.raises(ValueError, match="zero_order does not apply"):
        CRF(algorithm="lbfgs", zero_order=True).fit(X, y)
    with pytest.raises(ValueError, match="zero_order"):
        CRF(algorithm="sp", transitions_only=True).fit(X, y)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_parameter_of_the_bilinear_learners_names_them(algorithm):
    """zero_order and transitions_only given to one of CRFsuite's trainers: the error
    names the algorithms that take them (not "no algorithm") and says that they are not
    CRFsuite's parameters (not that CRFsuite refuses them)."""
    X, y = _pos_corpus()
    for name, takers in (("zero_order", "only bol, bcd, sp take it"),
                         ("transitions_only", "only sp takes it")):
        with pytest.raises(ValueError) as e:
            CRF(algorithm=algorithm, **{name: True}).fit(X, y)
        assert str(e.value) == (
            f'parameter {name} does not apply to algorithm "{algorithm}" ({takers}; it is '
            "not a parameter of CRFsuite's trainers): leave it None")
    # A parameter of CRFsuite's other trainers: those that take it, and CRFsuite refuses
    # it too.
    with pytest.raises(ValueError) as e:
        CRF(algorithm="lbfgs", c=1.0).fit(X, y)
    assert str(e.value) == ('parameter c does not apply to algorithm "lbfgs" (it applies '
                            "to pa, bol, bcd; CRFsuite refuses it too): leave it None")


@pytest.mark.parametrize("algorithm", ["bol", "bcd", "sp"])
def test_bilinear_learners_refuse_what_they_cannot_do(xseq, yseq, algorithm):
    X, y = _pos_corpus()
    crf = CRF(algorithm=algorithm, max_iterations=3).fit(X, y)
    for call in (lambda: crf.predict_marginals(X), lambda: crf.state_features_,
                 lambda: crf.transition_features_, lambda: crf.tagger_.set(X[0]) or
                 crf.tagger_.marginal("DT", 0)):
        with pytest.raises(ValueError, match="has no"):
            call()
    # Real values (the weather sequence) are refused with sequence and position, naming
    # the algorithms of bilinear.crfsuite that take them.
    take_real = ("takes binary attribute values only: 1 (active) or 0 (absent); use "
                 "algorithm 'lbfgs', 'l2sgd', 'ap', 'pa' or 'arow' for real values")
    with pytest.raises(ValueError) as e:
        CRF(algorithm=algorithm).fit([X[0], xseq], [y[0], yseq])
    assert str(e.value).startswith(
        f'X: sequence 1, position 0: attribute "shop" has the value 0.5; algorithm '
        f'"{algorithm}" ' + take_real)
    assert "crf-l" not in str(e.value)
    # At prediction and on held-out data: the sequence of X (X_dev) it is in.
    bad = [{"w": "dog", "bias": 0.5}]
    with pytest.raises(ValueError, match=r'^X: sequence 2, position 0: attribute "bias" '
                                         r"has the value 0.5; algorithm"):
        crf.predict([X[0], X[1], bad])
    with pytest.raises(ValueError, match=r'^xseq: sequence 0, position 0: attribute "bias"'):
        crf.predict_single(bad)
    with pytest.raises(ValueError, match=r'^X_dev: sequence 1, position 0: attribute "bias"'):
        CRF(algorithm=algorithm, max_iterations=2).fit(X, y, X_dev=[X[0], bad],
                                                        y_dev=[y[0], ["NN"]])
    # CRFsuite's parameters of other trainers do not apply.
    with pytest.raises(ValueError, match=r"c2 does not apply .*\(it applies to lbfgs, l2sgd;"):
        CRF(algorithm=algorithm, c2=1.0).fit(X, y)


# ---------------------------------------------------------------------------------------
# Training log, held-out data, model inspection, tagger.


def test_training_log_has_crfsuite_keys(xseq, yseq):
    crf = CRF(max_iterations=8).fit([xseq], [yseq])
    log = crf.training_log_
    assert 1 <= len(log.iterations) <= 8
    assert log.last_iteration is log.iterations[-1]
    assert [it["num"] for it in log.iterations] == list(range(1, len(log.iterations) + 1))
    for it in log.iterations:
        assert {"num", "scores", "loss", "feature_norm", "error_norm", "active_features",
                "linesearch_trials", "time"} <= set(it)
    assert log.featgen_num_features == len(crf.state_features_) + len(crf.transition_features_)
    # measured on one machine (chain-crf's FittedCrf::feature_generation); None for bol
    assert log.featgen_seconds > 0
    bol = CRF(algorithm="bol", max_iterations=2).fit([[{"w": "a"}, {"w": "b"}]], [["X", "Y"]])
    assert bol.training_log_.featgen_seconds is None
    assert any(line.startswith("***** Iteration #1 *****") for line in log.log)


def test_dev_data_is_scored_every_iteration(xseq, yseq):
    X, y = _pos_corpus()
    crf = CRF(max_iterations=20).fit(X[:4], y[:4], X_dev=X[4:], y_dev=y[4:])
    log = crf.training_log_
    n_items = sum(len(s) for s in y[4:])
    for it in log.iterations:
        assert 0.0 <= it["item_accuracy_float"] <= 1.0
        assert it["item_accuracy"] * n_items == round(it["item_accuracy_float"] * n_items)
        assert 0.0 <= it["instance_accuracy_float"] <= 1.0
    last = log.last_iteration
    pred = [t for s in crf.predict(X[4:]) for t in s]
    gold = [t for s in y[4:] for t in s]
    # Listed: the labels of y_dev, and those neither in y_dev nor predicted.
    assert set(last["scores"]) == {label for label in crf.classes_
                                   if label in gold or label not in pred}
    assert last["item_accuracy_float"] == pytest.approx(
        sum(p == g for p, g in zip(pred, gold)) / len(gold))
    for label, score in last["scores"].items():
        assert isinstance(score, sklearn_crfsuite.LabelScore)
        assert score.ref == gold.count(label)
        assert score.model == pred.count(label)
        assert score.match == sum(p == g == label for p, g in zip(pred, gold))
    # CRFsuite's macro average: over the labels of y_dev, divided by all the model's.
    in_dev = [s for s in last["scores"].values() if s.ref > 0]
    assert last["avg_f1"] == pytest.approx(sum(s.f1 for s in in_dev) / len(crf.classes_))
    assert 0.0 <= last["avg_f1"] <= 1.0


#: The held-out scores of sklearn-crfsuite 0.5.0 / python-crfsuite 0.9.12 on this data
#: (``training_log_.last_iteration``), from, in a venv with those two packages:
#:   python -c 'import sklearn_crfsuite as sc
#:   X = [[{"w": "a", "n": 1.0}, {"w": "b"}, {"w": "c"}], [{"w": "b"}, {"w": "a"}],
#:        [{"w": "c"}, {"w": "c"}, {"w": "a"}]]
#:   y = [["A", "B", "C"], ["B", "A"], ["C", "C", "A"]]
#:   for Xd, yd in (([[{"w": "a"}, {"w": "b"}], [{"w": "c"}]], [["A", "C"], ["C"]]),
#:                  ([[{"w": "a"}]], [["Z"]])):
#:       li = sc.CRF(max_iterations=20).fit(X, y, X_dev=Xd, y_dev=yd).training_log_.last_iteration
#:       print({k: li[k] for k in ("avg_precision", "avg_recall", "avg_f1", "scores")})'
#: which printed
#:   {'avg_precision': 0.666667, 'avg_recall': 0.5, 'avg_f1': 0.555556, 'scores':
#:    {'A': LabelScore(match=1, model=1, ref=1, precision=1.0, recall=1.0, f1=1.0),
#:     'C': LabelScore(match=1, model=1, ref=2, precision=1.0, recall=0.5, f1=0.6667)}}
#:   {'avg_precision': 0.0, 'avg_recall': 0.0, 'avg_f1': 0.0, 'scores':
#:    {'B': LabelScore(match=0, model=0, ref=0, precision=None, recall=None, f1=None),
#:     'C': LabelScore(match=0, model=0, ref=0, precision=None, recall=None, f1=None),
#:     'Z': LabelScore(match=0, model=0, ref=1, precision=0.0, recall=0.0, f1=0.0)}}
#: (CRFsuite prints precision, recall and F1 with 4 decimals and the averages with 6; B,
#: predicted once in the first set but absent from y_dev, and A in the second have no
#: entry. 'Z', a label of y_dev only, is a label of CRFsuite's model but not of ours.)
HELD_OUT_X = [[{"w": "a", "n": 1.0}, {"w": "b"}, {"w": "c"}], [{"w": "b"}, {"w": "a"}],
              [{"w": "c"}, {"w": "c"}, {"w": "a"}]]
HELD_OUT_Y = [["A", "B", "C"], ["B", "A"], ["C", "C", "A"]]


def test_held_out_scores_are_crfsuites():
    crf = CRF(max_iterations=20).fit(
        HELD_OUT_X, HELD_OUT_Y, X_dev=[[{"w": "a"}, {"w": "b"}], [{"w": "c"}]],
        y_dev=[["A", "C"], ["C"]])
    last = crf.training_log_.last_iteration
    assert list(crf.predict([[{"w": "a"}, {"w": "b"}], [{"w": "c"}]])) == [["A", "B"], ["C"]]
    assert last["avg_precision"] == pytest.approx(0.666667, abs=5e-7)
    assert last["avg_recall"] == pytest.approx(0.5, abs=5e-7)
    assert last["avg_f1"] == pytest.approx(0.555556, abs=5e-7)
    assert set(last["scores"]) == {"A", "C"}
    assert last["scores"]["A"] == (1, 1, 1, 1.0, 1.0, 1.0)
    assert last["scores"]["C"][:5] == (1, 1, 2, 1.0, 0.5)
    assert last["scores"]["C"].f1 == pytest.approx(0.6667, abs=5e-5)
    # A y_dev whose only label the model does not know: every average is 0 (no label of
    # the model occurs in y_dev); 'Z' is not a label of the model, so it has no entry.
    crf = CRF(max_iterations=20).fit(HELD_OUT_X, HELD_OUT_Y, X_dev=[[{"w": "a"}]],
                                     y_dev=[["Z"]])
    last = crf.training_log_.last_iteration
    assert (last["avg_precision"], last["avg_recall"], last["avg_f1"]) == (0.0, 0.0, 0.0)
    assert last["scores"] == {"B": (0, 0, 0, None, None, None),
                              "C": (0, 0, 0, None, None, None)}
    assert last["item_accuracy"] == 0 and last["instance_accuracy"] == 0


def test_inspection_attributes(xseq, yseq):
    crf = CRF(c2=0.01).fit([xseq, [{"unused": False}]], [yseq, ["sunny"]])
    assert sorted(crf.classes_) == ["rainy", "sunny"]
    assert "unused" not in crf.attributes_  # value 0: weight stays 0, dropped as CRFsuite does
    assert crf.num_attributes_ == len(crf.attributes_)
    assert set(crf.attributes_) == {"walk", "shop", "clean", "солнце:не светит"}
    assert all(w != 0 for w in crf.state_features_.values())
    assert {a for a, _ in crf.state_features_} == set(crf.attributes_)
    assert set(crf.transition_features_) <= set(itertools.product(crf.classes_, repeat=2))
    assert crf.size_ > 0


def test_all_possible_transitions_and_states(xseq, yseq):
    crf = CRF(all_possible_transitions=True, all_possible_states=True).fit(
        [xseq[:3]], [yseq[:3]])  # only 'sunny' -> 'sunny' and 'walk'/'shop'/'clean' seen
    assert crf.classes_ == ["sunny"]
    crf = CRF(all_possible_transitions=True).fit([xseq], [yseq])
    assert set(crf.transition_features_) == set(itertools.product(crf.classes_, repeat=2))
    plain = CRF().fit([xseq], [yseq])
    both = CRF(all_possible_states=True).fit([xseq], [yseq])
    assert len(both.state_features_) > len(plain.state_features_)
    assert len(both.state_features_) == len(both.attributes_) * len(both.classes_)


def test_min_freq_drops_rare_features(xseq, yseq):
    plain = CRF().fit([xseq], [yseq])
    cut = CRF(min_freq=1.0).fit([xseq], [yseq])
    assert ("shop", "rainy") in plain.state_features_  # frequency 0.6
    assert ("shop", "rainy") not in cut.state_features_


def test_tagger_has_python_crfsuite_methods(xseq, yseq):
    crf = CRF(c2=0.1).fit([xseq], [yseq])
    tagger = crf.tagger_
    assert tagger is crf.tagger_
    labels = tagger.labels()
    short = xseq[:3]
    assert tagger.tag(short) == crf.predict_single(short)
    assert tagger.tag() == crf.predict_single(short)  # the sequence set by tag(xseq)
    tagger.set(short)
    # probabilities of all label sequences sum to 1 and the best one is Viterbi's
    probs = {ys: tagger.probability(list(ys)) for ys in itertools.product(labels, repeat=3)}
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-12)
    assert list(max(probs, key=probs.get)) == tagger.tag()
    # marginals are sums of sequence probabilities
    for pos in range(3):
        for label in labels:
            brute = sum(p for ys, p in probs.items() if ys[pos] == label)
            assert tagger.marginal(label, pos) == pytest.approx(brute, abs=1e-12)
    # An unknown label raises, as python-crfsuite does (RuntimeError there): the error is
    # a RuntimeError and a ValueError, and names the label.
    for call in (lambda: tagger.marginal("unknown", 0),
                 lambda: tagger.probability(["sunny", "unknown", "sunny"]),
                 lambda: crf._model.probability(crf._model.encode(short),
                                                ["sunny", "unknown", "sunny"])):
        for kind in (RuntimeError, ValueError, sklearn_crfsuite.UnknownLabelError):
            with pytest.raises(kind, match="unknown label 'unknown': not one of the "
                                           "model's 2 labels"):
                call()
    with pytest.raises(sklearn_crfsuite.UnknownLabelError, match="label 3"):
        tagger.marginal(3, 0)
    with pytest.raises(ValueError):
        tagger.marginal("sunny", 3)
    assert tagger.marginal("sunny", np.int64(1)) == tagger.marginal("sunny", 1)
    for pos in (-1, True, 1.0, 1.5, "1"):  # a bool or a float is not a position
        with pytest.raises(ValueError, match="pos"):
            tagger.marginal("sunny", pos)
    with pytest.raises(ValueError):
        tagger.probability(["sunny"])
    info = tagger.info()
    assert info.state_features == crf.state_features_
    assert info.transitions == crf.transition_features_
    assert set(info.labels) == set(labels)
    assert int(info.header["num_labels"]) == len(labels)


def test_tagger_without_a_sequence_and_with_an_empty_one(xseq, yseq):
    """tag() before any set() is [] (python-crfsuite's answer); marginal and probability
    before any set() raise ValueError (python-crfsuite: 0.0, documented); after set([]),
    probability([]) is 1.0 and marginal has no position (python-crfsuite: 0.0 both)."""
    crf = CRF(c2=0.1).fit([xseq], [yseq])
    tagger = sklearn_crfsuite.Tagger()
    with pytest.raises(ValueError, match="no model"):
        tagger.tag()
    tagger.open_inmemory(crf._model.to_bytes())
    assert tagger.tag() == []
    with pytest.raises(ValueError, match="no item sequence"):
        tagger.probability(["sunny"])
    with pytest.raises(ValueError, match="no item sequence"):
        tagger.marginal("sunny", 0)
    tagger.set([])
    assert tagger.tag() == []
    assert tagger.probability([]) == 1.0
    with pytest.raises(ValueError, match="position 0 is outside the sequence of 0 items"):
        tagger.marginal("sunny", 0)
    assert tagger.tag(xseq) == yseq and tagger.tag() == yseq


def test_dump_writes_crfsuite_feature_types(xseq, yseq, tmp_path):
    """dump(): CRFsuite's layout, with its feature-type column, (1) for every transition
    and (0) for every state feature (CRFsuite's crf1d dump prints f.type there), and the
    ids of labels and attributes right-aligned in 5 columns."""
    import re

    crf = CRF(c2=0.1).fit([xseq], [yseq])
    path = tmp_path / "dump.txt"
    crf.tagger_.dump(str(path))
    text = path.read_text(encoding="utf8")
    sections = dict(re.findall(r"(\w+) = \{\n(.*?)\}\n", text, flags=re.S))
    assert set(sections) == {"FILEHEADER", "LABELS", "ATTRIBUTES", "TRANSITIONS",
                             "STATE_FEATURES"}
    trans = sections["TRANSITIONS"].splitlines()
    state = sections["STATE_FEATURES"].splitlines()
    assert len(trans) == len(crf.transition_features_) > 1
    assert len(state) == len(crf.state_features_) > 1
    line = re.compile(r"  \((\d)\) (.+) --> (.+): (-?\d+\.\d{6})$")
    for lines, kind, weights in ((trans, "1", crf.transition_features_),
                                 (state, "0", crf.state_features_)):
        for text_line in lines:
            m = line.match(text_line)
            assert m and m.group(1) == kind, text_line
            assert float(m.group(4)) == pytest.approx(weights[m.group(2), m.group(3)],
                                                      abs=5e-7)
    assert sections["LABELS"].splitlines() == [
        f"  {i:5d}: {y}" for i, y in enumerate(crf.classes_)]


def test_tagger_opens_saved_models(xseq, yseq, tmp_path):
    path = tmp_path / "m.crf"
    crf = CRF(model_filename=str(path)).fit([xseq], [yseq])
    tagger = sklearn_crfsuite.Tagger()
    with tagger.open(str(path)):
        assert tagger.tag(xseq) == yseq
    other = sklearn_crfsuite.Tagger()
    other.open_inmemory(path.read_bytes())
    assert other.labels() == crf.classes_
    with pytest.raises(ValueError):
        sklearn_crfsuite.Tagger().open_inmemory(b"not a model")


def test_n_jobs_two_agrees_with_one(xseq, yseq):
    X, y = _pos_corpus()
    one = CRF(c2=0.1).fit(X, y)
    two = CRF(c2=0.1, n_jobs=2).fit(X, y)
    every = CRF(c2=0.1, n_jobs=-1).fit(X, y)
    assert [list(s) for s in every.predict(X)] == [list(s) for s in one.predict(X)]
    assert [list(s) for s in one.predict(X)] == [list(s) for s in two.predict(X)]
    assert set(one.state_features_) == set(two.state_features_)
    for k, w in one.state_features_.items():
        assert two.state_features_[k] == pytest.approx(w, rel=1e-2, abs=1e-3)


def test_arow_stops_at_the_first_epoch_without_a_mistake_ap_and_pa_do_not():
    """With the default epsilon 0, arow stops after its first epoch of loss 0, as the
    CRFsuite that sklearn-crfsuite 0.5.0 runs (python-crfsuite 0.9.12) does; ap and pa
    run all 100 epochs there and here. In a venv with those two packages:
      python -c 'import sklearn_crfsuite as sc
      X = [[{"w": "a", "n": 1.0}, {"w": "b"}, {"w": "c"}], [{"w": "b"}, {"w": "a"}],
           [{"w": "c"}, {"w": "c"}, {"w": "a"}]]
      y = [["A", "B", "C"], ["B", "A"], ["C", "C", "A"]]
      for a in ("ap", "pa", "arow"):
          its = sc.CRF(algorithm=a).fit(X, y).training_log_.iterations
          print(a, len(its), [round(i["loss"], 4) for i in its[:3]])'
    printed ``ap 100 [1.3333, 0.3333, 0.0]``, ``pa 100 [3.4344, 0.0, 0.0]`` and ``arow 2
    [5.6222, 0.0]``. (The epoch at which the loss reaches 0 depends on the training
    order, which is shuffled by another generator here.)"""
    for algorithm in ("ap", "pa"):
        log = CRF(algorithm=algorithm).fit(HELD_OUT_X, HELD_OUT_Y).training_log_
        assert len(log.iterations) == 100 and log.termination == "MaxIterations"
        assert log.last_iteration["loss"] == 0.0
    log = CRF(algorithm="arow").fit(HELD_OUT_X, HELD_OUT_Y).training_log_
    assert log.termination == "Converged"
    assert len(log.iterations) < 10
    assert log.last_iteration["loss"] == 0.0
    assert all(it["loss"] > 0 for it in log.iterations[:-1])
    # A positive epsilon stops ap at its first epoch of loss 0 too.
    log = CRF(algorithm="ap", epsilon=1e-9).fit(HELD_OUT_X, HELD_OUT_Y).training_log_
    assert log.termination == "Converged" and log.last_iteration["loss"] == 0.0


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_trainer_learns_the_pos_corpus(algorithm):
    X, y = _pos_corpus()
    crf = CRF(algorithm=algorithm, **LIGHT_L2.get(algorithm, {})).fit(X, y)
    assert crf.score(X, y) == 1.0
    assert crf.training_log_.iterations
    assert crf.training_log_.last_iteration["loss"] >= 0


@pytest.mark.parametrize("algorithm, params", [
    ("lbfgs", dict(c1=0.1, c2=0.1, num_memories=3, epsilon=1e-4, period=5, delta=1e-4,
                   linesearch="StrongBacktracking", max_linesearch=10, max_iterations=30)),
    ("l2sgd", dict(c2=0.1, period=5, delta=1e-4, calibration_eta=0.05, calibration_rate=1.5,
                   calibration_samples=100, calibration_candidates=5,
                   calibration_max_trials=10, max_iterations=30)),
    ("ap", dict(epsilon=0.0, max_iterations=30)),
    ("pa", dict(pa_type=2, c=0.5, error_sensitive=False, averaging=False, epsilon=0.0,
                max_iterations=30)),
    ("arow", dict(variance=0.5, gamma=2.0, epsilon=0.0, max_iterations=30)),
])
def test_every_trainer_takes_its_parameters(algorithm, params):
    X, y = _pos_corpus()
    crf = CRF(algorithm=algorithm, min_freq=0, all_possible_transitions=True,
              **params).fit(X, y)
    assert len(crf.training_log_.iterations) <= 30
    assert crf.score(X, y) >= 0.8


def test_max_iterations_bounds_the_log(xseq, yseq):
    crf = CRF(max_iterations=3).fit([xseq], [yseq])
    assert len(crf.training_log_.iterations) == 3


def test_c1_gives_sparse_weights():
    X, y = _pos_corpus()
    dense = CRF(c1=0.0, c2=0.01).fit(X, y)
    sparse = CRF(c1=1.0, c2=0.0).fit(X, y)
    assert len(sparse.state_features_) < len(dense.state_features_)


# ---------------------------------------------------------------------------------------
# Metrics.


def test_flat_metrics_are_sklearn_metrics_on_flattened_sequences():
    from sklearn import metrics as skm

    y_true = [["A", "B"], ["B", "B", "C"]]
    y_pred = [["A", "C"], ["B", "B", "C"]]
    ft = ["A", "B", "B", "B", "C"]
    fp = ["A", "C", "B", "B", "C"]
    assert metrics.flat_accuracy_score(y_true, y_pred) == skm.accuracy_score(ft, fp)
    assert metrics.flat_precision_score(y_true, y_pred, average="macro") == \
        skm.precision_score(ft, fp, average="macro")
    assert metrics.flat_recall_score(y_true, y_pred, average="micro") == \
        skm.recall_score(ft, fp, average="micro")
    assert metrics.flat_f1_score(y_true, y_pred, average="weighted", labels=["B", "C"]) == \
        skm.f1_score(ft, fp, average="weighted", labels=["B", "C"])
    assert metrics.flat_fbeta_score(y_true, y_pred, 2, average="macro") == \
        skm.fbeta_score(ft, fp, beta=2, average="macro")
    report = metrics.flat_classification_report(y_true, y_pred, labels=["B", "C"], digits=3)
    assert report == skm.classification_report(ft, fp, labels=["B", "C"], digits=3)
    assert metrics.sequence_accuracy_score(y_true, y_pred) == 0.5
    assert metrics.sequence_accuracy_score([], []) == 0
    pred = np.empty(2, dtype=object)
    pred[0], pred[1] = ["A", "B"], ["B", "B", "C"]
    assert metrics.sequence_accuracy_score(y_true, pred) == 1.0
    same = [["A", "B"], ["A", "B"]]
    assert metrics.sequence_accuracy_score(same, np.array(same, dtype=object)) == 1.0
    # Sequences of one length: sklearn-crfsuite 0.5.0 counts items there (1.5); here the
    # share of right sequences.
    assert metrics.sequence_accuracy_score([["A", "B"], ["A", "C"]], same) == 0.5


def test_scorers_score_a_fitted_crf(xseq, yseq):
    crf = CRF().fit([xseq], [yseq])
    assert scorers.flat_accuracy(crf, [xseq], [yseq]) == 1.0
    assert scorers.sequence_accuracy(crf, [xseq], [yseq]) == 1.0
