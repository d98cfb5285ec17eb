#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Finds the circles of includes between modules; tests/layout.sh runs it.

A module is x.c and x.h together (a header or a file alone is a module of
its own). Module A -> module B when A's .c or .h includes B's header with
#include "..."; angle-bracket includes and files outside the trees named
are no modules. A circle means neither module can be understood, tested or
moved without the other: the one-way order of folders (layout.sh) cannot
see one inside a folder, this does.

    modcycles.py [--base DIR] [-I DIR]... TREE...

TREE: the folders whose files (and their subfolders') make up the graph.
-I: where an include not beside its file is looked for, in order, as the
compiler's -I (an include is first looked for in its file's folder).
--base: module names are paths relative to it ("collect/backend").

Prints one line per circle, "a -> b -> a: FILE includes "x.h", ...", the
include each arrow comes from, and exits 1 when there is one; 0 when none,
2 on a bad argument.
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(trees):
    """Every .c and .h file under @trees, as normalized relative paths."""
    files = []
    for tree in trees:
        for root, dirs, names in os.walk(tree):
            dirs.sort()
            for n in sorted(names):
                if n.endswith(('.c', '.h')):
                    files.append(os.path.normpath(os.path.join(root, n)))
    return files


def resolve(path, inc, incdirs):
    """The file @path's #include "@inc" names, as the compiler finds it."""
    for d in [os.path.dirname(path)] + incdirs:
        cand = os.path.normpath(os.path.join(d, inc))
        if os.path.isfile(cand):
            return cand
    return None


def graph(files, incdirs, base):
    """Module -> {module: [(file, include), ...]} of the arrows between them."""
    mod = {f: os.path.relpath(os.path.splitext(f)[0], base) for f in files}
    arrows = {m: {} for m in mod.values()}
    for f in files:
        with open(f, encoding='utf-8', errors='replace') as fh:
            text = fh.read()
        for inc in INCLUDE.findall(text):
            to = resolve(f, inc, incdirs)
            if to not in mod or mod[to] == mod[f]:
                continue
            arrows[mod[f]].setdefault(mod[to], []).append((f, inc))
    return arrows


def groups(arrows):
    """The strongly connected groups of more than one module (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []

    def visit(v):
        # iterative: a deep chain of includes must not hit Python's limit
        work = [(v, iter(sorted(arrows[v])))]
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(arrows[w]))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    g = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        g.append(w)
                        if w == node:
                            break
                    if len(g) > 1:
                        out.append(sorted(g))

    for v in sorted(arrows):
        if v not in index:
            visit(v)
    return sorted(out)


def shortest(arrows, members, src, dst):
    """The shortest path of modules from @src to @dst within @members."""
    prev = {src: None}
    todo = [src]
    for v in todo:
        if v == dst:
            break
        for w in sorted(arrows[v]):
            if w in members and w not in prev:
                prev[w] = v
                todo.append(w)
    path = [dst]
    while prev[path[-1]] is not None:
        path.append(prev[path[-1]])
    return path[::-1]


def circles(arrows, group):
    """
    The circles of @group: through each of its arrows, the shortest circle
    that holds it, each once, from its least module. Every include that
    takes part in a circle is shown; the longer circles the same arrows
    also make, which can be many, are not.
    """
    members = set(group)
    found = set()
    for a in group:
        for b in sorted(arrows[a]):
            if b not in members:
                continue
            c = [a] + shortest(arrows, members, b, a)
            i = c.index(min(c[:-1]))
            found.add(tuple(c[i:-1] + c[:i + 1]))
    return sorted(found, key=lambda c: (len(c), c))


def main():
    ap = argparse.ArgumentParser(description='circles of includes between modules')
    ap.add_argument('--base', default='.')
    ap.add_argument('-I', dest='incdirs', action='append', default=[])
    ap.add_argument('trees', nargs='+')
    args = ap.parse_args()
    for t in args.trees + args.incdirs:
        if not os.path.isdir(t):
            print(f'modcycles: {t}: no such folder', file=sys.stderr)
            return 2
    arrows = graph(sources(args.trees), [os.path.normpath(d) for d in args.incdirs],
                   args.base)
    bad = 0
    for g in groups(arrows):
        for c in circles(arrows, g):
            why = ', '.join(f'{f} includes "{inc}"' for a, b in zip(c, c[1:])
                            for f, inc in arrows[a][b])
            print(f'{" -> ".join(c)}: {why}')
            bad = 1
    return bad


if __name__ == '__main__':
    sys.exit(main())
