"""Distributed training of :class:`bilinear.BilinearTagger` (learners ``sp``, ``bol``,
``bcd``) on a ``dask.distributed`` cluster by iterative parameter mixing (McDonald, Hall and
Mann 2010): every worker keeps its shards of the sentences, encoded once; in each epoch
each shard runs one epoch of the learner from the current mixed weights and the weights
are averaged (uniformly) on the client and sent back. Only the weights travel per epoch.
What is mixed for each learner: ``online_bilinear::distributed`` (crate docs) and
``docs/scaling-taggers.md``.

The work, in order (``fit_distributed``):

0. the settings, the client and ``on_epoch`` are checked before any data is read (the
   one-machine fit's checks; a ``ValueError`` names the keyword);
1. each partition is validated (a list's on the client, before it is sent; a bag's on the
   worker that computes it) and turned into the crate's sentences on its worker (a
   ``TaggerPartition``; partition ``j`` goes to the ``j mod n``-th of the ``n`` running
   workers, and every later task of the partition is pinned there with
   ``allow_other_workers=False``); partitions without a non-empty sentence are left out
   (a shard that updates nothing would pull every mix back to the weights it was given);
2. each remaining partition's feature counts come back once (JSON) and are merged into
   the plan (dictionary, tags, settings) on the client, which is sent once to every
   worker; shard ``i`` is the ``i``-th remaining partition (shard 0 shuffles with the
   one-machine seed);
3. each partition is encoded with the plan (a ``TaggerShard``) on its worker;
4. per epoch: the mixed weights (bytes) go to every worker, each shard's weights (bytes)
   come back, the client mixes them; it stops as the one-machine fit does (``max_iter``
   epochs, or an epoch in which at most ``tol`` of the sentences caused an update).

If a worker holding a partition leaves the cluster during the fit, or Dask keeps it paused
(its memory above the pause fraction of its limit) for
``_dask_cluster.PAUSE_GRACE_SECONDS``, the fit raises ``RuntimeError`` naming it
(``_dask_cluster.Holders``), releases its futures and leaves the client usable.
"""

import asyncio
import time
import warnings

from . import _native
from ._dask_cluster import (
    PAUSE_GRACE_SECONDS,
    Holders,
    client_of,
    running,
    running_or_raise,
)

_POLL_SECONDS = 0.5
# A send of the plan, a list partition or the weights that fails is tried again for this
# long (the holders checked between tries): Dask's scatter fails when every worker it
# would send to is paused at that moment, which a fit should outwait unless the pause
# lasts (then ``Holders.check`` fails the fit).
_SEND_RETRY_SECONDS = 2 * PAUSE_GRACE_SECONDS
# A shard this many times larger (in non-empty sentences) than the smallest is warned
# about: the mix is uniform, so the small one counts as much as the large one.
_UNEVEN_RATIO = 2.0


def _converted(part, index):
    """Validates partition ``index`` (an iterable of ``(tokens, tags)``) and converts it to
    the crate's columns and tags, with the number of its non-empty sentences: a
    ``ValueError`` names the partition and the sentence. Pure Python, so a list partition
    is checked on the client before anything is sent (a token Dask cannot send is then
    the one-machine fit's ``ValueError``, not Dask's ``TypeError``) and a bag's partition
    on the worker that computes it."""
    from ._tagger import _columns, _tags

    X, y = [], []
    for s, item in enumerate(part):
        try:
            tokens, tags = item
        except (TypeError, ValueError):
            raise ValueError(f"partition {index}, sentence {s}: expected a (tokens, tags) "
                             f"pair") from None
        if isinstance(tokens, str) or isinstance(tags, str):
            raise ValueError(f"partition {index}, sentence {s}: tokens and tags must be "
                             f"lists, not strings")
        tokens, tags = list(tokens), list(tags)
        if len(tokens) != len(tags):
            raise ValueError(f"partition {index}, sentence {s}: {len(tokens)} tokens but "
                             f"{len(tags)} tags")
        X.append(tokens)
        y.append(tags)
    try:
        columns, tags = _columns(X), _tags(y)
    except ValueError as e:
        raise ValueError(f"partition {index}: {e}") from None
    return columns, tags, sum(1 for t in y if t)


