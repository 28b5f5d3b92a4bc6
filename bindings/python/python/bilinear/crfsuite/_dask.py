"""``CRF.fit`` on a Dask cluster: the training data stays on the workers, one shard per
partition; per iteration only weights, gradients or trainer states travel
(``docs/crfsuite.md``, "Training on a Dask cluster"; the protocol is
``chain_crf::distributed``'s).

Steps of a fit:

0. the training parameters and the client are checked before any data is read;
1. every partition is read on a worker into a shard, by the reader of the one-machine
   fit (a ``ValueError`` names the partition, the sequence in it and the position);
2. the shards' summaries (names and counts) come to the client, which merges them into
   the shared dictionaries and feature set; each shard receives its id remapping and the
   feature set once, and keeps its sequences in the shared ids;
3. ``lbfgs``: the optimizer runs on the client; each evaluation sends the weights to
   every shard and gathers each shard's negative log-likelihood and gradient. ``ap``,
   ``pa``, ``arow``: each epoch sends the mixed state to every shard and gathers each
   shard's state after one epoch on its sequences (iterative parameter mixing).

Shards are stateful objects pinned to the worker that read them (they do not pickle: Dask
can neither move nor spill them). If that worker leaves the cluster during the fit, or
Dask keeps it paused (its memory above the pause fraction of its limit) for
``_dask_cluster.PAUSE_GRACE_SECONDS``, the fit raises ``RuntimeError`` naming it
(``_dask_cluster.Holders``); every future of the fit is released either way, so the
client stays usable.
"""

import time
import warnings

from .. import _native
from .._dask_cluster import Holders, client_of, running_or_raise

#: Seconds between checks that the workers holding shards are still there and running,
#: while a round is running.
_POLL_SECONDS = 1.0


# ---------------------------------------------------------------- on the workers


def _read(pairs, partition):
    return _native.CrfShard.read(pairs, partition)


def _summary(shard):
    return shard.summary()


def _freeze(shard, remap, features, index, seed):
    return shard.freeze(remap, features, index, seed)


def _sequences(shard):
    return shard.sequences


def _gradient(shard, weights):
    return shard.gradient(weights)


def _epoch(shard, algorithm, params, state):
    return shard.epoch(algorithm, params, state)


# ---------------------------------------------------------------- on the client


def is_bag(x):
    """Whether ``x`` is a ``dask.bag.Bag`` (False when dask is not installed)."""
    try:
        import dask.bag
    except ImportError:
        return False
    return isinstance(x, dask.bag.Bag)


def _holders(client, workers, partitions, shards=False):
    """``Holders`` of ``workers[i]`` holding partition ``partitions[i]`` (or its shard)."""
    if shards:
        return Holders.of(client, workers, partitions, "the shard of partition {}",
                          "the shards of partitions {}")
    return Holders.of(client, workers, partitions, "partition {}", "partitions {}")


class _Round:
    """Submits tasks pinned to the workers holding the shards and waits for them,
    checking (``Holders.check``) that those workers are still in the cluster and not
    paused for good."""

    def __init__(self, client):
        self.client = client
        self.futures = []  # every future of the fit, released at the end
        self.sent = []  # bytes sent to the workers, per round
        self.received = []  # bytes received from them, per round

    def submit(self, fn, *args, worker):
        with warnings.catch_warnings():
            # A weight vector of millions of features is a large task argument, by design.
            warnings.filterwarnings("ignore", message=".*large graph.*")
            f = self.client.submit(fn, *args, workers=[worker], allow_other_workers=False,
                                   pure=False)
        self.futures.append(f)
        return f

    def wait(self, futures, holders, gather=True):
        """Waits for ``futures``; ``holders`` (a ``Holders``) is checked every
        ``_POLL_SECONDS`` while they run."""
        from distributed import wait

        while True:
            try:
                wait(futures, timeout=_POLL_SECONDS)
                finished = True
            except TimeoutError:
                finished = False
            if not finished or any(f.status != "finished" for f in futures):
                holders.check()
            if finished:
                break
        if gather:
            # One result at a time, with a timeout: a result whose worker has died since
            # the task finished would be waited for forever.
            out = []
            for f in futures:
                while True:
                    try:
                        out.append(f.result(timeout=_POLL_SECONDS))
                        break
                    except TimeoutError:
                        holders.check()
            return out
        failed = [f for f in futures if f.status != "finished"]
        if failed:
            self.client.gather(failed)  # raises the first task's exception
        return None

    def release(self):
        if self.futures:
            try:
                self.client.cancel(self.futures)
            except Exception:  # noqa: BLE001  (a closed client has nothing to release)
                pass
        self.futures = []


