#!/usr/bin/env python3
"""Import cycles between the top-level modules of each crate (non-test code).

An edge A -> B means a file of module A names `crate::B` (or `super::B` from a top-level
file, or `super::super::B` one level down). Code after the first `#[cfg(test)]` of a file
is test code and not read. Prints every strongly connected component of more than one
module; exits 1 if there is any.
"""
import os
import re
import sys

# The workspace members outside crates/; every crate under crates/ is found by `roots`, so
# a new crate is checked without editing a list.
OTHER_ROOTS = ["xtask", "bindings/python", "benches"]
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def top_modules(src):
    mods = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, src).split(os.sep)
            if rel in (["lib.rs"], ["main.rs"]):
                continue
            top = rel[0][:-3] if len(rel) == 1 else rel[0]
            mods.setdefault(top, []).append((path, len(rel) - 1))
    return mods


def group_heads(text):
    """Top-level identifiers of a `{a, b::c, d::{e}}` group starting at text[0] == '{'."""
    depth, heads, token, expect = 0, [], "", True
    for ch in text:
        if ch == "{":
            depth += 1
            if depth == 1:
                expect = True
                continue
        elif ch == "}":
            depth -= 1
            if depth == 0:
                break
        if depth == 1:
            if ch == ",":
                expect = True
                token = ""
            elif expect and (ch.isalnum() or ch == "_"):
                token += ch
            elif token:
                heads.append(token)
                token, expect = "", False
    if token:
        heads.append(token)
    return heads


def references(code, depth):
    out = set()
    prefixes = [r"(?<![$\w])crate::"]
    prefixes.append(r"(?<![\w:])" + r"super::" * (depth + 1))
    for prefix in prefixes:
        for m in re.finditer(prefix, code):
            rest = code[m.end():m.end() + 400]
            if rest.startswith("{"):
                out.update(group_heads(rest))
            else:
                n = re.match(IDENT, rest)
                if n:
                    out.add(n.group(0))
    return out


def strip(code):
    code = re.sub(r"//[^\n]*", "", code)
    cut = code.find("#[cfg(test)]")
    return code if cut < 0 else code[:cut]


def sccs(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def roots(root):
    crates = os.path.join(root, "crates")
    names = sorted(os.listdir(crates)) if os.path.isdir(crates) else []
    return [os.path.join("crates", n) for n in names] + OTHER_ROOTS


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    found = 0
    for crate in roots(root):
        src = os.path.join(root, crate, "src")
        if not os.path.isdir(src):
            continue
        mods = top_modules(src)
        graph = {m: set() for m in mods}
        for m, files in mods.items():
            for path, depth in files:
                with open(path, encoding="utf-8") as f:
                    code = strip(f.read())
                for r in references(code, depth):
                    if r in mods and r != m:
                        graph[m].add(r)
        for comp in sccs(graph):
            if len(comp) > 1:
                found += 1
                comp.sort()
                edges = [f"{a}->{b}" for a in comp for b in sorted(graph[a]) if b in comp]
                print(f"{crate}: cycle {' <-> '.join(comp)}  ({', '.join(edges)})")
    if found:
        print(f"{found} cycle(s)")
        return 1
    print("no import cycles between top-level modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
