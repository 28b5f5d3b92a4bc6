"""CRFsuite (python-crfsuite) on a word/TAG corpus with the attributes of
crates/chain-crf/examples/pos.rs: python crfsuite_pos.py FILE ALGORITHM ITERATIONS [N].
Run in a probe venv with python-crfsuite installed (never a dependency of the package)."""
import sys, time, resource
import pycrfsuite
path, algo, iters = sys.argv[1], sys.argv[2], int(sys.argv[3])
limit = int(sys.argv[4]) if len(sys.argv) > 4 else 10**9
def attrs(words, i):
    w = words[i]
    at = lambda d: "<s>" if i + d < 0 else (words[i + d] if i + d < len(words) else "</s>")
    out = ["bias", "w=" + w, "p1=" + w[:1], "p2=" + w[:2], "s1=" + w[-1:], "s2=" + w[-2:],
           "len=%d" % min(len(w), 5), "w-1=" + at(-1), "w+1=" + at(1), "w-2=" + at(-2), "w+2=" + at(2),
           "w-1|w=%s|%s" % (at(-1), w), "w|w+1=%s|%s" % (w, at(1)), "s1-1=" + (at(-1)[-1:] or " "),
           "p1+1=" + (at(1)[:1] or " "), "digit=" + ("true" if any(c.isnumeric() for c in w) else "false"),
           "w-2|w-1=%s|%s" % (at(-2), at(-1)), "w+1|w+2=%s|%s" % (at(1), at(2)), "s1|p1=%s|%s" % (w[-1:], w[:1])]
    if i == 0: out.append("BOS")
    if i + 1 == len(words): out.append("EOS")
    return out
tr = pycrfsuite.Trainer(verbose=False)
test = []
n = 0
for k, line in enumerate(open(path, encoding="utf-8")):
    toks = [t.rsplit("/", 1) for t in line.split() if "/" in t]
    if not toks: continue
    if k % 10 == 9:
        test.append(toks); continue
    if n >= limit: continue
    n += 1
    words = [t[0] for t in toks]
    tr.append([attrs(words, i) for i in range(len(words))], [t[1] for t in toks])
tr.select(algo)
tr.set("max_iterations", iters)
if algo == "lbfgs": tr.set("c2", 1.0)
t0 = time.time(); c0 = time.process_time()
tr.train("/tmp/crfsuite_pos.model")
secs = time.time() - t0; cpu = time.process_time() - c0
tg = pycrfsuite.Tagger(); tg.open("/tmp/crfsuite_pos.model")
right = total = 0
for toks in test:
    words = [t[0] for t in toks]
    pred = tg.tag([attrs(words, i) for i in range(len(words))])
    right += sum(p == t[1] for p, t in zip(pred, toks)); total += len(toks)
its = tr.logparser.last_iteration
print(f"crfsuite {algo}: {secs:.2f} s wall, {cpu:.2f} s cpu, {iters} iterations, accuracy {100*right/total:.2f}%, peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024:.0f} MB")
