"""Fitting SBLR on a dask array whose chunks live on the workers of a ``dask.distributed``
cluster (the Python side of ``sblr::distributed``), and predicting on a dask array.

The array ``X`` of shape ``(n, s, t)`` is split along the samples. Each block of ``X`` is
turned into a native ``SblrChunk`` by a task that depends on the task computing the block
(Dask runs it where the block is, unless it moves the block; when it fuses the two, in
the same task), and stays on the worker that built it: every later task on it is pinned
to that worker (``workers=[address]``, ``allow_other_workers=False``), so the chunk's
samples and its reduced features never travel. The blocks of ``X`` (and the labels, when
``y`` is a dask array too) are computed in one graph, each once; a block is released as
soon as its chunk exists. A block without samples (e.g. after ``X[mask]``) gives no
chunk. The solver of the Rust crate runs on the client; each of its data passes and each
product with a block's features is one round of tasks, one per chunk:

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
for the chunks to be built or for a round, it asks the scheduler every ``_POLL`` seconds
about the workers its tasks wait on (``_dask_cluster.Holders``): a worker that left the
cluster, or that Dask has kept paused for ``PAUSE_GRACE_SECONDS`` (its memory above the
pause fraction of its limit: the chunks cannot be spilled, so the pause may not end),
makes the fit raise ``RuntimeError`` naming the worker, and leaves the client usable.
Dask's memory accounting sees each chunk's bytes (``SblrChunk.__sizeof__``).
"""

import concurrent.futures
import itertools
import math
import threading
import uuid

import numpy as np

from . import _dask_cluster, _native
from ._keywords import _real

# Seconds between two checks of the workers the client waits on.
_POLL = 0.25

# The dtypes a chunk reads without a conversion.
_NATIVE_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))

_SLOTS = itertools.count(1)
_SLOTS_LOCK = threading.Lock()


def _next_slot():
    with _SLOTS_LOCK:
        return next(_SLOTS)


def is_dask_array(X):
    """Whether ``X`` is a dask array (without importing dask when it is not)."""
    return type(X).__module__.split(".")[:2] == ["dask", "array"]


def _known(v):
    """Whether a dask dimension is known (not NaN)."""
    return not (isinstance(v, float) and math.isnan(v))


# The tasks: module-level functions, pickled by reference.


def _make_chunk(block, s, t, index, first, dtype):
    """The ``SblrChunk`` of ``block`` (chunk ``index``, whose first sample is sample
    ``first`` of the data, ``None`` when not known yet), or ``None`` for a block without
    samples. A ``float64`` or ``float32`` block is read as it is (the chunk's buffer is
    its only copy); another dtype is converted to ``float64`` first."""
    block = _real(f"X (chunk {index})", block)
    if block.ndim == 3 and block.shape[0] == 0:
        return None
    if block.dtype not in _NATIVE_DTYPES:
        block = np.asarray(block, dtype=np.float64)
    return _native.SblrChunk(
        block, s, t, index, None if first is None else int(first), dtype
    )


def _chunk_of_block(block, s, t, dtype, first_known, block_info=None):
    """``_make_chunk`` as a ``map_blocks`` function (the block's index and first sample
    from ``block_info``)."""
    info = block_info[0]
    index = int(info["chunk-location"][0])
    first = info["array-location"][0][0] if first_known else None
    return _make_chunk(block, s, t, index, first, dtype)


def _n_samples(chunk):
    return 0 if chunk is None else chunk.n_samples


def _check_finite(chunk, first):
    chunk.check_finite(first)


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


def _waiting_on(client, keys):
    """``({address: [key, ...]}, unassigned)``, asked of the scheduler: for each of
    ``keys`` not computed yet, the workers that run a task it waits on (itself or one of
    its dependencies, not yet computed), and whether some of them wait for a worker
    (queued, or no worker can run them)."""

    def on_scheduler(keys, dask_scheduler=None):
        # (defined here: sent by value, run where bilinear may not be installed)
        on, unassigned = {}, False
        for key in keys:
            ts = dask_scheduler.tasks.get(key)
            if ts is None or ts.state in ("memory", "erred"):
                continue
            stack, seen = [ts], set()
            while stack:
                dts = stack.pop()
                if id(dts) in seen or dts.state == "memory":
                    continue
                seen.add(id(dts))
                if dts.processing_on is not None:
                    on.setdefault(dts.processing_on.address, []).append(key)
                elif dts.state in ("queued", "no-worker"):
                    unassigned = True
                stack.extend(dts.dependencies)
        return on, unassigned

    return client.run_on_scheduler(on_scheduler, keys)


