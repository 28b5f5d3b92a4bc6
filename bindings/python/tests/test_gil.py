"""Fits release the GIL: Python code in another thread keeps running during a fit."""

import sys
import threading
import time

import numpy as np

from bilinear import SparseBilinearLogisticRegression as SBLR


def test_fit_releases_the_gil():
    # A profile hook on the worker thread marks the native call's entry and return; this
    # thread counts the loop turns it makes in between. Every turn needs the GIL, so a call
    # that holds it allows at most one, however long it runs (the one taken while the
    # return hook starts: `sum(range(3 * 10**7))` in place of the fit gave 1 turn in each
    # of 5 runs, `time.sleep(0.3)` about 270); a fit that releases it allows turns for as
    # long as it runs (one thread of fit, a core free for this loop).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 30, 30))
    y = np.arange(1500) % 2
    model = SBLR(tol=0.0, max_iter=100, mu1=0.0, nu1=0.0, threads=1)
    inside, returned = threading.Event(), threading.Event()

    def hook(frame, event, arg):
        if getattr(arg, "__name__", None) != "sblr_fit":
            return
        if event == "c_call":
            inside.set()
        elif event in ("c_return", "c_exception"):
            returned.set()

    def fit():
        sys.setprofile(hook)
        try:
            model.fit(X, y)
        finally:
            sys.setprofile(None)

    worker = threading.Thread(target=fit)
    worker.start()
    assert inside.wait(timeout=300)
    turns = 0
    while not returned.is_set() and worker.is_alive():
        turns += 1
        time.sleep(0.001)
    worker.join()
    assert model.n_iter_ == 100
    assert returned.is_set()
    assert turns >= 5, turns
