#!/usr/bin/env python3
"""CP-ALS per sweep: tensorly's parafac against boolean-tensor's CpAls, in one session.

Command (from the workspace root):

    python3 benches/probes/tensor_tensorly_cp.py [SIZES] [RANK] [SWEEPS]

e.g. `python3 benches/probes/tensor_tensorly_cp.py 45,70,100,150 15 10`.

It creates a venv under /tmp/tensor_probe_venv (pip install tensorly numpy), builds and
runs `cargo run --release -p boolean-tensor --example cp_probe -- sweep ...`, which times
our sweep and start (1 and 2 threads) with the previous kernel and the exact HOSVD start
beside and writes each tensor (Syn2-like, d^3, 15 atoms, noise N(0, 1), seed 2018) as
/tmp/tensor_cp_probe/cp_<d>.npy; then times tensorly's `parafac` on the same tensors
(same rank, a random start given as a CPTensor, tol=0, the same number of sweeps,
error computed every sweep, per-sweep time = (time of n+1 sweeps - time of 1 sweep) / n,
with n the sweeps our side used: SWEEPS at the largest size, SWEEPS (largest/d)^3 below)
and its 'svd' start, each with OPENBLAS/OMP/MKL threads = 1 and 2, minimum over 3 runs. Prints one
markdown table with the ratios.
"""

import json
import os
import subprocess
import sys
import time

VENV = "/tmp/tensor_probe_venv"
DATA = "/tmp/tensor_cp_probe"


def ensure_venv():
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    subprocess.run([py, "-m", "pip", "install", "-q", "tensorly", "numpy"], check=True)
    return py


def tensorly_worker(d, rank, sweeps):
    """Runs inside the venv with the BLAS thread count set by the parent."""
    import numpy as np
    import tensorly as tl
    from tensorly.decomposition import parafac
    from tensorly.decomposition._cp import initialize_cp

    # The file holds our column-major data as a C-order (k, j, i) array.
    x = np.ascontiguousarray(np.load(f"{DATA}/cp_{d}.npy").transpose(2, 1, 0))
    rng = np.random.default_rng(0)
    factors = [rng.standard_normal((d, rank)) for _ in range(3)]

    def run(n):
        t = time.perf_counter()
        init = tl.cp_tensor.CPTensor((np.ones(rank), [f.copy() for f in factors]))
        # tol=0 never stops; return_errors=True computes the error every sweep, as ours.
        parafac(x, rank, n_iter_max=n, init=init, tol=0.0, normalize_factors=False,
                return_errors=True)
        return time.perf_counter() - t

    per_sweep = min((run(sweeps + 1) - run(1)) / sweeps for _ in range(3))
    assert per_sweep > 0
    start = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        initialize_cp(x, rank, init="svd")
        start = min(start, time.perf_counter() - t)
    print(json.dumps({"sweep_ms": per_sweep * 1e3, "start_ms": start * 1e3,
                      "tensorly": tl.__version__, "numpy": np.__version__}))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        tensorly_worker(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
        return
    sizes = sys.argv[1] if len(sys.argv) > 1 else "45,70,100,150"
    rank = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    sweeps = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    py = ensure_venv()
    ours = subprocess.run(
        ["cargo", "run", "--release", "-q", "-p", "boolean-tensor", "--example", "cp_probe",
         "--", "sweep", sizes, str(rank), str(sweeps), DATA],
        check=True, capture_output=True, text=True).stdout
    rows = [line.split("\t") for line in ours.strip().splitlines()[1:]]
    print(f"load: {os.getloadavg()[0]:.2f}; rank {rank}; {sweeps} sweeps at the largest "
          "size; ms, minimum of 3")
    print("| size | threads | ours/sweep | previous kernel/sweep | tensorly/sweep | "
          "tensorly / ours | ours start | start / our sweep | exact HOSVD start | "
          "tensorly svd start |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    versions = None
    for d, threads, n, new_sweep, new_start, old_sweep, old_start, _, _ in rows:
        env = dict(os.environ)
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = threads
        out = subprocess.run([py, __file__, "--worker", d, str(rank), n],
                             check=True, capture_output=True, text=True, env=env).stdout
        tly = json.loads(out)
        versions = (tly["tensorly"], tly["numpy"])
        ns, nst = float(new_sweep), float(new_start)
        print(f"| {d}^3 | {threads} | {ns:.2f} | {float(old_sweep):.2f} | "
              f"{tly['sweep_ms']:.2f} | {tly['sweep_ms'] / ns:.2f} | {nst:.2f} | "
              f"{nst / ns:.2f} | {float(old_start):.2f} | {tly['start_ms']:.2f} |")
    print(f"tensorly {versions[0]}, numpy {versions[1]}; load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
