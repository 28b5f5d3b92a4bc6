"""Distributed training of :class:`bilinear.BilinearTagger` (learners ``sp``, ``bol``,
``bcd``) on a ``dask.distributed`` cluster by iterative parameter mixing (McDonald, Hall and
Mann 2010): every worker keeps its shards of the sentences, encoded once; in each epoch
each shard runs one epoch of the learner from the current mixed weights and the weights
are averaged (uniformly) on the client and sent back. Only the weights travel per epoch.
What is mixed for each learner: ``online_bilinear::distributed`` (crate docs) and
``docs/scaling-taggers.md``.

The work, in order (``fit_distributed``):

1. each partition is validated and turned into the crate's sentences on its worker (a
   ``TaggerPartition``; partition ``j`` goes to worker ``j mod n_workers``, and every
   later task of the partition is pinned there with ``allow_other_workers=False``);
2. each partition's feature counts come back once (JSON) and are merged into the plan
   (dictionary, tags, settings) on the client, which is sent once to every worker;
3. each partition is encoded with the plan (a ``TaggerShard``) on its worker;
4. per epoch: the mixed weights (bytes) go to every worker, each shard's weights (bytes)
   come back, the client mixes them; it stops as the one-machine fit does (``max_iter``
   epochs, or an epoch in which at most ``tol`` of the sentences caused an update).

If a worker holding a shard leaves during the fit, the fit raises ``RuntimeError`` naming
it, releases its futures and leaves the client usable.
"""

import asyncio
import time

from . import _native

_POLL_SECONDS = 0.5
# Connecting to a worker to send it the weights: a worker that does not answer in this
# time fails the fit (the data itself may take longer).
_SCATTER_TIMEOUT_SECONDS = 120


def _scheduler_workers(dask_scheduler=None):
    """The addresses of the workers the scheduler knows (run on the scheduler)."""
    return sorted(dask_scheduler.workers)


def _workers(client):
    """The addresses of the cluster's workers now, asked of the scheduler (the client's
    cached scheduler information can be refreshed concurrently without the worker list)."""
    return client.run_on_scheduler(_scheduler_workers)


def _partition(part, index):
    """Validates partition ``index`` (an iterable of ``(tokens, tags)``) and converts it:
    a ``ValueError`` names the partition and the sentence."""
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
    return _native.TaggerPartition(columns, tags, index)


def _default_templates(partition):
    return partition.default_templates()


def _count(partition, templates, bias):
    return _native.tagger_count(partition, templates, bias)


def _shard(plan, partition):
    return _native.TaggerShard(plan, partition)


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


class _Tracker:
    """The futures of one fit, pinned to workers; waits for results while checking that
    the workers holding shards are still there."""

    def __init__(self, client):
        self.client = client
        self.futures = []

    def keep(self, future):
        self.futures.append(future)
        return future

    def submit(self, fn, *args, worker, **kw):
        return self.keep(self.client.submit(fn, *args, workers=[worker],
                                            allow_other_workers=False, pure=False, **kw))

    def gather(self, futures, workers):
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
            self.check_workers(workers)

    def check_workers(self, workers):
        """Raises ``RuntimeError`` if a worker of ``workers`` has left the cluster."""
        alive = set(_workers(self.client))
        gone = sorted(set(workers) - alive)
        if gone:
            raise RuntimeError(f"worker {gone[0]} left the cluster during the fit (its "
                               f"shards are lost); the fit is abandoned")

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
    ``model_``, ``tags_``, ``n_iter_`` and ``distributed_`` (a dict: ``n_shards``,
    ``workers``, ``setup_seconds``; per epoch ``epoch_seconds`` (as the client sees it),
    ``shard_seconds`` (the slowest shard's own epoch), ``mix_seconds`` (the client's mix),
    ``bytes_down`` and ``bytes_up`` (the weights' bytes sent to and received from the
    workers); ``n_features``)."""
    from distributed import get_client

    if estimator.learner not in ("sp", "bol", "bcd"):
        raise ValueError(f"learner {estimator.learner!r}: distributed training runs the "
                         f"online learners 'sp', 'bol' and 'bcd'")
    client = client if client is not None else get_client()
    parts, is_bag = _partitions(data)
    workers = _workers(client)
    if not workers:
        raise RuntimeError("the client's cluster has no worker")
    where = [workers[j % len(workers)] for j in range(len(parts))]
    started = time.perf_counter()
    t = _Tracker(client)
    try:
        raw = []
        for j, part in enumerate(parts):
            if is_bag:
                raw.append(t.keep(client.compute(part, workers=[where[j]],
                                                 allow_other_workers=False)))
            else:
                raw.append(t.keep(client.scatter([part], workers=[where[j]], hash=False)[0]))
        partitions = [t.submit(_partition, raw[j], j, worker=where[j])
                      for j in range(len(parts))]
        templates = estimator.templates
        if templates is None:
            choices = t.gather([t.submit(_default_templates, p, worker=where[j])
                                for j, p in enumerate(partitions)], where)
            templates = "segmentation" if all(c == "segmentation" for c in choices) else "word"
        bias = estimator.transitions_only is True
        counts = t.gather([t.submit(_count, p, templates, bias, worker=where[j])
                           for j, p in enumerate(partitions)], where)
        plan = _native.tagger_plan(
            counts, len(parts), learner_name=estimator.learner, knobs=estimator._knobs())
        del counts
        [plan_future] = client.scatter([plan], broadcast=True, hash=False)
        t.keep(plan_future)
        shards = [t.submit(_shard, plan_future, p, worker=where[j])
                  for j, p in enumerate(partitions)]
        sentences = sum(t.gather([t.submit(_n_nonempty, s, worker=where[j])
                                  for j, s in enumerate(shards)], where))
        setup = time.perf_counter() - started
        weights = plan.initial_weights()
        history, epoch_seconds, bytes_down, bytes_up = [], [], [], []
        shard_seconds, mix_seconds = [], []
        fit_started = time.perf_counter()
        while True:
            epoch_started = time.perf_counter()
            # To every worker of the cluster (a copy per worker), not only those of
            # `where`: a scatter restricted to a worker that has just died would wait for it.
            t.check_workers(where)
            n_receivers = len(_workers(client))
            try:
                [sent] = client.scatter([weights], hash=False, broadcast=True, direct=True,
                                        timeout=_SCATTER_TIMEOUT_SECONDS)
            except Exception as e:
                t.check_workers(where)
                raise RuntimeError(f"sending the weights of epoch {len(history) + 1} to the "
                                   f"workers failed: {e}") from e
            t.keep(sent)
            results = t.gather([t.submit(_run_epoch, s, sent, plan.shard_seed(j),
                                         worker=where[j])
                                for j, s in enumerate(shards)], where)
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
        model = plan.finish(weights, history, reason)
    finally:
        t.release()
    estimator.model_ = model
    estimator.tags_ = model.tags
    estimator.n_iter_ = model.n_iter
    estimator.distributed_ = {
        "n_shards": len(parts),
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
