#!/usr/bin/env bash
# 185-layering.t: `make layering` (tests/check-layering.py, the table
# engine/LAYERS) passes on the tree, and each of its checks fails on a
# violation planted in a copy of the tree (engine/, the objects, the table,
# docs/ARCHITECTURE.md) in a temporary directory, naming the file and the
# rule: an include the table does not allow, a folder without its row (and
# one row makes it pass), a module in engine/ the pipeline does not list,
# <sqlite3.h> or history_db() outside store/, a verb file calling another
# verb file (from the objects' symbols, with no include), a circle of calls
# between folders, a circle of includes, a table row the docs do not show,
# a paid-off debt left in tests/layering.debts. The worktree is not touched.
. "$(dirname "$0")/lib.sh"

need_tool python3
need_tool nm
need_tool cc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The objects `make layering` reads: build/, or the BUILDDIR of the make
# that runs the tests (`make asan`: build/asan).
B=${BUILDDIR:-build}
case $B in /*) ;; *) B=$TOP/$B ;; esac
before=$(git -C "$TOP" status --porcelain 2>/dev/null)
run make -s -C "$TOP" --no-print-directory layering
is "$rc" 0 "make layering passes on the tree"
printf '%s\n' "$out" | grep -q '^layering: ok'
ok $? "make layering says ok ($out)"

# The pristine copy every plant starts from.
mkdir -p "$TMP/pristine/tests" "$TMP/pristine/docs" "$TMP/pristine/build"
cp -a "$TOP/engine" "$TMP/pristine/"
cp -a "$B/engine" "$TMP/pristine/build/"
cp "$TOP/tests/check-layering.py" "$TOP/tests/layering.debts" "$TMP/pristine/tests/"
cp "$TOP/docs/ARCHITECTURE.md" "$TMP/pristine/docs/"
W=$TMP/work
fresh() { rm -rf "$W" && cp -a "$TMP/pristine" "$W"; }
check() { run python3 "$W/tests/check-layering.py" --root "$W" --build "$W/build"; }
# compile FILE: its object where the check reads it.
compile() { mkdir -p "$(dirname "$W/build/$1")" && cc -c -o "$W/build/${1%.c}.o" "$W/$1"; }

fresh
check
is "$rc:$err" "0:" "the copy of the tree passes"

fresh
printf '#include "os/probe.h"\n' >"$W/engine/base/zzplant.h"
check
is "$rc:$err" '1:engine/base/zzplant.h:1: includes "os/probe.h" (engine/LAYERS: base may not use os)' \
	"base including os fails"

fresh
printf '#include "verify.h"\n' >"$W/engine/kinds/zzplant.h"
check
is "$rc:$err" '1:engine/kinds/zzplant.h:1: includes "verify.h": kinds uses only profile of pipeline' \
	"a kind including a pipeline module its row does not name fails"

fresh
mkdir "$W/engine/newsub"
printf 'int zzplant(void);\nint zzplant(void) { return 0; }\n' \
	>"$W/engine/newsub/zzplant.c"
compile engine/newsub/zzplant.c
check
is "$rc:$err" "1:engine/newsub:0: a folder without its row in engine/LAYERS" "a folder without its row fails"
printf 'newsub    base\n' >>"$W/engine/LAYERS"
printf '    newsub    base\n' >>"$W/docs/ARCHITECTURE.md"
check
is "$rc:$err" "0:" "one row in the table (shown in the docs) makes the new folder pass"

fresh
printf 'int zzcore(void);\nint zzcore(void) { return 0; }\n' >"$W/engine/zzcore.c"
compile engine/zzcore.c
check
is "$rc:$err" "1:engine/zzcore:0: a module directly in engine/ that the table's pipeline does not list" \
	"a module in engine/ outside the pipeline's list fails"

fresh
printf '#include <sqlite3.h>\n' >"$W/engine/os/zzplant.h"
printf 'struct history;\nstatic inline void *zz(struct history *h) { return history_db(h); }\n' \
	>"$W/engine/campaign/zzsql.h"
check
is "$rc:$err" "1:engine/campaign/zzsql.h:2: calls history_db(): the history's SQL lives in engine/store/
engine/os/zzplant.h:1: includes <sqlite3.h>: the history's SQL lives in engine/store/" \
	"<sqlite3.h> or history_db() outside store/ fails"

fresh
# No include at all: the call is seen in the object's symbols.
printf 'int verb_show(void *cli, int argc, char **argv);\nint zzplant(void);\nint zzplant(void) { return verb_show(0, 0, 0); }\n' \
	>"$W/engine/cli/verb_zzplant.c"
compile engine/cli/verb_zzplant.c
check
is "$rc:$err" "1:engine/cli/verb_zzplant.c:0: calls verb_show() of engine/cli/verb_show.c: a verb never calls another verb's file" \
	"a verb file calling another verb file fails (from nm)"

fresh
printf 'int zz_b(int);\nint zz_a(int);\nint zz_a(int n) { return n ? zz_b(n - 1) : 0; }\n' >"$W/engine/os/zz_a.c"
printf 'int zz_a(int);\nint zz_b(int);\nint zz_b(int n) { return n ? zz_a(n - 1) : 1; }\n' >"$W/engine/bench/zz_b.c"
compile engine/os/zz_a.c
compile engine/bench/zz_b.c
check
is "$rc:$err" "1:engine:0: a circle of calls between modules: engine/bench/zz_b engine/os/zz_a" \
	"a circle of calls between folders fails"

fresh
printf '#include "zz_d.h"\n' >"$W/engine/os/zz_c.h"
printf '#include "zz_c.h"\n' >"$W/engine/os/zz_d.h"
check
is "$rc:$err" "1:engine:0: a circle of includes between modules: engine/os/zz_c engine/os/zz_d" \
	"a circle of includes fails"

fresh
sed -i 's/^mirror    base os store pipeline:profile$/mirror    base os store bench pipeline:profile/' "$W/engine/LAYERS"
check
is "$rc:$err" "1:docs/ARCHITECTURE.md:0: does not show the row of engine/LAYERS: mirror    base os store bench pipeline:profile" \
	"a row the docs do not show fails"

fresh
printf 'engine/cli/verb_show.c: calls verb_plan() of engine/cli/verb_plan.c: a verb never calls another verb'"'"'s file\n' \
	>>"$W/tests/layering.debts"
check
is "$rc:$err" "1:tests/layering.debts: engine/cli/verb_show.c: calls verb_plan() of engine/cli/verb_plan.c: a verb never calls another verb's file: paid off, remove the line" \
	"a debt that no longer occurs fails"

is "$(git -C "$TOP" status --porcelain 2>/dev/null)" "$before" "the worktree is as before"

done_testing
