"""SBLR on a dask array spread over a ``dask.distributed`` cluster: the fit equals the fit
in memory (objectives to 1e-10), one-vs-all fits its classes in parallel, bad chunks are
``ValueError`` naming the chunk, empty chunks are skipped, every block is computed once
and nothing before the checks that need no data, a worker that dies or stays paused
mid-fit makes the fit raise while the client stays usable, Dask sees the chunks' memory,
a chunk is built without a copy of its block, and the predictions on a dask array are
dask arrays. One two-worker ``LocalCluster`` (separate processes) for the module."""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

from bilinear import SparseBilinearLogisticRegression as SBLR  # noqa: E402
from bilinear import _dask_cluster, _native, _sblr_dask  # noqa: E402

PARAMS = dict(rank=2, mu1=0.01, mu2=0.01, nu1=0.01, nu2=0.01, max_iter=12, tol=0.0)


def _data(n=60, s=6, t=5, classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, s, t))
    y = np.arange(n) % classes
    for c in range(classes):
        X[y == c, c % s, (2 * c) % t] += 1.0
    return X, y


def _objective(U, V, b, X, signs, p):
    """Objective (4) of one binary model, computed here from its factors."""
    f = np.einsum("ak,iaj,jk->i", U, X, V) + b
    loss = np.mean(np.logaddexp(0.0, -signs * f))
    return (
        loss
        + p["mu1"] * np.abs(U).sum()
        + p["mu2"] / 2 * (U**2).sum()
        + p["nu1"] * np.abs(V).sum()
        + p["nu2"] / 2 * (V**2).sum()
    )


def _objectives(model, X, y):
    if model.U_.ndim == 2:
        signs = np.where(y == model.classes_[1], 1.0, -1.0)
        return [_objective(model.U_, model.V_, model.intercept_[0], X, signs, PARAMS)]
    return [
        _objective(model.U_[c], model.V_[c], model.intercept_[c], X,
                   np.where(y == label, 1.0, -1.0), PARAMS)
        for c, label in enumerate(model.classes_)
    ]


def _assert_same_fit(spread, memory, X, y):
    a, b = _objectives(spread, X, y), _objectives(memory, X, y)
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=0)
    np.testing.assert_array_equal(spread.classes_, memory.classes_)
    np.testing.assert_array_equal(spread.predict(X), memory.predict(X))
    assert spread.n_iter_ == memory.n_iter_


@pytest.mark.parametrize("dtype, source", [("float64", "float64"), ("float32", "float64"),
                                           ("float32", "float32"), ("float64", "float32")])
def test_binary_fit_equals_the_in_memory_fit(client, dtype, source):
    X, y = _data()
    # float32 samples are read as they are (the in-memory fit widens them to float64,
    # exactly).
    X = X.astype(source)
    labels = np.array(["no", "yes"])[y]
    # Chunks of unequal sizes along the samples.
    dX = da.from_array(X, chunks=((25, 20, 15), 6, 5))
    spread = SBLR(dtype=dtype, **PARAMS).fit(dX, labels)
    memory = SBLR(dtype=dtype, **PARAMS).fit(X, labels)
    _assert_same_fit(spread, memory, X, labels)
    assert spread.U_.shape == (6, 2) and spread.matrix_shape_ == (6, 5)


def test_one_vs_all_fits_classes_in_parallel_and_equals_the_in_memory_fit(client, monkeypatch):
    X, y = _data(n=72, classes=3, seed=1)
    # Chunked along every axis: the fit makes whole samples per chunk.
    dX = da.from_array(X, chunks=(24, 3, 5))
    # One driver per class, from its start to its release: count how many are open at once.
    lock, open_now, most = threading.Lock(), [0], [0]
    init, release = _sblr_dask.Driver.__init__, _sblr_dask.Driver.release

    def counted_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        with lock:
            open_now[0] += 1
            most[0] = max(most[0], open_now[0])

    def counted_release(self):
        with lock:
            open_now[0] -= 1
        release(self)

    monkeypatch.setattr(_sblr_dask.Driver, "__init__", counted_init)
    monkeypatch.setattr(_sblr_dask.Driver, "release", counted_release)
    spread = SBLR(**PARAMS).fit(dX, y)
    monkeypatch.undo()
    assert open_now[0] == 0
    assert most[0] >= 2, "the classes were fitted one after the other"
    memory = SBLR(**PARAMS).fit(X, y)
    assert spread.U_.shape == (3, 6, 2)
    _assert_same_fit(spread, memory, X, y)