def _native_partition(converted, index):
    """The native partition of :func:`_converted`'s output (with the number of its
    non-empty sentences: a partition without one is left out)."""
    columns, tags, n_nonempty = converted
    return _native.TaggerPartition(columns, tags, index), n_nonempty


def _partition(part, index):
    """A bag's partition ``index``, validated and converted on its worker."""
    return _native_partition(_converted(part, index), index)


def _partition_size(partition):
    return partition[1]


def _default_templates(partition):
    return partition[0].default_templates()


def _count(partition, templates, bias):
    return _native.tagger_count(partition[0], templates, bias)


def _shard(plan, partition):
    return _native.TaggerShard(plan, partition[0])


def _n_nonempty(shard):
    return shard.n_nonempty


def _run_epoch(shard, weights, seed):
    return shard.run_epoch(weights, seed)


def _partitions(data):
    """The partitions of ``data``: a ``dask.bag.Bag`` (its delayed partitions) or a list
    of partitions (each a list of ``(tokens, tags)``)."""
    try:
        import dask.bag as db
    except ImportError:  # pragma: no cover - dask is needed for a distributed fit
        db = None
    if db is not None and isinstance(data, db.Bag):
        return list(data.to_delayed()), True
    if isinstance(data, (str, bytes)) or not hasattr(data, "__iter__"):
        raise ValueError("data must be a dask.bag.Bag of (tokens, tags) or a list of "
                         "partitions, each a list of (tokens, tags)")
    parts = list(data)
    if not parts:
        raise ValueError("no partition: give at least one partition of sentences")
    for j, part in enumerate(parts):
        if isinstance(part, (str, bytes, tuple)) or not hasattr(part, "__iter__"):
            raise ValueError(f"partition {j}: expected a list of (tokens, tags) sentences")
    return [list(p) for p in parts], False


def _check_settings(estimator):
    """The knobs of the fit (``estimator._knobs()``, read once: a ``RandomState`` is drawn
    from once) after the one-machine fit's checks, made before any data is read: the
    types (``_knobs``), the templates' name and the ranges of the learner's parameters
    (the native checks, ``tagger_plan``'s own)."""
    knobs = estimator._knobs()
    if estimator.templates is not None:
        # The name is checked before any sentence is counted.
        _native.tagger_count(_native.TaggerPartition([], [], 0), estimator.templates,
                             estimator.transitions_only is True)

    _native.tagger_check(learner_name=estimator.learner, knobs=knobs)
    return knobs


def _no_running_worker(error):
    """Whether a failed scatter failed for want of a running worker to send to (every
    worker paused at that moment, or a connection lost), which can pass: Dask raises
    ``TimeoutError`` or ``ValueError("No valid workers found")`` when no worker runs,
    ``ValueError("Can not use replicate ...")`` when none runs for a broadcast, and an
    ``OSError`` (``CommClosedError``) for a lost connection."""
    if isinstance(error, (TimeoutError, OSError)):
        return True
    message = str(error)
    return "No valid workers found" in message or "Can not use replicate" in message


