"""Hyper-parameter search on more than one process: GridSearchCV through joblib's
``loky`` backend (separate worker processes) and through a ``dask.distributed``
``LocalCluster`` (the same code runs on a real cluster given its scheduler address)."""

import numpy as np
import pytest
from joblib import parallel_backend
from sklearn.model_selection import GridSearchCV

from bilinear import SparseBilinearLogisticRegression as SBLR

GRID = {"rank": [1, 2], "mu1": [0.0, 0.05]}


def _data(n=60, s=5, t=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, s, t))
    y = np.arange(n) % 2
    X[y == 1, 0, 0] += 2.0
    return X.reshape(n, s * t), y, (s, t)


def _search(n_jobs):
    X, y, shape = _data()
    return GridSearchCV(SBLR(matrix_shape=shape), GRID, cv=3, n_jobs=n_jobs).fit(X, y)


def test_loky_processes_match_serial():
    serial = _search(n_jobs=1)
    with parallel_backend("loky", n_jobs=2):
        parallel = _search(n_jobs=2)
    np.testing.assert_array_equal(parallel.cv_results_["mean_test_score"],
                                  serial.cv_results_["mean_test_score"])
    assert parallel.best_params_ == serial.best_params_


def test_dask_local_cluster_matches_serial():
    distributed = pytest.importorskip("distributed")
    serial = _search(n_jobs=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        with parallel_backend("dask"):
            clustered = _search(n_jobs=-1)
    np.testing.assert_array_equal(clustered.cv_results_["mean_test_score"],
                                  serial.cv_results_["mean_test_score"])