def test_every_chunk_stays_on_the_worker_that_built_it(client):
    X, y = _data()
    dX = da.from_array(X, chunks=(15, 6, 5))
    chunks = _sblr_dask.Chunks(client, dX, "float64")
    try:
        assert len(chunks.workers) == 4
        assert set(chunks.workers) <= set(client.scheduler_info(n_workers=-1)["workers"])
        who = client.who_has(chunks.futures)
        driver = _sblr_dask.Driver(chunks, rank=1)
        driver.refresh("u", np.ones(5))
        np.testing.assert_allclose(driver.scores("u", np.ones(6)), X.sum(axis=(1, 2)))
        # After calls on them, each chunk is still (only) where it was built.
        assert client.who_has(chunks.futures) == who
        assert [who[f.key][0] for f in chunks.futures] == chunks.workers
    finally:
        chunks.close()


def _declared(parts, s, t):
    """A dask array made of `parts` (numpy arrays) declared as `(n_k, s, t)` blocks."""
    return da.concatenate(
        [da.from_delayed(dask.delayed(p), shape=(len(p), s, t), dtype=float) for p in parts]
    )


def test_bad_chunks_are_value_errors_naming_the_chunk(client):
    X, y = _data(n=30)
    # Chunk 1's samples are 6 x 4 where the array declares 6 x 5.
    bad = _declared([X[:10], X[10:20, :, :4], X[20:]], 6, 5)
    with pytest.raises(ValueError, match="chunk 1"):
        SBLR(**PARAMS).fit(bad, y)
    # A NaN in sample 23 (chunk 2), entry (4, 1).
    Xn = X.copy()
    Xn[23, 4, 1] = np.nan
    with pytest.raises(ValueError, match=r"sample 23 .*row 4, column 1 in chunk 2"):
        SBLR(**PARAMS).fit(da.from_array(Xn, chunks=(10, 6, 5)), y)
    with pytest.raises(ValueError, match="labels"):
        SBLR(**PARAMS).fit(da.from_array(X, chunks=(10, 6, 5)), y[:-1])
    with pytest.raises(ValueError, match="one-vs-all"):
        SBLR(multi_class="multinomial").fit(da.from_array(X, chunks=(10, 6, 5)), y)
    with pytest.raises(ValueError, match="rank"):
        SBLR(rank=9).fit(da.from_array(X, chunks=(10, 6, 5)), y)
    # Chunk sizes unknown (after a boolean mask): the NaN is named with its sample's
    # index in the data all the same, once the sizes are known.
    keep = np.arange(30) % 4 != 1
    masked = da.from_array(X, chunks=(10, 6, 5))[da.from_array(keep, chunks=10)]
    masked = masked.map_blocks(_with_inf_at(np.flatnonzero(keep)[17], (2, 3)),
                              meta=np.empty((0, 0, 0)))
    assert np.isnan(masked.chunks[0][0])
    with pytest.raises(ValueError, match=r"sample 17 .*row 2, column 3 in chunk 2"):
        SBLR(**PARAMS).fit(masked, y[keep])


def _with_inf_at(sample, entry):
    """A map_blocks function of a masked array: ``inf`` at ``entry`` of the block's
    sample that was sample ``sample`` of the array before the mask (blocks of 10 samples,
    every 4th sample from the second on dropped)."""
    def put(block, block_info=None):
        k = block_info[0]["chunk-location"][0]
        kept = [i for i in range(10 * k, 10 * k + 10) if i % 4 != 1]
        block = block.copy()
        if sample in kept:
            block[kept.index(sample)][entry] = np.inf
        return block
    return put


