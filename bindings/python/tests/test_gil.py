"""Fits release the GIL: Python code in another thread keeps running during a fit."""

import threading
import time

import numpy as np

from bilinear import SparseBilinearLogisticRegression as SBLR


def test_fit_releases_the_gil():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 30, 30))
    y = np.arange(1500) % 2
    model = SBLR(tol=0.0, max_iter=100, mu1=0.0, nu1=0.0)
    worker = threading.Thread(target=model.fit, args=(X, y))
    ticks = 0
    worker.start()
    time.sleep(0.05)  # let the worker enter the fit
    while worker.is_alive():
        ticks += 1  # runs only while the worker does not hold the GIL
        time.sleep(0.001)
    worker.join()
    assert model.n_iter_ == 100
    # a fit holding the GIL would block this loop until it returned: only the few
    # milliseconds of Python validation around the Rust call could tick
    assert ticks >= 20, ticks
