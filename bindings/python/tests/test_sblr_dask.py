"""SBLR on a dask array spread over a ``dask.distributed`` cluster: the fit equals the fit
in memory (objectives to 1e-10), one-vs-all fits its classes in parallel, bad chunks are
``ValueError`` naming the chunk, and a worker that dies mid-fit makes the fit raise while
the client stays usable. One two-worker ``LocalCluster`` (separate processes) for the
module."""

import os
import threading

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

from bilinear import SparseBilinearLogisticRegression as SBLR  # noqa: E402
from bilinear import _sblr_dask  # noqa: E402

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


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_binary_fit_equals_the_in_memory_fit(client, dtype):
    X, y = _data()
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

    monkeypatch.setattr(_sblr_dask.Driver, "scores", scores_then_kill)
    with pytest.raises(RuntimeError, match="left the cluster|lost"):
        SBLR(**PARAMS).fit(dX, y)
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