class _Tracker:
    """The futures of one fit, pinned to workers; waits for results while checking
    (``Holders.check``) that the workers holding partitions are still there and not
    paused for good."""

    def __init__(self, client):
        self.client = client
        self.futures = []
        self.holders = None  # a Holders, set once the partitions have their workers

    def keep(self, future):
        self.futures.append(future)
        return future

    def submit(self, fn, *args, worker, **kw):
        return self.keep(self.client.submit(fn, *args, workers=[worker],
                                            allow_other_workers=False, pure=False, **kw))

    def send(self, value, what, worker=None):
        """A future of ``value`` scattered to ``worker``, or to every running worker (a
        copy each) when ``worker`` is None: every worker, not only the holders, because a
        scatter restricted to a worker that has just died would wait for it. A scatter
        that finds no running worker to send to (all paused, or a connection lost) is
        tried again for ``_SEND_RETRY_SECONDS``, the holders checked between tries; any
        other error is raised at once."""
        started = time.monotonic()
        while True:
            try:
                [future] = self.client.scatter(
                    [value], hash=False, direct=True, broadcast=worker is None,
                    workers=None if worker is None else [worker], timeout=_POLL_SECONDS)
                return self.keep(future)
            except (TimeoutError, OSError, ValueError) as e:
                if not _no_running_worker(e):
                    raise
                self.check()
                if time.monotonic() - started >= _SEND_RETRY_SECONDS:
                    raise RuntimeError(f"sending {what} to the workers failed: "
                                       f"{type(e).__name__}: {e}") from e
                time.sleep(_POLL_SECONDS)

    def gather(self, futures):
        from distributed import wait

        futures = list(futures)
        while True:
            try:
                wait(futures, timeout=_POLL_SECONDS)
            except (TimeoutError, asyncio.TimeoutError):
                pass
            for f in futures:
                if f.status == "error":
                    f.result()  # raises the task's own exception
            if all(f.status == "finished" for f in futures):
                return self.client.gather(futures)
            self.check()

    def check(self):
        """``RuntimeError`` if a holder has left the cluster or stayed paused."""
        if self.holders is not None:
            self.holders.check()

    def release(self):
        if self.futures:
            try:
                self.client.cancel(self.futures, force=True)
            except Exception:  # pragma: no cover - best effort on a broken cluster
                pass
        self.futures = []


