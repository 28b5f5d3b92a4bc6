#!/usr/bin/env python3
"""Before/after timing of the boolean-tensor baselines with the `kernel_gains` example.

Usage:
    python3 benches/probes/tensor_kernel_gains.py BEFORE_BIN AFTER_BIN [SIZES] [ROUNDS] [THREADS] [MIN_REPS]

BEFORE_BIN and AFTER_BIN are two release builds of
`crates/boolean-tensor/examples/kernel_gains.rs` (the same source built against two
commits of the crate). For each thread count (default "1,2", passed as
RAYON_NUM_THREADS), ROUNDS rounds (default 3) run the two binaries one after the other,
the order alternating from round to round, with `uptime` recorded before and after each
block. Each binary fits every (method, size) max(MIN_REPS (default 2), (largest/d)^3)
times and prints its minimum (see the example's docs). Per (method, size, threads) it prints the minimum ms/iteration of each binary, the
median over the rounds of the same-round ratio before / after, and both final losses
(which must agree to rounding, with the same iteration counts). Standard library only.
"""

import statistics
import subprocess
import sys
from collections import defaultdict


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()


def run(binary, sizes, threads, min_reps):
    env = {"RAYON_NUM_THREADS": str(threads), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [binary, sizes, "all", str(min_reps)], capture_output=True, text=True, check=True, env=env
    ).stdout
    rows = {}
    lines = out.strip().splitlines()
    header = lines[0].split("\t")
    for line in lines[1:]:
        rec = dict(zip(header, line.split("\t")))
        rows[(rec["method"], int(rec["d"]))] = rec
    return rows


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    before_bin, after_bin = sys.argv[1], sys.argv[2]
    sizes = sys.argv[3] if len(sys.argv) > 3 else "45,70,100,150"
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    thread_counts = [int(t) for t in (sys.argv[5] if len(sys.argv) > 5 else "1,2").split(",")]
    min_reps = int(sys.argv[6]) if len(sys.argv) > 6 else 2
    # results[(method, d, threads)] = list of (before_rec, after_rec), one per round
    results = defaultdict(list)
    for threads in thread_counts:
        print(f"## RAYON_NUM_THREADS={threads}", flush=True)
        for r in range(rounds):
            print(f"round {r + 1} start: {uptime()}", flush=True)
            order = [("before", before_bin), ("after", after_bin)]
            if r % 2 == 1:
                order.reverse()
            got = {}
            for name, binary in order:
                got[name] = run(binary, sizes, threads, min_reps)
            for key in got["after"]:
                results[key + (threads,)].append((got["before"][key], got["after"][key]))
            print(f"round {r + 1} end:   {uptime()}", flush=True)
    print()
    print(
        "| method | size | threads | iterations | before ms/iter | after ms/iter | "
        "before / after (median of rounds) | per-round ratios | loss before | loss after |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (method, d, threads), pairs in sorted(
        results.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1])
    ):
        b_min = min(float(b["ms_per_iter"]) for b, _ in pairs)
        a_min = min(float(a["ms_per_iter"]) for _, a in pairs)
        ratios = [float(b["ms_per_iter"]) / float(a["ms_per_iter"]) for b, a in pairs]
        iters = {(b["iterations"], a["iterations"]) for b, a in pairs}
        refits = {(b["refit_sweeps"], a["refit_sweeps"]) for b, a in pairs}
        losses_b = {b["loss"] for b, _ in pairs}
        losses_a = {a["loss"] for _, a in pairs}
        it = ";".join(f"{x}/{y}" if x == y else f"{x}!={y}" for x, y in sorted(iters))
        if any(x != "-" for x, _ in refits):
            it += " (refits " + ";".join(f"{x}/{y}" for x, y in sorted(refits)) + ")"
        print(
            f"| {method} | {d}^3 | {threads} | {it} | {b_min:.2f} | {a_min:.2f} | "
            f"{statistics.median(ratios):.2f} | {', '.join(f'{x:.2f}' for x in ratios)} | "
            f"{', '.join(sorted(losses_b))} | {', '.join(sorted(losses_a))} |"
        )


if __name__ == "__main__":
    main()
