"""Distributed tagger training (iterative parameter mixing, BilinearTagger.fit_distributed)
against the one-machine fit: wall time with 1 and 2 workers, accuracy, weight bytes moved
per epoch.

    BILINEAR_DATA_DIR=/work/data target/python-venv/bin/python benches/probes/tagger_dask.py \
        [--corpora chunking,pos] [--learners sp,bol,bcd] [--max-iter 10] [--pos-limit N]

Corpora: conll2000-subset (chtrain.txt / chtest.txt; word and POS columns, chunk tags,
templates "chunking") and pku1998-pos (199801.txt, word/TAG; every 10th sentence to test,
the rest to train, templates "word"); a test sentence with a tag no training sentence has
is left out of the accuracy (a --pos-limit can drop tags). For each learner (default settings, max_iter epochs,
so every run does the same number of epochs unless one converges): the one-machine fit in
this process; then a LocalCluster of 1 worker with 1 partition and of 2 workers with 2
partitions (contiguous halves), processes, 1 thread each. Times: the whole fit call
(setup: validation, counting, plan, encoding on the workers; then the epochs). Bytes: the
mixed weights sent to the workers plus the shards' weights sent back, per epoch (mean).
Prints a markdown table."""

import argparse
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import crfsuite_compare as compare  # noqa: E402


def data_dir():
    env = os.environ.get("BILINEAR_DATA_DIR")
    return pathlib.Path(env) if env else ROOT / "data"


def chunking():
    def read(name):
        sentences, tags = compare.read_conll(data_dir() / "conll2000-subset" / name)
        return list(zip(sentences, tags))
    return read("chtrain.txt"), read("chtest.txt"), "chunking"


def pos(limit):
    train, test = [], []
    path = data_dir() / "pku1998-pos" / "199801.txt"
    for k, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        items = [t.rsplit("/", 1) for t in line.split() if "/" in t]
        items = [t for t in items if len(t) == 2 and t[0] and t[1]]
        if not items:
            continue
        pair = ([w for w, _ in items], [t for _, t in items])
        if k % 10 == 9:
            test.append(pair)
        elif len(train) < limit:
            train.append(pair)
    return train, test, "word"


def accuracy(tagger, test):
    return tagger.score([s for s, _ in test], [t for _, t in test])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpora", default="chunking,pos")
    ap.add_argument("--learners", default="sp,bol,bcd")
    ap.add_argument("--max-iter", type=int, default=10)
    ap.add_argument("--pos-limit", type=int, default=10**9)
    args = ap.parse_args()
    import bilinear
    import distributed

    rows = []
    print("| corpus | learner | sentences | run | wall s | setup s | s/epoch | shard s/epoch | mix s/epoch | epochs | accuracy % | diff vs 1 machine (points) | MB down/epoch | MB up/epoch |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for corpus in args.corpora.split(","):
        train, test, templates = chunking() if corpus == "chunking" else pos(args.pos_limit)
        X, y = [s for s, _ in train], [t for _, t in train]
        known = {t for ts in y for t in ts}
        test = [(s, t) for s, t in test if set(t) <= known]  # a --pos-limit may drop tags
        for learner in args.learners.split(","):
            params = dict(learner=learner, templates=templates, max_iter=args.max_iter)
            t0 = time.perf_counter()
            one = bilinear.BilinearTagger(**params).fit(X, y)
            wall = time.perf_counter() - t0
            a1 = accuracy(one, test)
            print(f"| {corpus} | {learner} | {len(train)} | 1 machine | {wall:.2f} | - | "
                  f"{wall / one.n_iter_:.2f} | - | - | {one.n_iter_} | {100 * a1:.2f} | 0 | - | - |", flush=True)
            for workers in (1, 2):
                half = len(train) // workers
                parts = [train[i * half:(i + 1) * half if i + 1 < workers else len(train)]
                         for i in range(workers)]
                with distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                              processes=True, dashboard_address=None,
                                              memory_limit=0) as cluster, \
                        distributed.Client(cluster) as client:
                    client.wait_for_workers(workers, timeout=120)
                    t0 = time.perf_counter()
                    dist = bilinear.BilinearTagger(**params).fit_distributed(parts, client=client)
                    wall = time.perf_counter() - t0
                time.sleep(2)  # let the cluster's processes go before the next starts
                a = accuracy(dist, test)
                d = dist.distributed_
                n = len(d["epoch_seconds"])
                print(f"| {corpus} | {learner} | {len(train)} | {workers} worker(s) | {wall:.2f} | "
                      f"{d['setup_seconds']:.2f} | {sum(d['epoch_seconds']) / n:.2f} | "
                      f"{sum(d['shard_seconds']) / n:.2f} | {sum(d['mix_seconds']) / n:.2f} | {n} | "
                      f"{100 * a:.2f} | {100 * (a - a1):+.2f} | {sum(d['bytes_down']) / n / 1e6:.2f} | "
                      f"{sum(d['bytes_up']) / n / 1e6:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
