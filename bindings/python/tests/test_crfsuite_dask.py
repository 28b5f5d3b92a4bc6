"""``bilinear.crfsuite.CRF.fit`` on a Dask ``LocalCluster`` (two worker processes):
``lbfgs`` by a distributed gradient equals the one-machine fit up to summation order;
``ap``, ``pa`` and ``arow`` by iterative parameter mixing stay within 0.3 points of the
one-machine accuracy on the chunking corpus; bad input raises the one-machine errors
naming the partition; a worker that dies mid-fit makes the fit raise and leaves the client
usable."""

import os
import signal
import threading
import time

import pytest

pytest.importorskip("distributed")  # the `client` fixture (conftest.py) needs it
dask_bag = pytest.importorskip("dask.bag")

from bilinear import _dask_cluster  # noqa: E402
from bilinear._dask_cluster import running  # noqa: E402
from bilinear.crfsuite import CRF, _dask  # noqa: E402
from bilinear.crfsuite.metrics import flat_accuracy_score  # noqa: E402

import dask_pausing  # noqa: E402  (tests/dask_pausing.py)


def _synthetic(n=90, seed=0):
    """Sequences of dicts with str, float and bool values over 4 labels."""
    import random

    rng = random.Random(seed)
    X, y = [], []
    for _ in range(n):
        xs, ys = [], []
        for _ in range(rng.randint(1, 7)):
            w = rng.randrange(12)
            xs.append({"w": f"w{w}", "len": rng.random() * 2.0, "odd": bool(w % 2),
                       "n": {"a": rng.choice(["x", "y"])}})
            ys.append(f"T{(w + rng.randrange(2)) % 4}")
        X.append(xs)
        y.append(ys)
    return X, y


def _partitions(X, y, cuts):
    pairs = list(zip(X, y))
    bounds = [0, *cuts, len(pairs)]
    return [pairs[a:b] for a, b in zip(bounds, bounds[1:])]


def _close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def test_lbfgs_equals_the_one_machine_fit(client):
    X, y = _synthetic()
    params = dict(algorithm="lbfgs", c1=0.0, c2=0.5, max_iterations=20,
                  all_possible_transitions=True)
    one = CRF(n_jobs=1, **params).fit(X, y)
    for data in (_partitions(X, y, [30, 61]),
                 dask_bag.from_sequence(list(zip(X, y)), npartitions=2)):
        crf = CRF(**params)
        if isinstance(data, list):
            crf.fit(data, client=client)
        else:
            crf.fit(data)  # the default client
        a, b = one.training_log_.iterations, crf.training_log_.iterations
        assert len(a) == len(b) == 20
        for ea, eb in zip(a, b):
            assert _close(ea["loss"], eb["loss"]), (ea["loss"], eb["loss"])
        assert one.classes_ == crf.classes_
        assert one.attributes_ == crf.attributes_
        wa, wb = one.state_features_, crf.state_features_
        assert wa.keys() == wb.keys()
        for k in wa:
            assert _close(wa[k], wb[k], 1e-8), (k, wa[k], wb[k])
        ta, tb = one.transition_features_, crf.transition_features_
        assert ta.keys() == tb.keys()
        assert all(_close(ta[k], tb[k], 1e-8) for k in ta)
        info = crf.training_log_.distributed
        assert info["shards"] == (3 if isinstance(data, list) else 2)
        assert info["sequences"] == len(X)
        # Per round: the weights to each shard and its gradient back, each 8 bytes per
        # feature plus a 25-byte header.
        n = crf.training_log_.featgen_num_features
        assert info["bytes_per_round"] == (8 * n + 25) * 2 * info["shards"]
        assert list(crf.predict(X[:5])) == list(one.predict(X[:5]))


def test_one_partition_is_the_one_machine_fit_bit_for_bit(client):
    X, y = _synthetic(40, seed=3)
    for params in (dict(algorithm="lbfgs", max_iterations=8),
                   dict(algorithm="ap", max_iterations=4),
                   dict(algorithm="arow", max_iterations=4)):
        one = CRF(n_jobs=1, **params).fit(X, y)
        # Empty partitions are left out: the first non-empty one takes the one-machine seed.
        for data in ([list(zip(X, y))], [[], list(zip(X, y)), []]):
            crf = CRF(**params).fit(data, client=client)
            assert crf.state_features_ == one.state_features_, params
            assert crf.transition_features_ == one.transition_features_, params
            assert crf.training_log_.distributed["shards"] == 1


