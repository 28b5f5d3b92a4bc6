#!/usr/bin/env python3
"""One Alg. 2 iteration of SBLR (Shi, Xu, Baraniuk 2014, Sec. 3, eqs. (7a)-(7d), (13)-(16))
in NumPy, beside two streaming reads of the same f64 samples, measured in one run.

Command (creates its own venv under /tmp and installs NumPy there):

    python3 benches/probes/sblr_numpy_alg2.py [--n 100] [--size 500] [--threads 1]

With --npy FILE the samples are read from an `n x s x t` .npy file (f8 or f4) instead of
generated as the Table 1 data `randn(s, t) +- 1`. The iteration is what
`sblr::BinarySolver::step` does with r = 1: pass 1 `z_u[i] = X_i v`, a proximal-linear
step on `(u, b)` with the backtracking rule (13)/(15) (L = max(L_min, L_prev / eta), then
times eta until the sufficient-decrease test holds), pass 2 `z_v[i] = X_i^T u`, the same
step on `(v, b)`. Samples stored as f32 are multiplied in f32 by NumPy (its BLAS does not
mix precisions), so the f32 rows are not the same arithmetic as ours (f32 reads, f64 sums).
Prints one line per precision: ms per iteration, ms of two f64 streaming reads
(`X.sum()` twice on the f64 array), and their ratio.
"""

import argparse
import os
import subprocess
import sys
import time

VENV = "/tmp/sblr-numpy-probe-venv"


def ensure_venv():
    """Re-runs this script inside a venv that has NumPy."""
    if os.environ.get("SBLR_PROBE_IN_VENV") == "1":
        return
    python = os.path.join(VENV, "bin", "python")
    if not os.path.exists(python):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
        subprocess.check_call([python, "-m", "pip", "install", "--quiet", "numpy"])
    env = dict(os.environ, SBLR_PROBE_IN_VENV="1")
    os.execve(python, [python, os.path.abspath(__file__)] + sys.argv[1:], env)


def soft(x, tau):
    import numpy as np

    return np.sign(x) * np.maximum(np.abs(x) - tau, 0.0)


def log1pexp(z):
    import numpy as np

    return np.logaddexp(0.0, z)


def block_step(z, y, x, b, lipschitz, l1, l2, l_min=1e-3, eta=2.0):
    """One proximal-linear step on (x, b) with features z (n x d): returns x, b, L."""
    import numpy as np

    n = len(y)
    f = z @ x + b
    loss = np.mean(log1pexp(-y * f))
    c = -y / (1.0 + np.exp(y * f)) / n
    gx, gb = z.T @ c, c.sum()
    big_l = max(l_min, lipschitz / eta)
    for _ in range(100):
        xn = soft(x - gx / big_l, l1 / big_l) / (1.0 + l2 / big_l)
        bn = b - gb / big_l
        fn = z @ xn + bn
        new = np.mean(log1pexp(-y * fn))
        dx, db = xn - x, bn - b
        if new <= loss + gx @ dx + gb * db + 0.5 * big_l * (dx @ dx + db * db) + 1e-12:
            return xn, bn, big_l
        big_l *= eta
    return x, b, big_l


def main():
    ensure_venv()
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--size", type=int, default=500)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--npy", default=None)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    import numpy as np

    if args.npy:
        x64 = np.load(args.npy).astype(np.float64)
    else:
        rng = np.random.default_rng(0)
        x64 = rng.standard_normal((args.n, args.size, args.size))
        x64[: args.n // 2] -= 1.0
        x64[args.n // 2 :] += 1.0
    n, s, t = x64.shape
    y = np.where(np.arange(n) < n // 2, -1.0, 1.0)
    (mu1, mu2, nu1, nu2) = (0.1, 1.0, 0.1, 1.0)
    reads = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        x64.sum()
        x64.sum()
        reads.append(time.perf_counter() - start)
    read = float(np.median(reads))
    print(f"# numpy {np.__version__}, n={n} s={s} t={t}, threads={args.threads}")
    print("precision\tms_per_iteration\tms_two_f64_reads\tratio")
    for name, x in [("f64", x64), ("f32", x64.astype(np.float32))]:
        mean = x64.mean(axis=0)
        uu, _, vt = np.linalg.svd(mean)
        u, v, b = -uu[:, 0].copy(), vt[0].copy(), 0.0
        lu = lv = 1e-3
        times = []
        for k in range(3 + args.repeats):
            start = time.perf_counter()
            zu = np.einsum("iaj,j->ia", x, v.astype(x.dtype), optimize=True).astype(np.float64)
            u, b, lu = block_step(zu, y, u, b, lu, mu1, mu2)
            zv = np.einsum("iaj,a->ij", x, u.astype(x.dtype), optimize=True).astype(np.float64)
            v, b, lv = block_step(zv, y, v, b, lv, nu1, nu2)
            if k >= 3:
                times.append(time.perf_counter() - start)
        it = float(np.median(times))
        print(f"{name}\t{it * 1e3:.1f}\t{read * 1e3:.1f}\t{it / read:.2f}")


if __name__ == "__main__":
    main()