def test_a_worker_dying_mid_fit_fails_the_fit_and_the_client_stays_usable(
    client, monkeypatch
):
    X, y = _data(n=40)
    dX = da.from_array(X, chunks=(20, 6, 5))
    calls = {"n": 0}
    scores = _sblr_dask.Driver.scores

    def scores_then_kill(self, side, w):
        calls["n"] += 1
        if calls["n"] == 3:
            # Kill the worker holding chunk 0 (its nanny starts a new one); the call
            # itself fails as the worker dies before it answers.
            try:
                client.run(os._exit, 1, workers=[self.chunks.workers[0]])
            except Exception:  # noqa: BLE001 - the connection closes
                pass
        return scores(self, side, w)

    # Count the checks that find the failure while a round waits: once found (by such a
    # check, or before a round starts), the rounds the solver still asks for fail at
    # once, without waiting for a check of their own.
    found = []
    check = _sblr_dask.Chunks._check

    def counted_check(self, *args, **kwargs):
        try:
            return check(self, *args, **kwargs)
        except RuntimeError:
            found.append(1)
            raise

    monkeypatch.setattr(_sblr_dask.Driver, "scores", scores_then_kill)
    monkeypatch.setattr(_sblr_dask.Chunks, "_check", counted_check)
    with pytest.raises(RuntimeError, match="left the cluster|lost"):
        SBLR(**PARAMS).fit(dX, y)
    assert len(found) <= 1
    monkeypatch.setattr(_sblr_dask.Driver, "scores", scores)
    client.wait_for_workers(2, timeout=60)
    spread = SBLR(**PARAMS).fit(dX, y)
    _assert_same_fit(spread, SBLR(**PARAMS).fit(X, y), X, y)


def test_a_dask_array_without_a_client_is_a_value_error(monkeypatch):
    X, y = _data(n=20)
    dX = da.from_array(X, chunks=(10, 6, 5))

    def no_client():
        raise ValueError("No clients found")

    monkeypatch.setattr(distributed, "get_client", no_client)
    with pytest.raises(ValueError, match="Client"):
        SBLR().fit(dX, y)


def _pause_and_resume():
    """Two functions to run on workers (nested: pickled by value): ``pause`` pauses the
    worker as Dask does above the pause fraction of its memory limit and keeps it paused
    (its memory monitor would resume it at once, its memory being low); ``resume`` undoes
    it."""
    def pause(dask_worker):
        from distributed.core import Status

        manager = dask_worker.memory_manager
        manager.sblr_test_pause = manager.memory_pause_fraction
        manager.memory_pause_fraction = False
        dask_worker.status = Status.paused

    def resume(dask_worker):
        from distributed.core import Status

        manager = dask_worker.memory_manager
        manager.memory_pause_fraction = getattr(manager, "sblr_test_pause", 0.8)
        dask_worker.status = Status.running

    return pause, resume