def fit_distributed(estimator, data, client=None, on_epoch=None):
    """Fits ``estimator`` (a :class:`~bilinear.BilinearTagger`) on ``data`` through
    ``client`` (default: the current ``dask.distributed`` client). Sets the estimator's
    ``model_``, ``tags_``, ``n_iter_`` and ``distributed_`` (a dict: ``n_shards`` (the
    partitions with a non-empty sentence), ``workers``, ``setup_seconds``; per epoch
    ``epoch_seconds`` (as the client sees it), ``shard_seconds`` (the slowest shard's own
    epoch), ``mix_seconds`` (the client's mix), ``bytes_down`` and ``bytes_up`` (the
    weights' bytes sent to and received from the workers); ``n_features``)."""
    if estimator.learner not in ("sp", "bol", "bcd"):
        raise ValueError(f"learner {estimator.learner!r}: distributed training runs the "
                         f"online learners 'sp', 'bol' and 'bcd'")
    knobs = _check_settings(estimator)
    if on_epoch is not None and not callable(on_epoch):
        raise ValueError(f"on_epoch must be a callable or None, not "
                         f"{type(on_epoch).__name__}")
    client = client_of(client)
    parts, is_bag = _partitions(data)
    # Asked of the scheduler (the client's cached scheduler_info() can be read empty
    # while it is refreshed); a paused worker gets no partition.
    workers = running_or_raise(client)
    where = [workers[j % len(workers)] for j in range(len(parts))]
    started = time.perf_counter()
    t = _Tracker(client)
    try:
        t.holders = Holders.of(client, where, range(len(parts)), "partition {}", "partitions {}")
        partitions = []
        for j, part in enumerate(parts):
            if is_bag:
                raw = t.keep(client.compute(part, workers=[where[j]],
                                            allow_other_workers=False))
                partitions.append(t.submit(_partition, raw, j, worker=where[j]))
            else:
                converted = t.send(_converted(part, j), f"partition {j}", worker=where[j])
                partitions.append(t.submit(_native_partition, converted, j,
                                           worker=where[j]))
        sizes = t.gather([t.submit(_partition_size, p, worker=where[j])
                          for j, p in enumerate(partitions)])
        # A partition without a non-empty sentence is left out: its shard would update
        # nothing and pull every mix back to the weights it was given.
        kept = [j for j, n in enumerate(sizes) if n > 0]
        if not kept:
            which = ("its partition has" if len(parts) == 1 else
                     f"its {len(parts)} partitions have")
            raise ValueError(f"data has no sentence to train on ({which} no non-empty "
                             "sentence)")
        nonempty = [sizes[j] for j in kept]
        if max(nonempty) >= _UNEVEN_RATIO * min(nonempty):
            warnings.warn(
                f"the partitions' sizes differ: {max(nonempty)} non-empty sentences in the "
                f"largest, {min(nonempty)} in the smallest; the shards' weights are mixed "
                "uniformly, so a small partition counts as much as a large one (give "
                "partitions of near-equal sizes: docs/scaling-taggers.md)", stacklevel=3)
        partitions = [partitions[j] for j in kept]
        where = [where[j] for j in kept]
        t.holders = Holders.of(client, where, kept, "partition {}", "partitions {}")
        templates = estimator.templates
        if templates is None:
            choices = t.gather([t.submit(_default_templates, p, worker=w)
                                for p, w in zip(partitions, where)])
            templates = "segmentation" if all(c == "segmentation" for c in choices) else "word"
        bias = estimator.transitions_only is True
        counts = t.gather([t.submit(_count, p, templates, bias, worker=w)
                           for p, w in zip(partitions, where)])
        plan = _native.tagger_plan(
            counts, len(partitions), learner_name=estimator.learner, knobs=knobs)
        del counts
        plan_future = t.send(plan, "the plan")
        shards = [t.submit(_shard, plan_future, p, worker=w)
                  for p, w in zip(partitions, where)]
        sentences = sum(t.gather([t.submit(_n_nonempty, s, worker=w)
                                  for s, w in zip(shards, where)]))
        setup = time.perf_counter() - started
        weights = plan.initial_weights()
        history, epoch_seconds, bytes_down, bytes_up = [], [], [], []
        shard_seconds, mix_seconds = [], []
        fit_started = time.perf_counter()
        while True:
            epoch_started = time.perf_counter()
            t.check()
            n_receivers = len(running(client))
            sent = t.send(weights, f"the weights of epoch {len(history) + 1}")
            results = t.gather([t.submit(_run_epoch, s, sent, plan.shard_seed(i), worker=w)
                                for i, (s, w) in enumerate(zip(shards, where))])
            client.cancel([sent])
            outs = [w for w, _ in results]
            bytes_down.append(len(weights) * n_receivers)
            bytes_up.append(sum(len(w) for w in outs))
            mix_started = time.perf_counter()
            mixed = plan.mix(weights, outs)
            mix_seconds.append(time.perf_counter() - mix_started)
            infos = [info for _, info in results]
            shard_seconds.append(max(i["seconds"] for i in infos))
            total = {
                "epoch": infos[0]["epoch"],
                "mistakes": sum(i["mistakes"] for i in infos),
                "token_errors": sum(i["token_errors"] for i in infos),
                "tokens": sum(i["tokens"] for i in infos),
                "seconds": time.perf_counter() - fit_started,
            }
            history.append(total)
            weights = mixed
            epoch_seconds.append(time.perf_counter() - epoch_started)
            if on_epoch is not None:
                on_epoch(dict(total))
            reason = plan.stop_after(total, sentences)
            if reason is not None:
                break
        model = plan.finish(weights, history, sentences, reason)
    finally:
        t.release()
    estimator.model_ = model
    estimator.tags_ = model.tags
    estimator.n_iter_ = model.n_iter
    estimator.distributed_ = {
        "n_shards": len(shards),
        "workers": sorted(set(where)),
        "setup_seconds": setup,
        "epoch_seconds": epoch_seconds,
        "shard_seconds": shard_seconds,
        "mix_seconds": mix_seconds,
        "bytes_down": bytes_down,
        "bytes_up": bytes_up,
        "n_features": plan.n_features,
    }
    return estimator
