#!/usr/bin/env bash
# 154-make-goals.t: every goal of the Makefile's NO_PKG_GOALS (goals that run
# without pkg-config's flags, so that `make deps` can install the libraries
# first) compiles nothing in its own make: each compile line it leads to
# carries the libraries' include flags. A fresh clone has no build/, so a goal
# that compiled at the top level would fail there (`make demo` did).
. "$(dirname "$0")/lib.sh"

need_tool pkg-config
inc=$(pkg-config --cflags-only-I libnl-3.0 2>/dev/null | awk '{print $1}')
[ -n "$inc" ] || skip_all "pkg-config knows no libnl-3.0 (make deps)"

goals=$(sed -n 's/^NO_PKG_GOALS *:= *//p' "$TOP/Makefile")
ok $([ -n "$goals" ]; echo $?) "the Makefile lists NO_PKG_GOALS ($goals)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for g in $goals; do
	# A build directory of its own: everything must be compiled, as in a fresh clone.
	run make -C "$TOP" --no-print-directory -n "$g" BUILDDIR="$tmp/$g" BIN="$tmp/$g/cx5prof"
	compiles=$(printf '%s\n' "$out" | grep -E '^(cc|gcc|clang)( .*)? -c ' || true)
	bare=$(printf '%s\n' "$compiles" | grep -vF -- "$inc" | grep . || true)
	is "$rc ${bare:+compiles without $inc: ${bare%%$'\n'*}}" "0 " "make -n $g: every compile line has the libraries' flags"
done

# The README's first command does build: the check above is not vacuous.
run make -C "$TOP" --no-print-directory -n demo BUILDDIR="$tmp/demo2" BIN="$tmp/demo2/cx5prof"
n=$(printf '%s\n' "$out" | grep -cE '^(cc|gcc|clang)( .*)? -c .*engine/cli/main\.c' || true)
is "$n" 1 "make -n demo compiles engine/cli/main.c once, in a sub-make"

done_testing
