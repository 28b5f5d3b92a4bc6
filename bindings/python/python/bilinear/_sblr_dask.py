"""Fitting SBLR on a dask array whose chunks live on the workers of a ``dask.distributed``
cluster (the Python side of ``sblr::distributed``).

The array ``X`` of shape ``(n, s, t)`` is split along the samples. Each chunk becomes a
native ``SblrChunk`` on the worker that computed it, and stays there: every later task on
it is pinned to that worker (``workers=[address]``, ``allow_other_workers=False``), so the
chunk's samples and its reduced features never travel. The solver of the Rust crate runs
on the client; each of its data passes and each product with a block's features is one
round of tasks, one per chunk:

- ``refresh_and_scores`` (the start of each block): the other factor and the block's
  variable (``(s + t) r`` values) go to every chunk, the chunk's decision values on its
  refreshed features come back (``n`` values in all);
- ``scores``: the block variable (``s r`` or ``r t`` values) goes to every chunk, the
  chunk's decision values come back (``n`` values in all);
- ``weighted_sum``: each chunk gets its slice of the ``n`` loss derivatives and sends back
  its share of the gradient (``s r`` or ``r t`` values);
- ``weighted_sample_sum`` (the spectral start, once per fit): each chunk gets its slice
  of ``n`` weights and sends back ``s t`` values.

Before each round the client checks that every chunk is still held, and while it waits
for a round it asks the scheduler every half second whether the workers holding the
chunks are alive: a worker that leaves the cluster makes the fit raise ``RuntimeError``
(the tasks pinned to it could never run) and leaves the client usable.
"""

import concurrent.futures
import itertools
import threading

import numpy as np

from . import _native
from ._keywords import _real

# Seconds between two checks that the chunks' workers are alive while a round runs.
_POLL = 0.5

_SLOTS = itertools.count(1)
_SLOTS_LOCK = threading.Lock()


def _next_slot():
    with _SLOTS_LOCK:
        return next(_SLOTS)


def is_dask_array(X):
    """Whether ``X`` is a dask array (without importing dask when it is not)."""
    return type(X).__module__.split(".")[:2] == ["dask", "array"]


# The tasks: module-level functions, pickled by reference.


def _make_chunk(block, s, t, index, first, dtype):
    block = _real(f"X (chunk {index})", block)
    return _native.SblrChunk(
        np.ascontiguousarray(block, dtype=np.float64), s, t, index, first, dtype
    )


def _n_samples(chunk):
    return chunk.n_samples


def _refresh(chunk, slot, side, w, rank):
    chunk.refresh(slot, side, w, rank)


def _refresh_and_scores(chunk, slot, side, w, x, rank):
    return chunk.refresh_and_scores(slot, side, w, x, rank)


def _scores(chunk, slot, side, w):
    return chunk.scores(slot, side, w)


def _weighted_sum(chunk, slot, side, c):
    return chunk.weighted_sum(slot, side, c)


def _weighted_sample_sum(chunk, weights):
    return chunk.weighted_sample_sum(weights)


def _release(chunk, slot):
    chunk.release(slot)


