"""SBLR on a dask array over 1 and 2 workers of a local ``dask.distributed`` cluster:
time per iteration, and the bytes that travel per iteration (measured at the client's
calls; ``docs/scaling.md`` gives the formula to compare them with).

    target/python-venv/bin/python benches/probes/sblr_dask.py [n s t chunks iters]

Defaults: n = 4000 samples of 64 x 64 (131 MB of float64), 8 chunks, 10 iterations of
Alg. 2 at rank 2 (tol = 0). Each cluster has ``threads_per_worker=1`` worker processes; time per iteration is
``(t(iters) - t(1)) / (iters - 1)`` from the fastest of three fits of each length.
The in-memory fit on the client (one fit of ``iters`` iterations, default thread count) is
the reference: at each worker count the last distributed fit of ``iters`` iterations must
give the same ``U V^T`` (``rtol = 1e-6``, ``atol = 1e-9``).
"""

import sys
import time

import dask.array as da
import distributed
import numpy as np

from bilinear import SparseBilinearLogisticRegression as SBLR
from bilinear import _sblr_dask

PARAMS = dict(rank=2, mu1=0.01, mu2=0.01, nu1=0.01, nu2=0.01, tol=0.0)


def data(n, s, t, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, s, t))
    y = np.arange(n) % 2
    X[y == 1, 0, 0] += 0.5
    return X, y


class Counting:
    """Counts the payload bytes of every round of tasks (arguments out, results back)."""

    def __init__(self):
        self.out = self.back = self.rounds = 0
        self._run = _sblr_dask.Chunks.run
        counter = self

        def run(chunks, fn, *args, split=None):
            counter.rounds += 1
            arrays = [a for a in args if isinstance(a, np.ndarray)]
            counter.out += sum(a.nbytes for a in arrays) * len(chunks.futures)
            if split is not None:
                counter.out += split.nbytes
            results = counter._run(chunks, fn, *args, split=split)
            counter.back += sum(r.nbytes for r in results if isinstance(r, np.ndarray))
            return results

        _sblr_dask.Chunks.run = run

    def reset(self):
        self.out = self.back = self.rounds = 0


def main():
    n, s, t, chunks, iters = (int(a) for a in (sys.argv[1:] or [4000, 64, 64, 8, 10]))
    X, y = data(n, s, t)
    print(f"n={n} s={s} t={t} ({X.nbytes / 1e6:.0f} MB), {chunks} chunks, {iters} iterations")
    t0 = time.perf_counter()
    memory = SBLR(max_iter=iters, **PARAMS).fit(X, y)
    t_mem = (time.perf_counter() - t0) / iters
    print(f"in memory (client, default threads): {t_mem:.4f} s per iteration (fit incl. start)")
    counter = Counting()
    for workers in (1, 2):
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            dX = client.persist(da.from_array(X, chunks=(n // chunks, s, t)))
            distributed.wait(dX)
            # Warm-up (imports on the workers), then one fit of 1 iteration and one of
            # `iters`: the difference is the time of iters - 1 iterations.
            SBLR(max_iter=1, **PARAMS).fit(dX, y)
            # Three repetitions; the fastest of each length is kept (the machine is
            # shared, a slow repetition is interference).
            times = {1: float("inf"), iters: float("inf")}
            for _ in range(3):
                for k in (1, iters):
                    counter.reset()
                    t0 = time.perf_counter()
                    model = SBLR(max_iter=k, **PARAMS).fit(dX, y)
                    times[k] = min(times[k], time.perf_counter() - t0)
                    rounds, out, back = counter.rounds, counter.out, counter.back
                    if k == 1:
                        first = (rounds, out, back)
            per_iter = (times[iters] - times[1]) / (iters - 1)
            r_it = (rounds - first[0]) / (iters - 1)
            o_it = (out - first[1]) / (iters - 1)
            b_it = (back - first[2]) / (iters - 1)
            np.testing.assert_allclose(model.U_ @ model.V_.T, memory.U_ @ memory.V_.T,
                                       rtol=1e-6, atol=1e-9)
            print(f"{workers} worker(s): {per_iter:.4f} s per iteration; fit of 1 iteration "
                  f"{times[1]:.2f} s (chunks built, start, release); per iteration "
                  f"{r_it:.1f} rounds, {o_it / 1e3:.1f} kB out, {b_it / 1e3:.1f} kB back")


if __name__ == "__main__":
    main()