def test_arow_stops_at_loss_zero_on_dask_as_on_one_machine(client):
    """arow's stopping test (mean loss at most epsilon; default 0) is the one-machine
    fit's: on separable data both stop after an epoch without a mistake, while ap runs
    its whole budget."""
    X = [[{"w": f"w{(i + j) % 6}"} for j in range(2 + i % 3)] for i in range(12)]
    y = [[f"T{(i + j) % 6 % 3}" for j in range(2 + i % 3)] for i in range(12)]
    parts = _partitions(X, y, [6])
    for crf in (CRF(algorithm="arow", max_iterations=50).fit(X, y),
                CRF(algorithm="arow", max_iterations=50).fit(parts, client=client)):
        log = crf.training_log_
        assert log.termination == "Converged"
        assert len(log.iterations) < 50
        assert log.last_iteration["loss"] == 0.0
        assert list(crf.predict(X)) == y
    ap = CRF(algorithm="ap", max_iterations=6).fit(parts, client=client)
    assert len(ap.training_log_.iterations) == 6
    assert ap.training_log_.last_iteration["loss"] == 0.0


@pytest.fixture(scope="module")
def chunking(real_data):
    return _chunking(real_data("conll2000-subset/chtrain.txt").parent)


def _chunking(folder):

    def read(path):
        sents, cur = [], []
        for line in open(path, encoding="utf-8"):
            f = line.split()
            if not f:
                if cur:
                    sents.append(cur)
                    cur = []
                continue
            cur.append((f[0], f[1], f[-1]))
        if cur:
            sents.append(cur)
        return sents

    def features(sent, i):
        word, pos, _ = sent[i]
        d = {"bias": 1.0, "w": word.lower(), "w[-3:]": word[-3:], "w[-2:]": word[-2:],
             "upper": word.isupper(), "title": word.istitle(), "digit": word.isdigit(),
             "pos": pos, "pos[:2]": pos[:2]}
        for off in (-1, 1):
            j = i + off
            if 0 <= j < len(sent):
                w, p, _ = sent[j]
                d.update({f"{off}:w": w.lower(), f"{off}:title": w.istitle(),
                          f"{off}:pos": p, f"{off}:pos[:2]": p[:2]})
            else:
                d["BOS" if off < 0 else "EOS"] = True
        return d

    def xy(sents):
        return ([[features(s, i) for i in range(len(s))] for s in sents],
                [[t[2] for t in s] for s in sents])

    return xy(read(folder / "chtrain.txt")), xy(read(folder / "chtest.txt"))


@pytest.mark.parametrize("algorithm", ["ap", "pa", "arow"])
def test_parameter_mixing_stays_within_0_3_points_on_chunking(client, chunking, algorithm):
    (X, y), (Xt, yt) = chunking
    one = CRF(algorithm=algorithm, max_iterations=10).fit(X, y)
    bag = dask_bag.from_sequence(list(zip(X, y)), npartitions=2)
    crf = CRF(algorithm=algorithm, max_iterations=10).fit(bag, client=client)
    a = flat_accuracy_score(yt, one.predict(Xt))
    b = flat_accuracy_score(yt, crf.predict(Xt))
    assert abs(a - b) <= 0.003, (algorithm, a, b)
    assert len(crf.training_log_.iterations) == 10
    assert crf.training_log_.distributed["rounds"] == 10


def test_bad_input_names_the_partition_sequence_and_position(client):
    X, y = _synthetic(20, seed=1)
    parts = _partitions(X, y, [10])
    bad = [list(p) for p in parts]
    xseq = [dict(item) for item in bad[1][4][0]]
    xseq[1]["len"] = float("nan")
    bad[1][4] = (xseq, bad[1][4][1])
    with pytest.raises(ValueError, match=r"partition 1, X: sequence 4, position 1: .*finite"):
        CRF().fit(bad, client=client)
    short = [list(p) for p in parts]
    short[0][2] = (short[0][2][0], short[0][2][1][:-1] if len(short[0][2][1]) > 1 else [])
    with pytest.raises(ValueError, match=r"sequence 2"):
        CRF().fit(short, client=client)
    with pytest.raises(ValueError, match=r"partition 0: sequence 0 must be an \(xseq, yseq\)"):
        CRF().fit([["not a pair"]], client=client)
    with pytest.raises(ValueError, match="leave y None"):
        CRF().fit(parts, y, client=client)
    for name in ("bol", "bcd", "sp"):
        with pytest.raises(ValueError, match="BilinearTagger"):
            CRF(algorithm=name).fit(parts, client=client)
    with pytest.raises(ValueError, match="l2sgd"):
        CRF(algorithm="l2sgd").fit(parts, client=client)
    with pytest.raises(ValueError, match="does not apply"):
        CRF(algorithm="ap", c2=1.0).fit(parts, client=client)
    # No partition, or only empty ones: nothing to train on.
    with pytest.raises(ValueError, match="^X has no partition: nothing to train on$"):
        CRF().fit([], client=client)
    with pytest.raises(ValueError, match=r"^X has no sequence \(its partition is empty\): "
                                         "nothing to train on$"):
        CRF().fit(dask_bag.from_sequence([]), client=client)
    with pytest.raises(ValueError, match=r"^X has no sequence \(its 3 partitions are all "
                                         r"empty\): nothing to train on$"):
        CRF().fit([[], [], []], client=client)
    # The client still works after the errors.
    assert client.submit(sum, [1, 2]).result() == 3


