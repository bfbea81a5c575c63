#!/usr/bin/env python3
"""check-layering.py: the layering rules of engine/LAYERS, enforced.

Run by `make layering` (after the engine's objects are built) as
    tests/check-layering.py [--root DIR] [--build DIR]
and fails (exit 1, one line per problem on stderr) on:
  - a folder of engine/ without its row in engine/LAYERS, a module directly
    in engine/ that the table's `pipeline =` line does not name (or a named
    one that is missing), a folder inside a folder of engine/;
  - an #include the table does not allow, "../" in an include, a header
    of the same folder named with its folder, only cli including cli/;
  - two source files of engine/ with the same name;
  - <sqlite3.h> or history_db() in engine/ outside engine/store/ (the
    history's SQL lives in store/);
  - a verb file of engine/cli/ (verb_*.c) calling into another verb file,
    read from the objects' symbols (nm), not from the includes;
  - a circle of includes between modules, a circle of calls (nm) between
    modules of different folders or inside engine/cli/;
  - a row of engine/LAYERS that docs/ARCHITECTURE.md does not show.
A problem listed in tests/layering.debts (while it is being paid off) is
not one, and a listed problem that no longer occurs is.
A module is NAME.c with NAME.h; a file's own header does not count.
"""
import argparse
import os
import re
import subprocess
import sys

problems = []


def complain(where, line, text):
    problems.append((where, line, text))


def read_table(root):
    path = os.path.join(root, "engine/LAYERS")
    uses, pipeline, rows = {}, [], []
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            rows.append(raw.rstrip("\n"))
            words = line.split()
            if len(words) > 1 and words[1] == "=":
                if words[0] != "pipeline":
                    complain("engine/LAYERS", n, "only the pipeline's modules are listed with '='")
                pipeline = words[2:]
                continue
            allowed = {}
            for w in words[1:]:
                if w == "-":
                    continue
                layer, _, mods = w.partition(":")
                allowed[layer] = set(mods.split(",")) if mods else None
            uses[words[0]] = allowed
    return uses, pipeline, rows


def layer_of(f):
    parts = f.split("/")
    if parts[0] != "engine":
        return "test"
    if len(parts) == 2:
        return "pipeline"
    return parts[1]


def source_files(root):
    out = []
    for top in ("engine", "tests/unit", "tests/fuzz"):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, name), root))
    return out


def module(f):
    return f[: -len(".c")] if f.endswith((".c", ".h")) else f


def sccs(graph):
    """Tarjan's strongly connected components, iteratively."""
    index, low, onstack, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        onstack.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    onstack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in onstack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    onstack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def check_folders(root, files, uses, pipeline):
    for d in sorted(os.listdir(os.path.join(root, "engine"))):
        if os.path.isdir(os.path.join(root, "engine", d)) and d not in uses:
            complain("engine/" + d, 0, "a folder without its row in engine/LAYERS")
    for layer, allowed in uses.items():
        if layer != "pipeline" and not os.path.isdir(os.path.join(root, "engine", layer)):
            complain("engine/LAYERS", 0, "row %s names no folder of engine/" % layer)
        for other in allowed:
            if other != "*" and other not in uses:
                complain("engine/LAYERS", 0, "row %s uses %s, which has no row" % (layer, other))
    direct = {os.path.basename(module(f)) for f in files if layer_of(f) == "pipeline"}
    for m in sorted(direct - set(pipeline)):
        complain("engine/%s" % m, 0, "a module directly in engine/ that the table's pipeline does not list")
    for m in sorted(set(pipeline) - direct):
        complain("engine/LAYERS", 0, "the pipeline lists %s, which is not in engine/" % m)
    for f in files:
        if f.startswith("engine/") and f.count("/") > 2:
            complain(f, 1, "engine/ has one level of folders")
    names = {}
    for f in files:
        if f.startswith("engine/"):
            names.setdefault(os.path.basename(f), []).append(f)
    for name, where in sorted(names.items()):
        if len(where) > 1:
            complain(" ".join(where), 0, "two files named %s" % name)


