#!/usr/bin/env python3
"""bilinear.crfsuite's fit on a Dask LocalCluster against the one-machine fit: wall time
with 1 and 2 worker processes, accuracy against the one-machine model, and bytes moved
per round (an lbfgs evaluation, or an epoch of ap, pa, arow).

The corpora and feature dicts are those of `crfsuite_compare.py` (imported from beside
this file): `chunking` (conll2000-subset, sklearn-crfsuite's tutorial features) and `pos`
(pku1998-pos, 20 features per token, every 10th sentence held out). Data: `--data-dir`,
else `$BILINEAR_DATA_DIR`, else `data/` at the workspace root.

For each corpus the dicts are built once. Then, for each algorithm:

- one machine: `CRF(algorithm, max_iterations, n_jobs=1).fit(X, y)`, timed;
- for each worker count W: a `LocalCluster(n_workers=W, threads_per_worker=1,
  processes=True)`; the training pairs are put on the workers first as a bag of W
  partitions (`db.from_sequence(...).persist()`, not timed: on a cluster the data
  lives there), then `CRF(...).fit(bag)` is timed whole (reading the partitions into
  shards on the workers, merging the dictionaries and features, every round) and its
  setup part separately (`training_log_.distributed["setup_seconds"]`).

Accuracy is token accuracy on the held-out sentences; "vs one machine" is the distributed
model's minus the one-machine model's, in points. Bytes per round: the vectors sent to
the workers and received back, divided by the rounds (`training_log_.distributed`).

Usage (from the workspace root, with the package built into target/python-venv by
`cargo xtask test --python-only`):

    BILINEAR_DATA_DIR=/work/data target/python-venv/bin/python \\
        benches/probes/crfsuite_dask.py --corpus chunking,pos \\
        --algorithm lbfgs,ap,pa,arow --workers 1,2 [--train-sentences N] \\
        [--lbfgs-iterations 30] [--epochs 10] [--orders 1] [--out target/probe-crfsuite/dask.jsonl]

`--orders N` repeats every comparison on N orders of the training sentences (order 0 is
the file's, order r > 0 a shuffle seeded with r): the one-machine fit and the partitions
both take that order, so each order is one paired comparison (the CRF's own shuffle seed
is fixed). With N > 1 the summary adds, per algorithm and worker count, the mean
difference over the orders with its 95% t interval: on the chunking test set (1,896
tokens) one order's difference is mostly noise.
"""

import argparse
import json
import math
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)

import crfsuite_compare as compare  # noqa: E402


def accuracy(gold, pred):
    return compare.token_accuracy(gold, pred)