def _fit_in_thread(estimator, X, y, seconds):
    """``estimator.fit(X, y)`` in a thread, given ``seconds``: its exception, or
    ``"hung"`` (a fit that never ends fails the test instead of hanging the suite)."""
    out = {}

    def run():
        try:
            estimator.fit(X, y)
            out["result"] = None
        except BaseException as e:  # noqa: BLE001
            out["result"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    return out.get("result", "hung")


def test_a_worker_paused_mid_fit_fails_the_fit_instead_of_hanging(client, monkeypatch):
    X, y = _data(n=40)
    dX = da.from_array(X, chunks=(10, 6, 5))
    # A pause that lasts 1 s does not end (5 s by default).
    monkeypatch.setattr(_dask_cluster, "PAUSE_GRACE_SECONDS", 1.0)
    pause, resume = _pause_and_resume()
    paused = []
    scores = _sblr_dask.Driver.scores

    def scores_then_pause(self, side, w):
        if not paused:
            paused.append(self.chunks.workers[0])
            client.run(pause, workers=paused)
        return scores(self, side, w)

    monkeypatch.setattr(_sblr_dask.Driver, "scores", scores_then_pause)
    try:
        # Generous: the fit raises about a second after the pause.
        error = _fit_in_thread(SBLR(**PARAMS), dX, y, seconds=120)
    finally:
        client.run(resume, workers=paused)
    assert isinstance(error, RuntimeError), error
    assert f"the worker {paused[0]} holding chunk" in str(error)
    assert "paused" in str(error)
    monkeypatch.setattr(_sblr_dask.Driver, "scores", scores)
    _assert_same_fit(SBLR(**PARAMS).fit(dX, y), SBLR(**PARAMS).fit(X, y), X, y)


def test_a_worker_paused_while_the_chunks_are_built_fails_the_fit(client, monkeypatch):
    X, y = _data(n=40)
    monkeypatch.setattr(_dask_cluster, "PAUSE_GRACE_SECONDS", 1.0)
    pause, resume = _pause_and_resume()
    # What the client asks the scheduler: functions sent by value (the scheduler may run
    # where bilinear is not installed), not module functions cloudpickle would send by
    # reference.
    asked = []
    run_on_scheduler = client.run_on_scheduler

    def recorded(function, *args, **kwargs):
        asked.append(function)
        return run_on_scheduler(function, *args, **kwargs)

    monkeypatch.setattr(client, "run_on_scheduler", recorded)
    workers = sorted(_dask_cluster.workers(client))
    client.run(pause, workers=workers)
    try:
        # Both workers paused before anything is computed: the blocks wait for a worker.
        error = _fit_in_thread(SBLR(**PARAMS), da.from_array(X, chunks=(10, 6, 5)), y,
                               seconds=120)
    finally:
        client.run(resume, workers=workers)
    assert isinstance(error, RuntimeError), error
    assert "paused" in str(error)
    assert asked
    for function in asked:
        assert "<locals>" in function.__qualname__ or not function.__module__.startswith(
            "bilinear"), function


def test_dask_counts_the_memory_of_a_chunk(client):
    X, y = _data(n=40)
    chunk = _sblr_dask._make_chunk(X[:10], 6, 5, 0, 0, "float64")
    assert chunk.nbytes == 10 * 6 * 5 * 8
    assert dask.sizeof.sizeof(chunk) >= chunk.nbytes
    # A fit's features on the chunk are counted: (s + t) r values per sample.
    chunk.refresh(7, "u", np.ones(2 * 5), 2)
    assert chunk.nbytes == 10 * 6 * 5 * 8 + 10 * (6 + 5) * 2 * 8
    chunk.release(7)
    assert chunk.nbytes == 10 * 6 * 5 * 8
    # The scheduler's accounting of the chunks on the cluster.
    chunks = _sblr_dask.Chunks(client, da.from_array(X, chunks=(10, 6, 5)), "float32")
    try:
        keys = [f.key for f in chunks.futures]

        def nbytes(keys, dask_scheduler=None):
            return {k: dask_scheduler.tasks[k].nbytes for k in keys}

        counted = client.run_on_scheduler(nbytes, keys)
        assert all(counted[k] >= 10 * 6 * 5 * 4 for k in keys), counted
    finally:
        chunks.close()


_PEAK = textwrap.dedent("""
    import sys
    import numpy as np
    from bilinear._sblr_dask import _make_chunk

    def status(field):
        for line in open("/proc/self/status"):
            if line.startswith(field):
                return int(line.split()[1]) * 1024

    source, dtype = sys.argv[1], sys.argv[2]
    n, s, t = 1000, 64, 64
    block = np.empty((n, s, t), dtype=source)
    block[...] = 1.0
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # the peak from here on
    except OSError:
        print("nan")
        sys.exit(0)
    before = status("VmRSS")
    chunk = _make_chunk(block, s, t, 0, 0, dtype)
    print((status("VmHWM") - before) / chunk.nbytes)
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self")
@pytest.mark.parametrize("source, dtype", [("float64", "float64"), ("float32", "float32"),
                                           ("float32", "float64"), ("int32", "float64")])
def test_a_chunk_is_built_without_a_copy_of_its_block(source, dtype):
    """The memory a chunk's build takes above its block, in a fresh process: the chunk
    itself (a float64 copy of an int block first), no copy of the values before their
    transposition, no widening of float32 values."""
    out = subprocess.run([sys.executable, "-c", _PEAK, source, dtype], capture_output=True,
                         text=True, check=True)
    ratio = float(out.stdout)
    if np.isnan(ratio):
        pytest.skip("the peak memory cannot be reset here (/proc/self/clear_refs)")
    # The chunk's own buffer is 1; an int32 block is converted to float64 first (1 more).
    expected = 2.0 if source == "int32" else 1.0
    assert ratio < expected + 0.3, (source, dtype, ratio)


def test_empty_chunks_are_skipped(client):
    X, y = _data(n=60)
    expected = SBLR(**PARAMS).fit(X, y)
    # A chunk declared empty.
    empty = da.from_array(X, chunks=((20, 10, 0, 10, 20), 6, 5))
    _assert_same_fit(SBLR(**PARAMS).fit(empty, y), expected, X, y)
    dX = da.from_array(X, chunks=(20, 6, 5))
    # A boolean mask that empties the middle chunk (sizes unknown until computed).
    keep = np.ones(60, bool)
    keep[20:40] = False
    masked = dX[da.from_array(keep, chunks=20)]
    _assert_same_fit(SBLR(**PARAMS).fit(masked, y[keep]), SBLR(**PARAMS).fit(X[keep], y[keep]),
                     X[keep], y[keep])
    with pytest.raises(ValueError, match="no samples"):
        SBLR(**PARAMS).fit(dX[da.from_array(np.zeros(60, bool), chunks=20)], y)


def _counting(path):
    """A map_blocks function that appends a line to ``path`` per block it computes."""
    def load(block):
        with open(path, "a") as f:
            f.write("block\n")
        return block
    return load


def _loads(path):
    try:
        with open(path) as f:
            return len(f.read().split())
    finally:
        open(path, "w").close()


def test_every_block_is_computed_once(client, tmp_path):
    X, y = _data(n=60)
    path = str(tmp_path / "loads")
    open(path, "w").close()
    dX = da.from_array(X, chunks=(20, 6, 5)).map_blocks(_counting(path),
                                                        meta=np.empty((0, 0, 0)))
    SBLR(**PARAMS).fit(dX, y)
    assert _loads(path) == 3
    # Chunk sizes unknown: taken from the built chunks, not computed first.
    keep = np.arange(60) % 3 != 0
    SBLR(**PARAMS).fit(dX[da.from_array(keep, chunks=20)], y[keep])
    assert _loads(path) == 3
    # Labels computed from X: in the same graph.
    dy = (dX[:, 0, 0] > 0).astype(int)
    model = SBLR(**PARAMS).fit(dX, dy)
    assert _loads(path) == 3
    _assert_same_fit(model, SBLR(**PARAMS).fit(X, (X[:, 0, 0] > 0).astype(int)), X,
                     (X[:, 0, 0] > 0).astype(int))


@pytest.mark.parametrize("keywords, labels, match", [
    (dict(mu1=-1.0), None, "mu1"),
    (dict(tol=-1.0), None, "tol"),
    (dict(max_iter=0), None, "max_iter"),
    (dict(rank=6), None, "rank"),
    (dict(solver="bogus"), None, "solver"),
    ({}, "one too many", "labels"),
    ({}, "dask, one too many", "labels"),
    ({}, "one class", "2 classes"),
])
def test_what_needs_no_data_is_checked_before_any_block_is_computed(
    client, tmp_path, keywords, labels, match
):
    X, y = _data(n=60)
    path = str(tmp_path / "loads")
    open(path, "w").close()
    dX = da.from_array(X, chunks=(20, 6, 5)).map_blocks(_counting(path),
                                                        meta=np.empty((0, 0, 0)))
    if labels == "one too many":
        y = np.r_[y, 0]
    elif labels == "dask, one too many":
        y = da.from_array(np.r_[y, 0], chunks=20)
    elif labels == "one class":
        y = np.zeros(60)
    with pytest.raises(ValueError, match=match):
        SBLR(**{**PARAMS, **keywords}).fit(dX, y)
    assert _loads(path) == 0


@pytest.mark.parametrize("classes", [2, 3])
def test_predictions_on_a_dask_array_are_dask_arrays(client, classes):
    X, y = _data(n=60, classes=classes)
    model = SBLR(**PARAMS).fit(X, y)
    # Blocks of unequal sizes, one empty, the sample axes chunked too.
    dX = da.from_array(X, chunks=((25, 0, 20, 15), 3, 5))
    for method in ["predict", "predict_proba", "predict_log_proba", "decision_function"]:
        spread = getattr(model, method)(dX)
        assert _sblr_dask.is_dask_array(spread), method
        expected = getattr(model, method)(X)
        assert spread.shape == expected.shape and spread.dtype == expected.dtype, method
        computed = spread.compute()
        if method == "predict":
            np.testing.assert_array_equal(computed, expected)
        else:
            np.testing.assert_allclose(computed, expected, rtol=1e-12, atol=1e-300)
    # (n, s*t) rows with matrix_shape.
    rows = SBLR(matrix_shape=(6, 5), **PARAMS).fit(X.reshape(60, 30), y)
    np.testing.assert_array_equal(
        rows.predict(da.from_array(X.reshape(60, 30), chunks=(16, 10))).compute(),
        rows.predict(X.reshape(60, 30)))
    # Samples of another shape: refused before anything is computed.
    with pytest.raises(ValueError, match="features"):
        model.predict(da.zeros((10, 5, 6), chunks=(5, 5, 6)))
