"""CRFsuite (python-crfsuite) on the training and test sets that online-bilinear's
`many_tags` example writes with `dump`, so that CRFsuite and the online learners see the
same features (an attribute is a feature id of the word-tagging templates).

    cargo run --release -p online-bilinear --example many_tags -- dump [FILE]
    target/probe-venv-crfsuite/bin/python benches/probes/crfsuite_dumped.py \
        many_tags/train.crfsuite many_tags/test.crfsuite [ALGORITHM] [EPOCHS]

ALGORITHM is a CRFsuite trainer (default `ap`, CRFsuite's averaged perceptron), EPOCHS its
`max_iterations` (default 20). Prints one Markdown row: reading seconds, training seconds
(wall, with the process's CPU seconds over the same span in parentheses), test token
accuracy, and the process's peak resident MB (VmHWM, which includes Python's copy of the
data it appended). Run in a probe venv with python-crfsuite installed; it is never a
dependency of the package.
"""
import sys
import time

import pycrfsuite


def sequences(path):
    """(attributes per token, tags) per sentence of a CRFsuite data file."""
    xs, ys = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if ys:
                    yield xs, ys
                xs, ys = [], []
                continue
            tag, *attrs = line.split("\t")
            ys.append(tag)
            xs.append(attrs)
    if ys:
        yield xs, ys


def peak_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def main():
    train_path, test_path = sys.argv[1], sys.argv[2]
    algorithm = sys.argv[3] if len(sys.argv) > 3 else "ap"
    epochs = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    started, cpu0 = time.perf_counter(), time.process_time()
    trainer = pycrfsuite.Trainer(algorithm=algorithm, verbose=False)
    trainer.set_params({"max_iterations": epochs})
    n_train = 0
    for xs, ys in sequences(train_path):
        trainer.append(xs, ys)
        n_train += 1
    read_s, read_cpu = time.perf_counter() - started, time.process_time() - cpu0
    started, cpu0 = time.perf_counter(), time.process_time()
    trainer.train("many_tags/crfsuite.model")
    train_s, train_cpu = time.perf_counter() - started, time.process_time() - cpu0
    tagger = pycrfsuite.Tagger()
    tagger.open("many_tags/crfsuite.model")
    right = total = 0
    for xs, ys in sequences(test_path):
        for a, b in zip(tagger.tag(xs), ys):
            right += a == b
            total += 1
    print(
        f"| crfsuite-{algorithm} | {n_train} | {read_s:.1f} ({read_cpu:.1f}) | "
        f"{train_s:.1f} ({train_cpu:.1f}) | {100.0 * right / max(total, 1):.2f} | {peak_mb():.0f} |"
    )


if __name__ == "__main__":
    main()
