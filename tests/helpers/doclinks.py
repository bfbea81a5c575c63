#!/usr/bin/env python3
"""doclinks.py [--root DIR] FILE...: the links and paths of FILEs resolve.

A link [text](path) or ![alt](path) must name a file or directory that
exists, relative to the file holding it; a #anchor must be a heading of
its target (GitHub's rule: lower case, punctuation but '-' and '_'
dropped, spaces as '-'). External links (scheme:) are not followed.
With --root, every source path a FILE names (engine/..., tests/...,
contrib/..., profiles/..., schemas/..., docs/..., not after build/) must
exist under DIR, except a pattern (upper-case placeholders such as NAME,
or a name cut at '-' or '_'): renamed or moved files leave no stale name.
Prints one line per broken link or path, "FILE:LINE: LINK: why", and
exits 1 when there is one."""
import os
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def lines_outside_code(path):
    inside = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                inside = not inside
                continue
            if not inside:
                yield n, re.sub(r"`[^`]*`", "", line)


def anchors(path):
    seen = {}
    out = set()
    with open(path, encoding="utf-8") as f:
        inside = False
        for line in f:
            if FENCE.match(line):
                inside = not inside
                continue
            m = None if inside else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
            k = seen.get(slug, 0)
            seen[slug] = k + 1
            out.add(slug if k == 0 else "%s-%d" % (slug, k))
    return out


PATH = re.compile(r"(?<![\w/.-])((?:engine|tests|contrib|profiles|schemas|docs)/[A-Za-z0-9_./@-]+)")


def stale_paths(path, root):
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            for name in PATH.findall(line):
                name = name.rstrip(".,:;")
                if re.search(r"[A-Z]{2,}|[-_]$", name):
                    continue
                if not os.path.exists(os.path.join(root, name)):
                    yield n, name


def main(argv):
    root = None
    if argv[:1] == ["--root"]:
        root, argv = argv[1], argv[2:]
    files = argv
    bad = 0
    for path in files:
        for n, name in stale_paths(path, root) if root else ():
            print("%s:%d: %s: no such file under %s" % (path, n, name, root))
            bad += 1
        for n, line in lines_outside_code(path):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                why = None
                if not os.path.exists(dest):
                    why = "no such file"
                elif anchor and (not dest.endswith(".md") or anchor not in anchors(dest)):
                    why = "no heading #%s in %s" % (anchor, dest)
                if why:
                    print("%s:%d: %s: %s" % (path, n, target, why))
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
