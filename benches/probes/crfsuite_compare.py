#!/usr/bin/env python3
"""sklearn-crfsuite against bilinear.crfsuite, with the same feature dicts given to both.

For the drop-in's comparison with sklearn-crfsuite (`docs/measurements/crfsuite.md` has the commands, versions and tables).
Three corpora of the workspace's data cache, three feature sets of sklearn-crfsuite's
documented kind (a dict of `name: value` per token; strings, floats and booleans):

- `chunking`: conll2000-subset (`chtrain.txt` 823 / `chtest.txt` 77 sentences, columns
  `word POS chunk`), the features of sklearn-crfsuite's CoNLL tutorial (`word2features`):
  bias, word.lower(), word[-3:], word[-2:], isupper/istitle/isdigit, POS and POS[:2],
  the same (without the suffixes) for the words at -1 and +1, BOS / EOS at the edges.
  Score: token accuracy and chunk F1 (conlleval's chunks of the BIO tags).
- `pos`: pku1998-pos (`199801.txt`, `word/TAG`, 44 tags); every 10th sentence (lines 10,
  20, ...) is a test sentence, the rest train, as the workspace's pku1998 experiments
  split (`Corpus::split_every(10)`). 20 features per token: bias; the words at -2..+2; the
  word bigrams -1|0, 0|+1, -1|+1; prefixes and suffixes of 1, 2, 3 characters (capped at
  the word's length, so the first and last characters are prefix 1 and suffix 1); the
  length (capped at 5); the last character of the word at -1 and the first of the word at
  +1; isdigit; the collapsed character classes (digit, Han, Latin, other). Outside the
  sentence the words are `<s>` / `</s>`. Score: token accuracy.
- `seg`: pku1998 (`data.txt`, `char/tag`, tags b/m/e/s), the same split. The paper's
  segmentation templates: bias, the characters at -2..+2 and the bigrams -2|-1, -1|0, 0|+1,
  +1|+2, -1|+1 (11 features). Score: token accuracy and word F1 (words read from the b/m/e/s
  tags leniently, as `online_bilinear::metrics::bmes_spans`).

The dicts are built once per run, before anything is timed, with every string interned;
both libraries get the same lists of dicts. Timed: `CRF.fit(X_train, y_train)` (which
includes each library's conversion of the dicts) and, separately, `CRF.predict(X_test)`.

Each fit runs in a fresh subprocess (one at a time), so that its peak memory is its own:
after the dicts are built the worker collects garbage, returns the free C heap to the
kernel (`malloc_trim(0)`), records its resident size (the "data" column: Python, the
library, the corpus and the dicts), resets the kernel's peak counter (`echo 5 >
/proc/self/clear_refs`, Linux >= 4.0) and reads the peak again after the fit (`VmHWM`).
"fit peak" is that peak minus the data column: the memory the fit adds on top of the
dicts it was given. The process's peak over its whole life (`process_peak_mib`: the largest
VmHWM of the three phases, building, fit and predict) is recorded too.

Usage (from the workspace root):

    python3 benches/probes/crfsuite_compare.py --setup        # the venv below, once
    python3 benches/probes/crfsuite_compare.py --lib sklearn_crfsuite \\
        --corpus chunking,pos,seg --algorithm lbfgs,ap [--train-sentences N]
    python3 benches/probes/crfsuite_compare.py --lib bilinear.crfsuite \\
        --corpus pos --algorithm ap --n-jobs 1,2
    python3 benches/probes/crfsuite_compare.py --table RESULTS.jsonl   # the table again

The script re-runs itself in its venv `target/probe-venv-crfsuite` (created by `--setup`
with `python3 -m venv` and `pip install sklearn-crfsuite python-crfsuite scikit-learn`;
`--wheel PATH` installs a bilinear wheel there with `pip install --no-deps
--force-reinstall`). sklearn-crfsuite lives only in this venv, never in the package's
dependencies. Data: `--data-dir`, else `$BILINEAR_DATA_DIR`, else `data/` at the workspace
root (`cargo xtask data fetch conll2000-subset pku1998 pku1998-pos`).

Settings per algorithm (sklearn-crfsuite's defaults otherwise): lbfgs c1=0 c2=1
max_iterations=100 (the budget of the many-tag targets: "100 L-BFGS iterations"); l2sgd c2=1 max_iterations=100
(epochs; CRFsuite's default is 1000, and its stopping test, delta=1e-6 over period=10,
may end it sooner); ap, pa, arow (and ours: bol, bcd, sp) max_iterations=20 (the many-tag targets:
"20 epochs"). `--max-iterations` overrides the budget of every algorithm of the run.
"""