def _describe(indices):
    return _dask_cluster.describe(indices, "chunk {}", "chunks {}")


class Chunks:
    """The chunks of ``X`` built on the cluster of ``client``, each pinned to its worker.

    With ``y`` a dask array, its blocks are computed in the same graph as ``X``'s (each
    shared task once); ``labels`` (a function) is applied to its values as soon as they
    are in, before the chunks are waited for, and its result kept in ``self.y``."""

    def __init__(self, client, X, dtype, y=None, labels=None):
        import distributed

        self._distributed = distributed
        self.client = client
        self.futures = []
        self._failure = None
        # The threads gathering the rounds' results (one per class fit running at once).
        self._gatherer = concurrent.futures.ThreadPoolExecutor(
            max_workers=8, thread_name_prefix="sblr-gather"
        )
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
        n, s, t = X.shape
        self.shape = (int(s), int(t))
        declared = list(X.chunks[0])
        first_known = all(_known(c) for c in declared)
        n_blocks = X.numblocks[0]
        built = X.map_blocks(
            _chunk_of_block,
            int(s),
            int(t),
            dtype,
            first_known,
            dtype=object,
            drop_axis=[1, 2],
            chunks=((1,) * n_blocks,),
            meta=np.empty((0,), dtype=object),
            name=f"sblr-chunk-{uuid.uuid4().hex}",
        )
        y_dask = y is not None and is_dask_array(y)
        # One graph: the tasks X and y share run once.
        persisted = client.persist([built, y] if y_dask else [built])
        by_key = {f.key: f for f in distributed.futures_of(persisted[0])}
        self.futures = [by_key[key] for key in _flat_keys(built)]
        self.index = list(range(n_blocks))
        y_futures = []
        if y_dask:
            y_by_key = {f.key: f for f in distributed.futures_of(persisted[1])}
            y_futures = [y_by_key[key] for key in _flat_keys(persisted[1])]
        del persisted, by_key, built
        self.holders = _dask_cluster.Holders(client, {})
        try:
            if y_dask:
                self._wait(y_futures, what="the labels y")
                values = self._gather(y_futures, what="the labels y", building=True)
                del y_futures
                y = np.concatenate([np.atleast_1d(v) for v in values]) if values else []
            self.y = labels(y) if labels is not None else y
            self._wait(self.futures)
            for k, f in enumerate(self.futures):
                if f.status == "error":
                    f.result()  # raises the chunk's error (ValueError naming the chunk)
            who = client.who_has(self.futures)
            for k, f in enumerate(self.futures):
                if not who.get(f.key):
                    raise RuntimeError(
                        f"chunk {k} was lost with its worker as soon as it was built"
                    )
            self.workers = [who[f.key][0] for f in self.futures]
            self._set_holders()
            counts = self.run(_n_samples)
            if first_known and counts != [int(c) for c in declared]:
                raise ValueError(
                    f"the chunks hold {counts} samples, the array declares "
                    f"{[int(c) for c in declared]}"
                )
            # Blocks without samples give no chunk.
            keep = [k for k, c in enumerate(counts) if c > 0]
            self.futures = [self.futures[k] for k in keep]
            self.workers = [self.workers[k] for k in keep]
            self.index = [self.index[k] for k in keep]
            self.sizes = [counts[k] for k in keep]
            self.bounds = np.concatenate([[0], np.cumsum(self.sizes)]).astype(int)
            self.n = int(self.bounds[-1])
            self._set_holders()
            if not first_known:
                # Now that each chunk's first sample is known: its values' check.
                self.run(_check_finite, each=[(int(b),) for b in self.bounds[:-1]])
        except BaseException:
            self.close()
            raise

    def _set_holders(self):
        """The holders checked while a round runs: the workers of the chunks."""
        self.holders = _dask_cluster.Holders.of(
            self.client, self.workers, self.index, "chunk {}", "chunks {}"
        )

    def _check_chunks(self):
        """Raises when a chunk is no longer held (its worker died): local state only."""
        for k, f in enumerate(self.futures):
            if f.status != "finished":
                raise RuntimeError(
                    f"chunk {self.index[k]} ({f.status}) is no longer held by the worker "
                    f"{self.workers[k]}: the worker left the cluster during the fit"
                )

    def _check_building(self, futures, what):
        """Raises when a worker the chunks (or ``what``) being built wait on left the
        cluster or stayed paused (asks the scheduler)."""
        keys = [f.key for f in futures if f.status == "pending"]
        on, unassigned = _waiting_on(self.client, keys)
        names = {f.key: k for k, f in enumerate(futures)}
        self.holders.holders = {
            address: what
            or _describe([self.index[names[key]] for key in waiting]) + " (being built)"
            for address, waiting in on.items()
        }
        if unassigned and not _dask_cluster.running(self.client):
            # Tasks waiting for a worker, and none that runs: the paused ones are the
            # holders.
            for address, state in _dask_cluster.workers(self.client).items():
                if state == "paused":
                    self.holders.holders.setdefault(
                        address, what or "the chunks waiting to be built"
                    )
        self.holders.check()

    def _wait(self, futures, what=None, building=True):
        """Waits for ``futures``, checking every ``_POLL`` seconds the workers they wait
        on; cancels them and raises ``RuntimeError`` when one left the cluster or stayed
        paused."""
        distributed = self._distributed
        while True:
            try:
                distributed.wait(futures, timeout=_POLL)
                done = True
            except (TimeoutError, distributed.TimeoutError):
                done = False
            if done and all(f.status in ("finished", "error") for f in futures):
                return
            # Still running, or done without a result (cancelled, lost with its worker).
            self._check(futures, what, building)
            if done:
                raise RuntimeError(
                    "tasks of the fit were cancelled or lost: "
                    + ", ".join(sorted({f.status for f in futures}))
                )

    def _check(self, futures, what=None, building=False):
        """The checks of :meth:`_wait`; cancels ``futures`` when one fails, and keeps the
        failure: every later round raises it at once (the solver may ask for a round or
        two more before it sees the first failure)."""
        try:
            if building:
                self._check_building(futures, what)
            else:
                self.holders.check()
                self._check_chunks()
        except RuntimeError as e:
            self._failure = e
            self.client.cancel(futures)
            raise

    def _gather(self, futures, what=None, building=False):
        """The results of ``futures`` (finished or failed: a failed task's exception is
        raised), gathered in a helper thread so that their workers can be checked every
        ``_POLL`` seconds meanwhile: a result whose worker died after its task finished
        would otherwise be waited for forever (the task, pinned to that worker, can never
        run again)."""
        job = self._gatherer.submit(self.client.gather, futures)
        while True:
            try:
                return job.result(timeout=_POLL)
            except concurrent.futures.TimeoutError:
                self._check(futures, what, building)

    def run(self, fn, *args, split=None, each=None):
        """``fn(chunk, *args)`` on every chunk's worker (with ``split``: each chunk's slice
        of that array appended; with ``each``: each chunk's tuple of that list appended),
        results in chunk order."""
        if self._failure is None:
            try:
                self._check_chunks()
            except RuntimeError as e:
                self._failure = e
        if self._failure is not None:
            raise RuntimeError(str(self._failure))
        futures = []
        for k, (chunk, address) in enumerate(zip(self.futures, self.workers)):
            extra = ()
            if split is not None:
                a, b = self.bounds[k], self.bounds[k + 1]
                extra = (np.ascontiguousarray(split[a:b]),)
            if each is not None:
                extra = extra + tuple(each[k])
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
        self._wait(futures, building=False)
        return self._gather(futures)

    def close(self):
        """Releases the chunks on the workers."""
        if self.futures:
            self.client.cancel(self.futures)
        self.futures = []
        self._gatherer.shutdown(wait=False)


def _flat_keys(collection):
    """The keys of a dask array's blocks in order, flattened."""
    keys = collection.__dask_keys__()
    out = []

    def walk(k):
        if isinstance(k, list):
            for item in k:
                walk(item)
        else:
            out.append(k)

    walk(keys)
    return out


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


def fit(client, X, y, labels, params, dtype):
    """The native model of SBLR fitted on the dask array ``X`` with the labels ``y``
    (NumPy or dask), whose class indices and number of classes are ``labels(y)`` (a
    function, called on the computed ``y``: as soon as the graph computing it with ``X``
    has, before the chunks are waited for): one binary model for two classes, else
    one-vs-all with the classes fitted in parallel (one client thread per class, at most
    8 at a time, their rounds interleaved on the cluster)."""
    if not is_dask_array(y):
        y_index, n_classes = labels(y)
        chunks = Chunks(client, X, dtype)
    else:
        chunks = Chunks(client, X, dtype, y=y, labels=labels)
        y_index, n_classes = chunks.y
    try:
        if chunks.n == 0:
            raise ValueError("X has no samples: every chunk is empty")
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