def _partitions(X, client, rounds, workers):
    """Futures of the shards read from ``X``, one per partition, spread round-robin over
    ``workers``; each is read on its worker and nowhere else (a bag's or a ``Delayed``
    partition is computed there too), so the read phase watches the workers that really
    hold the reads."""
    import dask

    futures = []
    if is_bag(X):
        parts = X.to_delayed()
        for i, part in enumerate(parts):
            w = workers[i % len(workers)]
            f = client.compute(dask.delayed(_read)(part, i), workers=[w],
                               allow_other_workers=False)
            rounds.futures.append(f)
            futures.append(f)
        return futures
    if isinstance(X, (str, bytes)) or not hasattr(X, "__iter__"):
        raise ValueError(
            "with client=, X must be a dask.bag.Bag of (xseq, yseq) pairs or a list of "
            f"partitions (each an iterable of (xseq, yseq) pairs), not {type(X).__name__}")
    from dask.delayed import Delayed
    from distributed import Future

    for i, part in enumerate(X):
        w = workers[i % len(workers)]
        if isinstance(part, Delayed):
            f = client.compute(dask.delayed(_read)(part, i), workers=[w],
                               allow_other_workers=False)
            rounds.futures.append(f)
        elif isinstance(part, Future):
            f = rounds.submit(_read, part, i, worker=w)
        else:
            f = rounds.submit(_read, list(part), i, worker=w)
        futures.append(f)
    return futures


def _check_params(algorithm, params, threads):
    """The one-machine fit's checks of the training parameters (``crfsuite_plan``'s own),
    made before any data is read."""
    _native.crfsuite_check(algorithm=algorithm, params=params, threads=threads)


def fit(client, X, algorithm, params, threads, X_dev=None, y_dev=None, on_iteration=None):
    """Fits on the partitions of ``X`` (module docs); returns what
    ``_native.crfsuite_fit`` returns, with the traffic in the facts (``distributed``)."""
    _check_params(algorithm, params, threads)
    client = client_of(client)
    # Asked of the scheduler (the client's cached scheduler_info() can be read empty
    # while it is refreshed); a paused worker gets no partition.
    workers = running_or_raise(client)
    rounds = _Round(client)
    start = time.perf_counter()
    try:
        read = _partitions(X, client, rounds, workers)
        if not read:
            raise ValueError("X has no partition: nothing to train on")
        rounds.wait(read, _holders(client, [workers[i % len(workers)]
                                            for i in range(len(read))], range(len(read))),
                    gather=False)
        # Where each shard lives; a task on a shard runs there and nowhere else.
        where = client.who_has(read)
        holders = [sorted(where[f.key])[0] for f in read]
        sizes = rounds.wait([rounds.submit(_sequences, f, worker=w)
                             for f, w in zip(read, holders)],
                            _holders(client, holders, range(len(read))))
        kept = [(i, f, w) for i, (f, w, n) in enumerate(zip(read, holders, sizes)) if n > 0]
        if not kept:
            which = ("its partition is empty" if len(read) == 1 else
                     f"its {len(read)} partitions are all empty")
            raise ValueError(f"X has no sequence ({which}): nothing to train on")
        holders = [w for _, _, w in kept]
        holding = _holders(client, holders, [i for i, _, _ in kept], shards=True)
        summaries = rounds.wait([rounds.submit(_summary, f, worker=w) for _, f, w in kept],
                                holding)
        plan = _native.crfsuite_plan(summaries, algorithm=algorithm, params=params,
                                     threads=threads)
        features = plan.features()
        shards = [rounds.submit(_freeze, f, plan.remap(i), features, i, plan.seed, worker=w)
                  for i, (_, f, w) in enumerate(kept)]
        rounds.wait(shards, holding, gather=False)
        # The partitions as read are no longer needed: dropping the last reference to a
        # future releases its data (cancelling would cancel the frozen shards too).
        rounds.futures = [f for f in rounds.futures if not any(f is r for r in read)]
        del read, kept
        setup_seconds = time.perf_counter() - start

        def evaluate(message):
            # The message goes with each task (a scatter to a worker that has died would
            # wait for it instead of failing).
            if algorithm == "lbfgs":
                futures = [rounds.submit(_gradient, s, message, worker=w)
                           for s, w in zip(shards, holders)]
            else:
                futures = [rounds.submit(_epoch, s, algorithm, params, message, worker=w)
                           for s, w in zip(shards, holders)]
            replies = rounds.wait(futures, holding)
            rounds.futures = [f for f in rounds.futures if not any(f is g for g in futures)]
            rounds.sent.append(len(message) * len(futures))
            rounds.received.append(sum(len(r) for r in replies))
            return replies

        model, log, info = _native.crfsuite_fit_distributed(
            plan, X_dev, y_dev, evaluate=evaluate, on_iteration=on_iteration)
    finally:
        rounds.release()
    n = len(rounds.sent)
    info["distributed"] = {
        "shards": len(holders),
        "workers": len(set(holders)),
        "sequences": plan.sequences,
        "rounds": n,
        "setup_seconds": setup_seconds,
        "bytes_sent": sum(rounds.sent),
        "bytes_received": sum(rounds.received),
        "bytes_per_round": (sum(rounds.sent) + sum(rounds.received)) / n if n else 0.0,
    }
    return model, log, info