class Chunks:
    """The chunks of ``X`` built on the cluster of ``client``, each pinned to its worker."""

    def __init__(self, client, X, dtype):
        import distributed

        self._distributed = distributed
        self.client = client
        if X.ndim != 3:
            raise ValueError(
                f"a dask array X must have 3 dimensions (n, s, t); got shape {X.shape}"
            )
        if np.issubdtype(X.dtype, np.complexfloating):
            # (as check_array on NumPy input; the chunks' float64 conversion would drop
            # the imaginary parts with a warning only)
            raise ValueError("Complex data not supported: X has complex values")
        if any(len(c) != 1 for c in X.chunks[1:]):
            # Whole samples in every chunk.
            X = X.rechunk({1: -1, 2: -1})
        if any(np.isnan(c) for c in X.chunks[0]):
            X = X.compute_chunk_sizes()
        n, s, t = X.shape
        self.shape = (int(s), int(t))
        sizes = [int(c) for c in X.chunks[0]]
        firsts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
        parts = list(X.to_delayed().ravel())
        blocks = client.compute(parts)
        self.futures = [
            client.submit(_make_chunk, block, s, t, k, int(first), dtype, pure=False)
            for k, (block, first) in enumerate(zip(blocks, firsts))
        ]
        distributed.wait(self.futures)
        for k, f in enumerate(self.futures):
            if f.status == "error":
                f.result()  # raises the chunk's error (ValueError naming the chunk)
        del blocks
        who = client.who_has(self.futures)
        self.workers = [who[f.key][0] for f in self.futures]
        counts = self.run(_n_samples)
        if counts != sizes:
            raise ValueError(
                f"the chunks hold {counts} samples, the array declares {sizes}"
            )
        self.sizes = sizes
        self.bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        self.n = int(self.bounds[-1])

    def _check_chunks(self):
        """Raises when a chunk is no longer held (its worker died): local state only."""
        for k, f in enumerate(self.futures):
            if f.status != "finished":
                raise RuntimeError(
                    f"chunk {k} ({f.status}) is no longer held by the worker "
                    f"{self.workers[k]}: the worker left the cluster during the fit"
                )

    def _check_alive(self):
        """Raises when a worker holding a chunk left the cluster (asks the scheduler)."""
        alive = set(self.client.nthreads())
        for k, address in enumerate(self.workers):
            if address not in alive:
                raise RuntimeError(
                    f"the worker {address} holding chunk {k} left the cluster during the "
                    "fit"
                )
        self._check_chunks()

    def _gather(self, futures):
        distributed = self._distributed
        while True:
            try:
                distributed.wait(futures, timeout=_POLL)
                break
            except (TimeoutError, distributed.TimeoutError):
                try:
                    self._check_alive()
                except RuntimeError:
                    self.client.cancel(futures)
                    raise
        return self.client.gather(futures)

    def run(self, fn, *args, split=None):
        """``fn(chunk, *args)`` on every chunk's worker (with ``split``: each chunk's slice
        of that array appended), results in chunk order."""
        self._check_chunks()
        futures = []
        for k, (chunk, address) in enumerate(zip(self.futures, self.workers)):
            extra = ()
            if split is not None:
                a, b = self.bounds[k], self.bounds[k + 1]
                extra = (np.ascontiguousarray(split[a:b]),)
            futures.append(
                self.client.submit(
                    fn,
                    chunk,
                    *args,
                    *extra,
                    workers=[address],
                    allow_other_workers=False,
                    pure=False,
                )
            )
        return self._gather(futures)

    def close(self):
        """Releases the chunks on the workers."""
        self.client.cancel(self.futures)
        self.futures = []


class Driver:
    """One fit's calls on the chunks (what the native ``sblr_fit_chunks`` calls)."""

    def __init__(self, chunks, rank):
        self.chunks = chunks
        self.rank = rank
        self.slot = _next_slot()

    def refresh(self, side, w):
        self.chunks.run(_refresh, self.slot, side, w, self.rank)

    def refresh_and_scores(self, side, w_then_x):
        """The start of a block, one round: the other factor (``V^T`` for ``"u"``, ``U``
        for ``"v"``) then the block's variable, in one array."""
        s, t = self.chunks.shape
        split = self.rank * t if side == "u" else s * self.rank
        w, x = w_then_x[:split], w_then_x[split:]
        return np.concatenate(
            self.chunks.run(_refresh_and_scores, self.slot, side, w, x, self.rank)
        )

    def scores(self, side, w):
        return np.concatenate(self.chunks.run(_scores, self.slot, side, w))

    def weighted_sum(self, side, c):
        return _sum_in_order(self.chunks.run(_weighted_sum, self.slot, side, split=c))

    def weighted_sample_sum(self, weights):
        return _sum_in_order(self.chunks.run(_weighted_sample_sum, split=weights))

    def release(self):
        try:
            self.chunks.run(_release, self.slot)
        except RuntimeError:
            pass


def _sum_in_order(parts):
    out = np.array(parts[0], dtype=np.float64, copy=True)
    for p in parts[1:]:
        out += p
    return out


def fit(client, X, y_index, n_classes, params, dtype):
    """The native model of SBLR fitted on the dask array ``X`` with class indices
    ``y_index``: one binary model for two classes, else one-vs-all with the classes
    fitted in parallel (one client thread per class, at most 8 at a time, their rounds
    interleaved on the cluster)."""
    chunks = Chunks(client, X, dtype)
    try:
        if len(y_index) != chunks.n:
            raise ValueError(
                f"X has {chunks.n} samples but y has {len(y_index)} labels"
            )
        s, t = chunks.shape

        def one(c):
            signs = np.where(y_index == c, 1.0, -1.0)
            driver = Driver(chunks, int(params["rank"]))
            try:
                return _native.sblr_fit_chunks(driver, signs, s, t, params)
            finally:
                driver.release()

        if n_classes == 2:
            return one(1)
        with concurrent.futures.ThreadPoolExecutor(max_workers=min(n_classes, 8)) as pool:
            models = list(pool.map(one, range(n_classes)))
        return _native.sblr_one_vs_all(models)
    finally:
        chunks.close()
