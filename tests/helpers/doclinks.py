#!/usr/bin/env python3
"""doclinks.py FILE...: every relative Markdown link of FILEs resolves.

A link [text](path) or ![alt](path) must name a file or directory that
exists, relative to the file holding it; a #anchor must be a heading of
its target (GitHub's rule: lower case, punctuation but '-' and '_'
dropped, spaces as '-'). External links (scheme:) are not followed.
Prints one line per broken link, "FILE:LINE: LINK: why", and exits 1 when
there is one."""
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


def main(files):
    bad = 0
    for path in files:
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