def check_includes(root, files, uses):
    edges = set()
    for f in files:
        layer = layer_of(f)
        here = os.path.dirname(f)
        with open(os.path.join(root, f), errors="replace") as fh:
            lines = fh.read().split("\n")
        for n, text in enumerate(lines, 1):
            if layer != "test" and re.match(r"\s*#\s*include\s*<sqlite3\.h>", text) and layer != "store":
                complain(f, n, "includes <sqlite3.h>: the history's SQL lives in engine/store/")
            if layer != "test" and layer != "store" and re.search(r"\bhistory_db\s*\(", text):
                complain(f, n, "calls history_db(): the history's SQL lives in engine/store/")
            m = re.match(r'#include "([^"]+)"', text)
            if not m:
                continue
            inc = m.group(1)
            if inc.startswith("../") or "/../" in inc:
                complain(f, n, '"%s" climbs out of its directory' % inc)
                continue
            if here != "engine" and layer != "test" and os.path.exists(os.path.join(root, here, inc)):
                target = os.path.join(here, inc)
            elif os.path.exists(os.path.join(root, "engine", inc)):
                target = os.path.join("engine", inc)
            else:
                if layer != "test":
                    complain(f, n, '"%s" is not a header of engine/' % inc)
                continue
            if "/" in inc and here == os.path.dirname(target):
                complain(f, n, '"%s": a header of the same folder is named without it' % inc)
            if layer == "test":
                continue
            edges.add((module(f), module(target)))
            to = layer_of(target)
            if to == layer:
                continue
            if to == "cli":
                complain(f, n, 'includes "%s": only engine/cli/ uses the command layer' % inc)
                continue
            allowed = uses.get(layer, {})
            if "*" in allowed:
                continue
            if to not in allowed:
                complain(f, n, 'includes "%s" (engine/LAYERS: %s may not use %s)' % (inc, layer, to))
                continue
            only = allowed[to]
            if only is not None and os.path.basename(module(target)) not in only:
                complain(f, n, 'includes "%s": %s uses only %s of %s' % (inc, layer, ",".join(sorted(only)), to))
    graph = {}
    for a, b in edges:
        if a != b:
            graph.setdefault(a, set()).add(b)
    for comp in sccs(graph):
        complain("engine", 0, "a circle of includes between modules: %s" % " ".join(comp))


def check_calls(root, build, files):
    """Call edges from the objects' symbols: module A calls module B when
    A's object has an undefined symbol that B's object defines."""
    sources = [f for f in files if f.startswith("engine/") and f.endswith(".c")]
    defined, undefined = {}, {}
    objs = {}
    missing = []
    for f in sources:
        obj = os.path.join(build, f[: -len(".c")] + ".o")
        if os.path.exists(obj):
            objs[obj] = module(f)
            undefined[module(f)] = set()
        else:
            missing.append(obj)
    if missing:
        complain(missing[0], 0, "no object to read the calls from (build first: make all; %d missing)" % len(missing))
        return False
    # One nm for all objects: "OBJECT:[ADDRESS] TYPE SYMBOL" a line.
    out = subprocess.run(["nm", "-A"] + sorted(objs), capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        obj, _, rest = line.partition(":")
        mod = objs.get(obj)
        parts = rest.split()
        if mod is None:
            continue
        if len(parts) == 2 and parts[0] == "U":
            undefined[mod].add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRGSC":
            defined.setdefault(parts[2], mod)
    graph = {}
    verb = re.compile(r"^engine/cli/verb_[^/]+$")
    for mod, syms in sorted(undefined.items()):
        for s in sorted(syms):
            to = defined.get(s)
            if to is None or to == mod:
                continue
            graph.setdefault(mod, set()).add(to)
            if verb.match(mod) and verb.match(to):
                complain(mod + ".c", 0, "calls %s() of %s.c: a verb never calls another verb's file" % (s, to))
    for comp in sccs(graph):
        folders = {os.path.dirname(m) for m in comp}
        if len(folders) > 1 or "engine/cli" in folders:
            complain("engine", 0, "a circle of calls between modules: %s" % " ".join(comp))
    return True


def read_debts(root):
    """tests/layering.debts: problems known and being paid off, one a line
    as "FILE: TEXT" (no line number); each must still occur."""
    path = os.path.join(root, "tests/layering.debts")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]


def check_doc(root, rows):
    path = os.path.join(root, "docs/ARCHITECTURE.md")
    with open(path) as f:
        doc = {l.strip() for l in f.read().split("\n")}
    for row in rows:
        if row.strip() not in doc:
            complain("docs/ARCHITECTURE.md", 0, "does not show the row of engine/LAYERS: %s" % row.strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--build", default=None, help="where the objects are (default ROOT/build)")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    build = os.path.abspath(args.build or os.environ.get("BUILDDIR") or os.path.join(root, "build"))
    uses, pipeline, rows = read_table(root)
    files = source_files(root)
    check_folders(root, files, uses, pipeline)
    check_includes(root, files, uses)
    built = check_calls(root, build, files)
    check_doc(root, rows)
    debts = read_debts(root)
    seen = set()
    bad = []
    for where, line, text in problems:
        key = "%s: %s" % (where, text)
        if key in debts:
            seen.add(key)
            continue
        bad.append("%s:%s: %s" % (where, line, text))
    for d in debts:
        if d not in seen and built:
            bad.append("tests/layering.debts: %s: paid off, remove the line" % d)
    for p in bad:
        print(p, file=sys.stderr)
    if bad:
        return 1
    print("layering: ok (%d engine files, %d rows)" % (sum(f.startswith("engine/") for f in files), len(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