def run(args):
    import dask.bag as db
    import distributed

    from bilinear.crfsuite import CRF

    directory = compare.data_dir(args.data_dir)
    out = open(args.out, "a") if args.out else None
    rows = []
    for corpus in args.corpus:
        t0 = time.perf_counter()
        X, y, Xt, yt, info = compare.load_corpus(corpus, directory, args.train_sentences)
        print(f"# {corpus}: {info} (dicts built in {time.perf_counter() - t0:.1f} s)",
              flush=True)
        for algorithm, order in ((a, r) for a in args.algorithm for r in range(args.orders)):
            pairs = list(zip(X, y))
            if order > 0:
                random.Random(order).shuffle(pairs)
            Xo, yo = [x for x, _ in pairs], [t for _, t in pairs]
            budget = args.lbfgs_iterations if algorithm == "lbfgs" else args.epochs
            params = dict(algorithm=algorithm, max_iterations=budget)
            t = time.perf_counter()
            one = CRF(n_jobs=1, **params).fit(Xo, yo)
            seconds = time.perf_counter() - t
            acc_one = accuracy(yt, one.predict(Xt))
            row = dict(corpus=corpus, algorithm=algorithm, iterations=budget, workers=0,
                       order=order, fit_seconds=seconds, accuracy=acc_one,
                       features=one.training_log_.featgen_num_features)
            rows.append(row)
            print(json.dumps(row), flush=True)
            if out:
                out.write(json.dumps(row) + "\n")
                out.flush()
            for w in args.workers:
                with distributed.LocalCluster(n_workers=w, threads_per_worker=1,
                                              processes=True, dashboard_address=None,
                                              memory_limit=None) as cluster, \
                        distributed.Client(cluster) as client:
                    # `npartitions=w` alone can give w + 1 partitions (823 sentences, w = 2:
                    # 411, 411 and 1); a partition size of ceil(n / w) gives w.
                    size = math.ceil(len(pairs) / w)
                    bag = db.from_sequence(pairs, partition_size=size).persist()
                    assert bag.npartitions == w, (len(pairs), w, bag.npartitions)
                    distributed.wait(bag)
                    t = time.perf_counter()
                    crf = CRF(**params).fit(bag)
                    seconds = time.perf_counter() - t
                    d = crf.training_log_.distributed
                    acc = accuracy(yt, crf.predict(Xt))
                    row = dict(corpus=corpus, algorithm=algorithm, iterations=budget,
                               workers=w, order=order, fit_seconds=seconds,
                               setup_seconds=d["setup_seconds"], rounds=d["rounds"],
                               bytes_per_round=d["bytes_per_round"], accuracy=acc,
                               vs_one_machine_points=100 * (acc - acc_one),
                               features=crf.training_log_.featgen_num_features)
                    if algorithm == "lbfgs":
                        a = one.training_log_.iterations[-1]["loss"]
                        b = crf.training_log_.iterations[-1]["loss"]
                        row["final_loss_rel_diff"] = abs(a - b) / abs(a)
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                    if out:
                        out.write(json.dumps(row) + "\n")
                        out.flush()
                    del bag
    print()
    print("| corpus | algorithm | iterations | workers | fit s | setup s | s / round | "
          "MB / round | accuracy | vs one machine |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r["workers"] == 0:
            cells = ["one machine", f"{r['fit_seconds']:.1f}", "", "", ""]
            diff = ""
        else:
            per = (r["fit_seconds"] - r["setup_seconds"]) / max(1, r["rounds"])
            cells = [str(r["workers"]), f"{r['fit_seconds']:.1f}",
                     f"{r['setup_seconds']:.1f}", f"{per:.2f}",
                     f"{r['bytes_per_round'] / 1e6:.1f}"]
            diff = f"{r['vs_one_machine_points']:+.2f}"
        print(f"| {r['corpus']} | {r['algorithm']} | {r['iterations']} | "
              + " | ".join(cells) + f" | {100 * r['accuracy']:.2f}% | {diff} |")
    if args.orders > 1:
        print()
        print("| corpus | algorithm | workers | orders | mean vs one machine (points) | 95% interval |")
        print("|---|---|---|---|---|---|")
        keys = sorted({(r["corpus"], r["algorithm"], r["workers"]) for r in rows if r["workers"]})
        for corpus, algorithm, w in keys:
            d = [r["vs_one_machine_points"] for r in rows
                 if (r["corpus"], r["algorithm"], r["workers"]) == (corpus, algorithm, w)]
            mean = statistics.fmean(d)
            half = T95.get(len(d) - 1, 1.96) * statistics.stdev(d) / math.sqrt(len(d))
            print(f"| {corpus} | {algorithm} | {w} | {len(d)} | {mean:+.2f} | "
                  f"{mean - half:+.2f} to {mean + half:+.2f} |")


# Two-sided 95% quantiles of Student's t by degrees of freedom.
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", default="chunking,pos",
                   type=lambda s: compare.csv_list(s, ("chunking", "pos")))
    p.add_argument("--algorithm", default="lbfgs,ap,pa,arow",
                   type=lambda s: compare.csv_list(s, ("lbfgs", "ap", "pa", "arow")))
    p.add_argument("--workers", default="1,2", type=lambda s: [int(v) for v in s.split(",")])
    p.add_argument("--train-sentences", type=int, default=None)
    p.add_argument("--lbfgs-iterations", type=int, default=30)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--orders", type=int, default=1)
    p.add_argument("--data-dir", default=None)
    p.add_argument("--out", default=None)
    run(p.parse_args())


if __name__ == "__main__":
    main()