import argparse
import ast
import datetime
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
VENV = os.path.join(ROOT, "target", "probe-venv-crfsuite")
VENV_PYTHON = os.path.join(VENV, "bin", "python")
VENV_PACKAGES = ["sklearn-crfsuite", "python-crfsuite", "scikit-learn"]
DEFAULT_OUT = os.path.join(ROOT, "target", "probe-crfsuite", "results.jsonl")

LIBS = ("sklearn_crfsuite", "bilinear.crfsuite")
CORPORA = ("chunking", "pos", "seg")
ALGORITHMS = {
    "lbfgs": {"c1": 0.0, "c2": 1.0, "max_iterations": 100},
    "l2sgd": {"c2": 1.0, "max_iterations": 100},
    "ap": {"max_iterations": 20},
    "pa": {"max_iterations": 20},
    "arow": {"max_iterations": 20},
    # bilinear.crfsuite only.
    "bol": {"max_iterations": 20},
    "bcd": {"max_iterations": 20},
    "sp": {"max_iterations": 20},
}
CRFSUITE_ALGORITHMS = ("lbfgs", "l2sgd", "ap", "pa", "arow")


# ---------------------------------------------------------------- the venv


def in_venv():
    return os.path.realpath(sys.prefix) == os.path.realpath(VENV)


def setup_venv(wheel=None):
    if not os.path.exists(VENV_PYTHON):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
    subprocess.check_call([VENV_PYTHON, "-m", "pip", "install", "--quiet", *VENV_PACKAGES])
    if wheel:
        subprocess.check_call(
            [VENV_PYTHON, "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", wheel]
        )


def reexec_in_venv():
    """Runs this script again with the venv's interpreter (creating the venv if missing)."""
    if in_venv():
        return
    if not os.path.exists(VENV_PYTHON):
        setup_venv()
    os.execv(VENV_PYTHON, [VENV_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])


# ---------------------------------------------------------------- data


def data_dir(arg):
    if arg:
        return arg
    env = os.environ.get("BILINEAR_DATA_DIR")
    return env if env else os.path.join(ROOT, "data")


def need(path, dataset):
    if not os.path.exists(path):
        sys.exit(f"{path} is missing: run `cargo xtask data fetch {dataset}` (or pass --data-dir)")
    return path


