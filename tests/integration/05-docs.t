#!/usr/bin/env bash
# 05-docs.t: the docs hold together: README.md stays a short entry point,
# every relative link of README.md and docs/ resolves (file and #anchor),
# every source path they and the man page name exists,
# the man page renders without a warning and keeps its JSON example whole,
# and --help names the man page, also for a source tree.
. "$(dirname "$0")/lib.sh"

lines=$(wc -l <"$TOP/README.md")
ok $(( lines <= 300 ? 0 : 1 )) "README.md is an entry point: $lines lines (at most 300)"

for f in ARCHITECTURE HACKING; do
	[ -f "$TOP/docs/$f.md" ]
	ok $? "docs/$f.md exists"
done

run python3 "$TESTS_DIR/helpers/doclinks.py" "$TOP/README.md" "$TOP"/docs/*.md
is "$rc $out" "0 " "every relative link of README.md and docs/ resolves"

# Files move (layers, renumbered tests): the docs must follow them.
run python3 "$TESTS_DIR/helpers/doclinks.py" --root "$TOP" "$TOP/README.md" "$TOP"/docs/*.md \
	"$TOP/contrib/man/cx5prof.8"
is "$rc $out" "0 " "every source path README.md, docs/ and the man page name exists"

run groff -man -Tutf8 -ww "$TOP/contrib/man/cx5prof.8"
is "$rc $err" "0 " "the man page renders without a warning (groff -ww)"
printf '%s\n' "$out" | grep -qF '{"changed": false, "failed": true, "exit_code": 66, "msg":'
ok $? "the man page's JSON error document keeps its quotes"

run "$CX5PROF" --help
printf '%s\n' "$out" | grep -qF "'man ./contrib/man/cx5prof.8'"
ok $? "--help names the man page of a source tree"
printf '%s\n' "$out" | grep -qF "cx5prof(8)"
ok $? "--help names the installed man page"

done_testing
