"""Pausing a Dask worker as its memory monitor would, for the tests of the fits' handling
of paused workers (test_crfsuite_dask.py, test_tagger_dask.py): run with ``client.run``."""

import time

from bilinear._dask_cluster import running


def pause_fraction(dask_worker):
    return dask_worker.memory_manager.memory_pause_fraction


def pause(dask_worker):
    from distributed.core import Status

    # (the memory monitor would resume a worker whose memory is below the pause fraction)
    dask_worker.memory_manager.memory_pause_fraction = False
    dask_worker.status = Status.paused


def resume(fraction, dask_worker=None):
    from distributed.core import Status

    dask_worker.status = Status.running
    dask_worker.memory_manager.memory_pause_fraction = fraction


def resumed(client, victim, fraction):
    """Resumes ``victim`` and waits until the scheduler lists it as running again (the
    status reaches the scheduler after ``client.run`` returns)."""
    client.run(resume, fraction, workers=[victim])
    deadline = time.monotonic() + 60
    while victim not in running(client):
        assert time.monotonic() < deadline, f"{victim} not running again after 60 s"
        time.sleep(0.05)