def test_held_out_data_is_scored_on_the_client(client):
    X, y = _synthetic(60, seed=2)
    params = dict(algorithm="lbfgs", max_iterations=5)
    one = CRF(**params).fit(X[:40], y[:40], X[40:], y[40:])
    crf = CRF(**params).fit(_partitions(X[:40], y[:40], [20]), X_dev=X[40:], y_dev=y[40:],
                            client=client)
    a = one.training_log_.last_iteration
    b = crf.training_log_.last_iteration
    assert a["item_accuracy_float"] == b["item_accuracy_float"]


def test_a_worker_dying_mid_fit_raises_and_the_client_stays_usable(client):
    X, y = _synthetic(40, seed=4)
    parts = _partitions(X, y, [20])
    errors = []

    def fit():
        try:
            # A budget no test waits for: the fit ends only by the worker's death.
            CRF(algorithm="ap", max_iterations=10**9).fit(parts, client=client)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    thread = threading.Thread(target=fit)
    thread.start()
    # Wait until epochs run, then kill one worker process (its nanny restarts it).
    while not any("_epoch" in str(k)
                  for keys in client.processing().values() for k in keys):
        time.sleep(0.05)
    victim = running(client)[0]
    pid = client.run(os.getpid, workers=[victim])[victim]
    os.kill(pid, signal.SIGKILL)
    thread.join()
    assert len(errors) == 1 and isinstance(errors[0], RuntimeError), errors
    assert "left the cluster" in str(errors[0])
    client.wait_for_workers(2)
    assert client.submit(sum, [3, 4]).result() == 7
    # And it fits again.
    X2, y2 = _synthetic(20, seed=5)
    CRF(algorithm="ap", max_iterations=2).fit(_partitions(X2, y2, [10]), client=client)


def test_the_cached_scheduler_info_is_not_read(client, monkeypatch):
    """The client's scheduler_info() is a cache refreshed in the background, read empty
    in between (which failed fits with "the Dask cluster has no worker" or "left the
    cluster"): the fit asks the scheduler instead."""
    X, y = _synthetic(30, seed=6)
    monkeypatch.setattr(client, "scheduler_info", lambda *a, **k: {"workers": {}})
    for algorithm in ("lbfgs", "ap"):
        crf = CRF(algorithm=algorithm, max_iterations=3).fit(_partitions(X, y, [15]),
                                                             client=client)
        assert crf.training_log_.distributed["shards"] == 2


def test_a_holder_paused_for_good_fails_the_fit(client, monkeypatch):
    """Dask pauses a worker above the pause fraction of its memory limit; a paused worker
    runs no task, and a shard cannot be spilled or moved, so a fit waiting on it would
    wait forever."""
    monkeypatch.setattr(_dask_cluster, "PAUSE_GRACE_SECONDS", 1.0)
    X, y = _synthetic(40, seed=7)
    victim = running(client)[0]
    fraction = client.run(dask_pausing.pause_fraction, workers=[victim])[victim]

    def pause(num, loss, seconds):
        if num == 1:
            client.run(dask_pausing.pause, workers=[victim])

    try:
        for algorithm in ("ap", "lbfgs"):
            with pytest.raises(RuntimeError,
                               match=f"{victim} holding the shard of partition 0 has been "
                                     "paused"):
                _dask.fit(client, _partitions(X, y, [20]), algorithm, {"max_iterations": 5},
                          1, on_iteration=pause)
            dask_pausing.resumed(client, victim, fraction)
    finally:
        dask_pausing.resumed(client, victim, fraction)
    crf = CRF(algorithm="ap", max_iterations=2).fit(_partitions(X, y, [20]), client=client)
    assert crf.training_log_.distributed["workers"] == 2


def _unread(_):
    raise RuntimeError("a sequence was read")


@pytest.mark.parametrize(
    "params,match",
    [
        (dict(algorithm="ap", max_iterations=-1), "max_iterations must be a nonnegative"),
        (dict(algorithm="lbfgs", c2=-1.0), "`c2` = -1"),
        (dict(algorithm="ap", c2=1.0), "does not apply"),
        (dict(algorithm="arow", variance=0.0), "variance"),
    ],
    ids=["max_iterations", "c2", "c2 on ap", "variance"],
)
def test_parameters_are_checked_before_any_data_is_read(client, params, match):
    X, y = _synthetic(10, seed=8)
    bag = dask_bag.from_sequence(list(zip(X, y)), npartitions=2).map(_unread)
    with pytest.raises(ValueError, match=match):
        CRF(**params).fit(bag, client=client)
