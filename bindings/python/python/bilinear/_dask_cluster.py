"""What the Dask drivers ask of the cluster while a fit runs: which workers there are, in
which state, and whether the workers that hold a fit's data can still serve it.

The drivers keep a fit's data on the workers that hold it (the CRF's shards do not
pickle, so Dask can neither move nor spill them; the taggers' partitions pickle and can
be spilled, but a paused worker runs none of their tasks). A worker that leaves the
cluster loses them; a worker that Dask *pauses* at its memory limit (by default at 80% of
``--memory-limit``) runs no task until its memory falls below that again, which may take
long or never happen. ``Holders.check`` turns both into a ``RuntimeError`` that names the
worker.

The questions are asked of the scheduler with ``run_on_scheduler``; the function it runs
is built inside ``_workers_since``, so that cloudpickle sends it by value: the scheduler
needs no ``bilinear`` package.
"""

import time

# How long a holder may stay paused before the fit gives up on it: Dask pauses a worker
# above its memory limit's pause fraction and resumes it when the memory falls below it
# again (after a garbage collection, say). Pauses of up to a second or two, while the
# worker still works, are common under memory pressure; a fit that has waited this long
# fails rather than wait on a pause that may not end (a choice, not a proof that it would
# not: pauses of 8 to 24 s that ended were measured).
PAUSE_GRACE_SECONDS = 5.0


def _workers_since(client):
    """``{address: (state, seconds)}`` of the workers the scheduler knows, sorted by
    address: for a paused worker, ``seconds`` since it was paused, by the scheduler's log
    of the worker's status changes (None when the log no longer has it, and for a worker
    in any other state: only a paused worker's log is read)."""

    def on_scheduler(dask_scheduler=None):
        # (defined here and importing inside: sent by value, run where bilinear may not
        # be installed)
        from distributed.metrics import time as now_on_scheduler

        now = now_on_scheduler()
        out = {}
        for a, ws in dask_scheduler.workers.items():
            since = None
            log = dask_scheduler.get_events(a) if ws.status.name == "paused" else ()
            for t, msg in reversed(log):
                if isinstance(msg, dict) and msg.get("action") == "worker-status-change":
                    since = now - t if msg.get("status") == ws.status.name else None
                    break
            out[a] = (ws.status.name, since)
        return out

    return dict(sorted(client.run_on_scheduler(on_scheduler).items()))


def workers(client):
    """``{address: state}`` of the cluster's workers now (``"running"``, ``"paused"``,
    ...), sorted by address. Asked of the scheduler: the client's cached
    ``scheduler_info()`` is refreshed in the background and can be read in between
    without its worker list."""
    return {a: state for a, (state, _) in _workers_since(client).items()}


def running(client):
    """The addresses of the workers that run tasks now, sorted."""
    return [a for a, state in workers(client).items() if state == "running"]


def client_of(client):
    """``client``, or the current ``distributed`` client when it is None: an
    ``ImportError`` without dask.distributed, a ``ValueError`` without a client or for
    something else than a ``distributed.Client``."""
    try:
        import distributed
    except ImportError as e:
        raise ImportError(
            "training on Dask data needs dask.distributed (pip install 'dask[distributed]')"
        ) from e
    if client is None:
        try:
            return distributed.get_client()
        except ValueError as e:
            raise ValueError("there is no distributed Client: create one "
                             "(distributed.Client(...)) or pass client=") from e
    if not isinstance(client, distributed.Client):
        raise ValueError(f"client must be a distributed.Client, not {type(client).__name__}")
    return client


def running_or_raise(client):
    """:func:`running`, or a ``RuntimeError`` when no worker runs (none at all, or every
    one paused or closing, named with its state)."""
    found = running(client)
    if not found:
        states = sorted(workers(client).values())
        raise RuntimeError("the Dask cluster has no worker" if not states else
                           f"the Dask cluster has no running worker (its workers: "
                           f"{', '.join(states)})")
    return found


def describe(ids, one, many):
    """``one.format(id)`` for a single id, else ``many.format("i, j, ...")`` of the ids
    sorted (``"partition {}"``, ``"partitions {}"``), for the messages."""
    ids = sorted(set(ids))
    return (one if len(ids) == 1 else many).format(", ".join(str(i) for i in ids))


class Holders:
    """The workers that hold a fit's data, each with what it holds (for the messages).

    ``check()`` raises ``RuntimeError`` when one of them has left the cluster, or has been
    paused for ``PAUSE_GRACE_SECONDS`` or more."""

    @classmethod
    def of(cls, client, workers, ids, one, many):
        """The holders of items ``ids``, item ``ids[i]`` on ``workers[i]``, described by
        :func:`describe` (several items of one worker joined)."""
        held = {}
        for address, i in zip(workers, ids):
            held.setdefault(address, []).append(i)
        return cls(client, {a: describe(i, one, many) for a, i in held.items()})

    def __init__(self, client, holders):
        self.client = client
        # address -> description of what it holds ("chunk 3", "partition 0", ...)
        self.holders = dict(holders)
        self._paused_since = {}

    def check(self):
        now = time.monotonic()
        states = _workers_since(self.client)
        for address, what in self.holders.items():
            state, seconds = states.get(address, (None, None))
            if state is None:
                raise RuntimeError(
                    f"the worker {address} holding {what} left the cluster during the fit"
                )
            if state != "paused":
                self._paused_since.pop(address, None)
                continue
            # How long the current pause has lasted, by the scheduler's own log of the
            # worker's status changes: sampled here, a worker that pauses and resumes
            # every second (its memory around the pause fraction, still working) could be
            # seen paused at every check. Without that log: since first seen paused.
            if seconds is None:
                seconds = now - self._paused_since.setdefault(address, now)
            if seconds >= PAUSE_GRACE_SECONDS:
                raise RuntimeError(
                    f"the worker {address} holding {what} has been paused by Dask for "
                    f"{seconds:.0f} s: its memory passed the pause fraction of its "
                    "memory limit (80% by default) and it runs no task of the fit; give "
                    "the workers a larger --memory-limit or more workers"
                )
