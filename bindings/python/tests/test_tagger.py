"""BilinearTagger: learns a small segmentation corpus, equals the crate's JSON round
trip, pickles, and rejects bad input."""

import json
import pickle

import pytest

import bilinear

# BMES character tags of "我 爱 北京 / 北京 很 大 / 我 在 北京"
X = [list("我爱北京"), list("北京很大"), list("我在北京")]
Y = [list("ssbe"), list("bess"), list("ssbe")]


@pytest.mark.parametrize("learner", ["bol", "bcd", "sp", "crf-l2", "crf-l1"])
def test_learns_training_corpus(learner):
    # 10 epochs for the online learners; the CRFs keep their default budget.
    budget = {} if learner.startswith("crf") else {"max_iter": 10}
    tagger = bilinear.BilinearTagger(learner=learner, **budget).fit(X, Y)
    assert tagger.score(X, Y) > 0.8
    pred = tagger.predict([list("北京")])
    assert len(pred) == 1 and len(pred[0]) == 2
    assert set(tagger.tags_) == {"s", "b", "e"}


def test_transitions_only_learns_and_keeps_only_bias_transitions():
    tagger = bilinear.BilinearTagger(learner="sp", zero_order=True, transitions_only=True,
                                     max_iter=10).fit(X, Y)
    assert tagger.score(X, Y) > 0.8
    plain = bilinear.BilinearTagger(learner="sp", zero_order=True, max_iter=10).fit(X, Y)
    # the option adds one feature (the bias) to the dictionary
    assert tagger.model_.n_features == plain.model_.n_features + 1
    # and that feature alone keeps first-order (tag-pair) weights: in the saved model,
    # one row of them is not empty, against many without the option
    assert _first_order_rows(tagger.model_) == 1
    assert _first_order_rows(plain.model_) > 10


def _first_order_rows(model):
    """How many features have a first-order weight stored (the saved model's rows)."""
    offsets = json.loads(model.to_json())["weights"]["SparseLinear"]["w"]["offsets"]
    return sum(end > start for start, end in zip(offsets, offsets[1:]))


def test_pickle_round_trip():
    tagger = bilinear.BilinearTagger(max_iter=5, averaging=True).fit(X, Y)
    again = pickle.loads(pickle.dumps(tagger))
    assert again.predict(X) == tagger.predict(X)
    assert again.model_.alpha == tagger.model_.alpha


def test_two_column_tokens():
    X2 = [[("He", "PRP"), ("ran", "VBD")], [("She", "PRP"), ("sat", "VBD")]]
    Y2 = [["B-NP", "B-VP"], ["B-NP", "B-VP"]]
    tagger = bilinear.BilinearTagger(templates="chunking", max_iter=5).fit(X2, Y2)
    assert tagger.predict(X2) == Y2


def test_transitions_only_keeps_the_column_the_templates_name():
    # The binding adds the bias with the crate's `Templates::with_bias`, which keeps the
    # chunking templates' name for column 1: one-column tokens are refused naming `pos`.
    X2 = [[("He", "PRP"), ("ran", "VBD")], [("She", "PRP"), ("sat", "VBD")]]
    Y2 = [["B-NP", "B-VP"], ["B-NP", "B-VP"]]
    params = dict(templates="chunking", learner="sp", zero_order=True, transitions_only=True,
                  max_iter=5)
    assert bilinear.BilinearTagger(**params).fit(X2, Y2).predict(X2) == Y2
    with pytest.raises(ValueError, match="`pos`"):
        bilinear.BilinearTagger(**params).fit([["He", "ran"]], [["B-NP", "B-VP"]])


@pytest.mark.parametrize(
    "x,y,params",
    [
        (X, Y[:2], {}),
        (X, [list("ss"), *Y[1:]], {}),
        ("abc", Y, {}),
        (X, Y, {"learner": "hmm"}),
        (X, Y, {"templates": "ner"}),
        (X, Y, {"max_iter": 0}),
        (X, Y, {"c": -1.0}),
        ([[1, 2]], [["s", "s"]], {}),
        (X, Y, {"learner": "sp", "transitions_only": True}),
        (X, Y, {"learner": "bol", "zero_order": True, "transitions_only": True}),
    ],
    ids=["fewer tag sequences", "ragged sentence", "string corpus", "bad learner",
         "bad templates", "zero max_iter", "negative c", "non-string tokens",
         "transitions without zero order", "transitions on bol"],
)
def test_bad_input_is_value_error(x, y, params):
    with pytest.raises(ValueError):
        bilinear.BilinearTagger(**params).fit(x, y)


def test_tampered_json_is_value_error():
    with pytest.raises(ValueError):
        bilinear._native.TaggerModel.from_json('{"not": "a model"}')


def test_defaults_come_from_rust():
    d = bilinear.BilinearTagger().get_params()
    assert all(d[k] is None for k in ("max_iter", "c", "power_steps", "averaging", "cutoff"))
    rust = bilinear._tagger.tagger_defaults("bol")
    assert rust["max_iter"] == 20 and rust["c"] == 1.0 and rust["power_steps"] == 4
    assert bilinear._tagger.tagger_defaults("crf-l2")["max_iter"] == 100


def test_word_corpus_gets_word_templates_by_default():
    X3 = [["The", "dog", "barked"], ["A", "cat", "sat"]]
    Y3 = [["DT", "NN", "VBD"], ["DT", "NN", "VBD"]]
    tagger = bilinear.BilinearTagger(max_iter=5).fit(X3, Y3)
    # the word preset has a bias and suffix features: an unseen word is tagged by its form
    assert tagger.predict([["The", "cow", "jumped"]])[0][0] == "DT"


def test_several_columns_need_templates():
    X2 = [[("He", "PRP"), ("ran", "VBD")]]
    with pytest.raises(ValueError, match="templates"):
        bilinear.BilinearTagger().fit(X2, [["B-NP", "B-VP"]])