def read_conll(path):
    """Sentences of (word, pos) tokens and their chunk tags; blank lines between sentences."""
    sents, tags, cur, cur_tags = [], [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if not fields:
                if cur:
                    sents.append(cur)
                    tags.append(cur_tags)
                    cur, cur_tags = [], []
                continue
            cur.append((sys.intern(fields[0]), sys.intern(fields[1])))
            cur_tags.append(sys.intern(fields[-1]))
    if cur:
        sents.append(cur)
        tags.append(cur_tags)
    return sents, tags


def read_tagged(path):
    """One sentence per line of space-separated `token/tag` items, split at the last '/'."""
    sents, tags = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            items = line.split()
            if not items:
                continue
            words, labels = [], []
            for item in items:
                word, _, tag = item.rpartition("/")
                if not word or not tag:
                    raise ValueError(f"{path}: bad item {item!r}")
                words.append(sys.intern(word))
                labels.append(sys.intern(tag))
            sents.append(words)
            tags.append(labels)
    return sents, tags


def split_every(sents, tags, k=10):
    """Sentences 10, 20, ... (1-based) to test, the rest to train."""
    train = [(s, t) for i, (s, t) in enumerate(zip(sents, tags)) if (i + 1) % k != 0]
    test = [(s, t) for i, (s, t) in enumerate(zip(sents, tags)) if (i + 1) % k == 0]
    return [s for s, _ in train], [t for _, t in train], [s for s, _ in test], [t for _, t in test]


# ---------------------------------------------------------------- features


class Interner:
    """Interns the strings the dicts hold, so that repeated values share one object."""

    def __init__(self):
        self.table = {}

    def __call__(self, s):
        return self.table.setdefault(s, s)


def chunk_features(sent, i):
    """sklearn-crfsuite's tutorial `word2features`, on (word, POS) tokens."""
    word, postag = sent[i]
    features = {
        "bias": 1.0,
        "word.lower()": word.lower(),
        "word[-3:]": word[-3:],
        "word[-2:]": word[-2:],
        "word.isupper()": word.isupper(),
        "word.istitle()": word.istitle(),
        "word.isdigit()": word.isdigit(),
        "postag": postag,
        "postag[:2]": postag[:2],
    }
    if i > 0:
        features.update(neighbour_features("-1", sent[i - 1]))
    else:
        features["BOS"] = True
    if i < len(sent) - 1:
        features.update(neighbour_features("+1", sent[i + 1]))
    else:
        features["EOS"] = True
    return features


def neighbour_features(prefix, token):
    """The tutorial's features of the (word, POS) token before (`-1`) or after (`+1`)."""
    word, postag = token
    return {
        f"{prefix}:word.lower()": word.lower(),
        f"{prefix}:word.istitle()": word.istitle(),
        f"{prefix}:word.isupper()": word.isupper(),
        f"{prefix}:postag": postag,
        f"{prefix}:postag[:2]": postag[:2],
    }


def char_class(c):
    if c.isdigit():
        return "D"
    if c.isalpha():
        return "H" if ord(c) >= 0x2E80 else "L"
    return "P"


def collapsed_classes(word):
    out = []
    for c in word:
        k = char_class(c)
        if not out or out[-1] != k:
            out.append(k)
    return "".join(out)


def pos_features(words, i, intern):
    """20 features of a word of a Chinese POS corpus (see the module's docstring)."""
    n = len(words)

    def w(j):
        j += i
        return words[j] if 0 <= j < n else ("<s>" if j < 0 else "</s>")

    w0, wm1, wp1 = words[i], w(-1), w(1)
    return {
        "bias": 1.0,
        "w[-2]": w(-2),
        "w[-1]": wm1,
        "w[0]": w0,
        "w[1]": wp1,
        "w[2]": w(2),
        "w[-1]|w[0]": intern(wm1 + "|" + w0),
        "w[0]|w[1]": intern(w0 + "|" + wp1),
        "w[-1]|w[1]": intern(wm1 + "|" + wp1),
        "prefix1": intern(w0[:1]),
        "prefix2": intern(w0[:2]),
        "prefix3": intern(w0[:3]),
        "suffix1": intern(w0[-1:]),
        "suffix2": intern(w0[-2:]),
        "suffix3": intern(w0[-3:]),
        "len": intern(str(min(len(w0), 5))),
        "w[-1].last": intern(wm1[-1:] if i > 0 else wm1),
        "w[1].first": intern(wp1[:1] if i + 1 < n else wp1),
        "isdigit": w0.isdigit(),
        "classes": intern(collapsed_classes(w0)),
    }


def seg_features(chars, i, intern):
    """The paper's segmentation templates: characters -2..+2 and five bigrams, plus bias."""
    n = len(chars)

    def c(j):
        j += i
        return chars[j] if 0 <= j < n else ("<s>" if j < 0 else "</s>")

    cm2, cm1, c0, cp1, cp2 = c(-2), c(-1), c(0), c(1), c(2)
    return {
        "bias": 1.0,
        "c[-2]": cm2,
        "c[-1]": cm1,
        "c[0]": c0,
        "c[1]": cp1,
        "c[2]": cp2,
        "c[-2]c[-1]": intern(cm2 + cm1),
        "c[-1]c[0]": intern(cm1 + c0),
        "c[0]c[1]": intern(c0 + cp1),
        "c[1]c[2]": intern(cp1 + cp2),
        "c[-1]c[1]": intern(cm1 + cp1),
    }


def load_corpus(corpus, directory, train_sentences=None, test_sentences=None):
    """(X_train, y_train, X_test, y_test, description) with the feature dicts built."""
    intern = Interner()
    if corpus == "chunking":
        d = os.path.join(directory, "conll2000-subset")
        tr_s, tr_t = read_conll(need(os.path.join(d, "chtrain.txt"), "conll2000-subset"))
        te_s, te_t = read_conll(need(os.path.join(d, "chtest.txt"), "conll2000-subset"))

        def featurize(sent):
            return [
                {k: intern(v) if isinstance(v, str) else v for k, v in chunk_features(sent, i).items()}
                for i in range(len(sent))
            ]

    elif corpus == "pos":
        path = need(os.path.join(directory, "pku1998-pos", "199801.txt"), "pku1998-pos")
        tr_s, tr_t, te_s, te_t = split_every(*read_tagged(path))

        def featurize(sent):
            return [pos_features(sent, i, intern) for i in range(len(sent))]

    elif corpus == "seg":
        path = need(os.path.join(directory, "pku1998", "data.txt"), "pku1998")
        tr_s, tr_t, te_s, te_t = split_every(*read_tagged(path))

        def featurize(sent):
            return [seg_features(sent, i, intern) for i in range(len(sent))]

    else:
        raise ValueError(corpus)
    if train_sentences is not None:
        tr_s, tr_t = tr_s[:train_sentences], tr_t[:train_sentences]
    if test_sentences is not None:
        te_s, te_t = te_s[:test_sentences], te_t[:test_sentences]
    X_train = [featurize(s) for s in tr_s]
    X_test = [featurize(s) for s in te_s]
    labels = {t for seq in tr_t for t in seq}
    info = {
        "train_sentences": len(X_train),
        "train_tokens": sum(map(len, X_train)),
        "test_sentences": len(X_test),
        "test_tokens": sum(map(len, X_test)),
        "labels": len(labels),
        "features_per_token": round(sum(len(d) for x in X_train for d in x) / max(1, sum(map(len, X_train))), 2),
    }
    return X_train, tr_t, X_test, te_t, info


# ---------------------------------------------------------------- scores


def token_accuracy(gold, pred):
    total = sum(len(g) for g in gold)
    right = sum(a == b for g, p in zip(gold, pred) for a, b in zip(g, p))
    return right / total


def prf(tp, n_pred, n_gold):
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def split_tag(tag):
    head, sep, tail = tag.partition("-")
    return (head, tail) if sep else (tag, "")


def chunk_boundaries(prev_tag, tag, prev_type, ty):
    """conlleval's endOfChunk / startOfChunk (as online_bilinear::metrics::chunk_prf)."""
    ends = (
        (prev_tag, tag) in {("B", "B"), ("B", "O"), ("I", "B"), ("I", "O"), ("E", "E"), ("E", "I"), ("E", "O")}
        or prev_tag in ("]", "[")
        or (prev_tag != "O" and prev_tag != "." and prev_type != ty)
    )
    starts = (
        (prev_tag, tag) in {("B", "B"), ("I", "B"), ("O", "B"), ("O", "I"), ("E", "E"), ("E", "I"), ("O", "E")}
        or tag in ("[", "]")
        or (tag != "O" and tag != "." and prev_type != ty)
    )
    return ends, starts


def chunk_f1(gold, pred):
    """Chunk F1 with conlleval's semantics, counts pooled over chunk types."""
    correct = found_gold = found_pred = 0
    for g, p in zip(gold, pred):
        in_correct = False
        last_c, last_ct, last_g, last_gt = "O", "", "O", ""
        for i in range(len(g) + 1):
            c, ct = split_tag(g[i]) if i < len(g) else ("O", "")
            q, qt = split_tag(p[i]) if i < len(p) else ("O", "")
            end_c, start_c = chunk_boundaries(last_c, c, last_ct, ct)
            end_g, start_g = chunk_boundaries(last_g, q, last_gt, qt)
            if in_correct:
                if end_c and end_g and last_gt == last_ct:
                    in_correct = False
                    correct += 1
                elif end_c != end_g or qt != ct:
                    in_correct = False
            if start_c and start_g and qt == ct:
                in_correct = True
            found_gold += start_c
            found_pred += start_g
            last_c, last_ct, last_g, last_gt = c, ct, q, qt
        if in_correct:
            correct += 1
    return prf(correct, found_pred, found_gold)


def bmes_spans(tags):
    """Word spans of b/m/e/s tags, read leniently (online_bilinear::metrics::bmes_spans)."""
    spans, start = [], 0
    for i, tag in enumerate(tags):
        if i > start and tag in ("b", "s", "B", "S"):
            spans.append((start, i))
            start = i
        if tag in ("e", "s", "E", "S"):
            spans.append((start, i + 1))
            start = i + 1
    if start < len(tags):
        spans.append((start, len(tags)))
    return spans


def word_f1(gold, pred):
    tp = n_pred = n_gold = 0
    for g, p in zip(gold, pred):
        gs = set(bmes_spans(g))
        ps = bmes_spans(p)
        n_gold += len(gs)
        n_pred += len(ps)
        tp += sum(s in gs for s in ps)
    return prf(tp, n_pred, n_gold)


# ---------------------------------------------------------------- memory


def status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def trim_heap():
    """Returns the C heap's free memory to the kernel (glibc's malloc_trim), so that the
    resident size before the fit does not count memory freed while the corpus was read."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def reset_peak():
    """Resets VmHWM to the current resident size; False if the kernel refuses."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def mib(kib):
    return None if kib is None else round(kib / 1024.0, 1)


# ---------------------------------------------------------------- one fit (the worker)


def versions(lib):
    from importlib import metadata

    out = {"python": platform.python_version()}
    names = ["sklearn-crfsuite", "python-crfsuite", "scikit-learn"] if lib == "sklearn_crfsuite" else ["bilinear"]
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def training_log_summary(crf):
    log = getattr(crf, "training_log_", None)
    out = {}
    if log is None:
        return out
    iterations = getattr(log, "iterations", None)
    if iterations is not None:
        out["iterations"] = len(iterations)
    for key, name in (("featgen_num_features", "features"), ("training_seconds", "library_training_s")):
        value = getattr(log, key, None)
        if value is not None:
            out[name] = value
    return out


def worker(args):
    if args.lib == "sklearn_crfsuite":
        import sklearn_crfsuite
    else:
        import bilinear.crfsuite as sklearn_crfsuite
    params = dict(ALGORITHMS[args.algorithm])
    if args.max_iterations is not None:
        params["max_iterations"] = args.max_iterations
    for item in args.set or []:
        key, _, value = item.partition("=")
        params[key] = ast.literal_eval(value)
    n_jobs = None if args.n_jobs in (None, "none") else int(args.n_jobs)
    if n_jobs is not None:
        if args.lib == "sklearn_crfsuite":
            sys.exit("sklearn-crfsuite has no n_jobs (it trains on one thread)")
        params["n_jobs"] = n_jobs

    t = time.perf_counter()
    X_train, y_train, X_test, y_test, info = load_corpus(
        args.corpus, data_dir(args.data_dir), args.train_sentences, args.test_sentences
    )
    build_s = time.perf_counter() - t
    gc.collect()
    trim_heap()
    data_rss = status_kib("VmRSS")
    data_hwm = status_kib("VmHWM")
    peak_reset = reset_peak()

    crf = sklearn_crfsuite.CRF(algorithm=args.algorithm, **params)
    load_before = os.getloadavg()
    cpu0, t0 = time.process_time(), time.perf_counter()
    crf.fit(X_train, y_train)
    fit_s = time.perf_counter() - t0
    fit_cpu_s = time.process_time() - cpu0
    load_after = os.getloadavg()
    fit_hwm = status_kib("VmHWM")

    trim_heap()
    after_fit_rss = status_kib("VmRSS")
    reset_peak()
    t0 = time.perf_counter()
    pred = crf.predict(X_test)
    predict_s = time.perf_counter() - t0
    predict_hwm = status_kib("VmHWM")
    pred = [list(p) for p in pred]

    scores = {"accuracy": round(100 * token_accuracy(y_test, pred), 3)}
    if args.corpus == "chunking":
        scores["chunk_f1"] = round(100 * chunk_f1(y_test, pred), 3)
    if args.corpus == "seg":
        scores["word_f1"] = round(100 * word_f1(y_test, pred), 3)

    result = {
        "lib": args.lib,
        "corpus": args.corpus,
        "algorithm": args.algorithm,
        "params": params,
        "n_jobs": n_jobs,
        **info,
        **scores,
        "fit_s": round(fit_s, 2),
        "fit_cpu_s": round(fit_cpu_s, 2),
        "predict_s": round(predict_s, 2),
        "build_features_s": round(build_s, 2),
        "data_rss_mib": mib(data_rss),
        "data_peak_mib": mib(data_hwm),
        "fit_peak_rss_mib": mib(fit_hwm) if peak_reset else None,
        "fit_peak_over_data_mib": mib(fit_hwm - data_rss) if peak_reset else None,
        "after_fit_rss_mib": mib(after_fit_rss),
        "predict_peak_over_start_mib": mib(predict_hwm - after_fit_rss) if peak_reset else None,
        # The process's peak over its life. ru_maxrss is the kernel's VmHWM, which the
        # resets above lower, so with them the peak is the largest of the three phases'.
        "process_peak_mib": mib(max(data_hwm, fit_hwm, predict_hwm))
        if peak_reset
        else mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
        **training_log_summary(crf),
        "versions": versions(args.lib),
        "when": datetime.datetime.now().isoformat(timespec="seconds"),
    }
    print("RESULT " + json.dumps(result), flush=True)


# ---------------------------------------------------------------- the driver


def fmt(x, digits=2):
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def table(results):
    head = (
        "| lib | corpus | algorithm | n_jobs | train sents / tokens | labels | accuracy % | F1 % "
        "| fit s | fit CPU s | predict s | iterations | features | data MiB | fit peak over data MiB "
        "| load before -> after |"
    )
    rows = [head, "|" + "---|" * head.count(" | ") + "---|"]
    for r in results:
        f1 = r.get("chunk_f1", r.get("word_f1"))
        rows.append(
            "| {lib} | {corpus} | {algorithm} | {n_jobs} | {ts:,} / {tt:,} | {labels} | {acc} | {f1} | {fit} | {cpu} "
            "| {pred} | {it} | {feats} | {data} | {peak} | {lb} -> {la} |".format(
                lib=r["lib"],
                corpus=r["corpus"],
                algorithm=r["algorithm"],
                n_jobs=fmt(r.get("n_jobs")),
                ts=r["train_sentences"],
                tt=r["train_tokens"],
                labels=r["labels"],
                acc=fmt(r["accuracy"]),
                f1=fmt(f1),
                fit=fmt(r["fit_s"], 1),
                cpu=fmt(r["fit_cpu_s"], 1),
                pred=fmt(r["predict_s"], 2),
                it=fmt(r.get("iterations")),
                feats="-" if r.get("features") is None else f"{r['features']:,}",
                data=fmt(r["data_rss_mib"], 0),
                peak=fmt(r["fit_peak_over_data_mib"], 0),
                lb=fmt(r["load_before"][0]),
                la=fmt(r["load_after"][0]),
            )
        )
    return "\n".join(rows)


def csv_list(s, allowed=None):
    items = [x.strip() for x in s.split(",") if x.strip()]
    if allowed is not None:
        for x in items:
            if x not in allowed:
                sys.exit(f"unknown value {x!r}: one of {', '.join(allowed)}")
    return items


def driver(args):
    corpora = csv_list(args.corpus, CORPORA)
    algorithms = csv_list(args.algorithm, ALGORITHMS)
    jobs = csv_list(args.n_jobs) if args.n_jobs else ["none"]
    if args.lib == "sklearn_crfsuite":
        bad = [a for a in algorithms if a not in CRFSUITE_ALGORITHMS]
        if bad:
            sys.exit(f"sklearn-crfsuite has no algorithm {', '.join(bad)}")
        if jobs != ["none"]:
            sys.exit("sklearn-crfsuite has no n_jobs (it trains on one thread)")
    try:
        __import__(args.lib)
    except ImportError as e:
        hint = (
            "build and install the wheel: target/python-venv/bin/maturin build --release --manifest-path "
            "bindings/python/Cargo.toml --out target/python-wheels, then rerun with "
            "--setup --wheel target/python-wheels/bilinear-*.whl"
            if args.lib == "bilinear.crfsuite"
            else "run with --setup"
        )
        sys.exit(f"cannot import {args.lib} ({e}): {hint}")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    uptime = lambda: subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()  # noqa: E731
    print(f"# {uptime()}", file=sys.stderr, flush=True)
    results = []
    for corpus in corpora:
        for algorithm in algorithms:
            for n_jobs in jobs:
                cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--lib", args.lib]
                cmd += ["--corpus", corpus, "--algorithm", algorithm, "--n-jobs", n_jobs]
                for flag, value in (
                    ("--train-sentences", args.train_sentences),
                    ("--test-sentences", args.test_sentences),
                    ("--max-iterations", args.max_iterations),
                    ("--data-dir", args.data_dir),
                ):
                    if value is not None:
                        cmd += [flag, str(value)]
                for item in args.set or []:
                    cmd += ["--set", item]
                print(f"# {corpus} {algorithm} n_jobs={n_jobs}: {uptime()}", file=sys.stderr, flush=True)
                proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
                lines = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
                if proc.returncode != 0 or not lines:
                    print(f"# FAILED ({proc.returncode}): {' '.join(cmd)}\n{proc.stdout}", file=sys.stderr)
                    continue
                result = json.loads(lines[-1][len("RESULT ") :])
                results.append(result)
                with open(args.out, "a") as f:
                    f.write(json.dumps(result) + "\n")
                print(json.dumps(result), flush=True)
    print(f"# {uptime()}", file=sys.stderr, flush=True)
    print(table(results))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--lib", choices=LIBS, default="sklearn_crfsuite")
    p.add_argument("--corpus", default="chunking", help="comma-separated: chunking, pos, seg")
    p.add_argument("--algorithm", default="lbfgs", help="comma-separated: " + ", ".join(ALGORITHMS))
    p.add_argument("--n-jobs", default=None, help="comma-separated thread counts (bilinear.crfsuite only)")
    p.add_argument("--train-sentences", type=int, default=None, help="the first N training sentences")
    p.add_argument("--test-sentences", type=int, default=None, help="the first N test sentences")
    p.add_argument("--max-iterations", type=int, default=None, help="override every algorithm's budget")
    p.add_argument("--set", action="append", default=None, metavar="KEY=VALUE",
                   help="an extra CRF parameter (repeatable; VALUE read as a Python literal), "
                        "e.g. averaging=True")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--out", default=DEFAULT_OUT, help="JSON lines, appended (default %(default)s)")
    p.add_argument("--setup", action="store_true", help="create the venv and install the packages")
    p.add_argument("--wheel", default=None, help="with --setup: a bilinear wheel to install")
    p.add_argument("--table", default=None, metavar="JSONL", help="print the table of stored results")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.table:
        with open(args.table) as f:
            print(table([json.loads(x) for x in f if x.strip()]))
        return
    if args.setup:
        setup_venv(args.wheel)
        if not args.corpus or "--corpus" not in sys.argv:
            return
    reexec_in_venv()
    if args.worker:
        worker(args)
    else:
        driver(args)


if __name__ == "__main__":
    main()
