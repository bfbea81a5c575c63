#!/usr/bin/env bash
# check-layering.sh: fail on an #include that breaks the layering rules of
# docs/ARCHITECTURE.md, on a circle of includes between files, and on two
# source files of engine/ with the same name; run by `make check` as
# `make layering`.
#
#   engine/base/   helpers with no host in them (strings, CPU sets,
#                  output, logging, versions, YAML, child processes):
#                  use nothing else of engine/.
#   engine/os/     the host as it is: every read and write of kernel
#                  state (sysroot, netlink, ethtool, IRQs, sysctls,
#                  services) and the probe that assembles it: base, os.
#   engine/store/  what cx5prof keeps: the history database, its tables,
#                  the outbox and the locks: base, os, store.
#   engine/bench/  runners, their parsers, the built-in benchmark and
#                  serve: base, os, bench (a benchmark measures; it knows
#                  nothing of what was changed or recorded).
#   engine/kinds/  one change kind a file: base, os, kinds and the plan's
#                  and profile's headers (plan.h, profile.h), never bench
#                  or store.
#   engine/        the pipeline (profile, plan, apply, verify, doctor,
#                  campaign, report, peer, mirror): anything but cli.
#   engine/cli/    the command layer: anything; only it includes cli/.
# A header is named from outside its directory with the directory
# ("os/probe.h"); "../" never appears.
set -u
cd "$(dirname "$0")/.."
KINDS_MAY=" plan.h profile.h requires.h "
bad=0
complain() {
	printf '%s:%s: %s\n' "$1" "$2" "$3" >&2
	bad=1
}

files=$(git ls-files --cached --others --exclude-standard 'engine/*.[ch]' 'tests/unit/*.[ch]' 'tests/fuzz/*.[ch]')
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for f in $files; do
	[ -e "$f" ] || continue
	case $f in
	engine/*/*/*) layer=deep ;;
	engine/*/*) layer=${f#engine/} layer=${layer%%/*} ;;
	engine/*) layer=core ;;
	*) layer=test ;;
	esac
	[ "$layer" = deep ] && complain "$f" 1 "engine/ has one level of folders"
	here=$(dirname "$f")
	while IFS=: read -r line text; do
		inc=${text#*\"}
		inc=${inc%%\"*}
		case $inc in
		../* | */../*)
			complain "$f" "$line" "\"$inc\" climbs out of its directory"
			continue
			;;
		esac
		if [ -e "$here/$inc" ] && [ "$here" != engine ] && [ "$layer" != test ]; then
			target=$here/$inc
		elif [ -e "engine/$inc" ]; then
			target=engine/$inc
		else
			[ "$layer" = test ] || complain "$f" "$line" "\"$inc\" is not a header of engine/"
			continue
		fi
		case $inc in
		*/*) [ "$here" = "$(dirname "$target")" ] &&
			complain "$f" "$line" "\"$inc\": a header of the same folder is named without it" ;;
		esac
		case $target in
		engine/*/*) dir=${target#engine/} dir=${dir%%/*} ;;
		*) dir=core ;;
		esac
		[ "$layer" = test ] || printf '%s %s\n' "${f%.[ch]}" "${target%.[ch]}" >>"$edges"
		case $layer:$dir in
		test:* | cli:* | base:base | os:base | os:os | store:base | store:os | store:store) ;;
		bench:base | bench:os | bench:bench | kinds:base | kinds:os | kinds:kinds) ;;
		core:base | core:os | core:store | core:bench | core:kinds | core:core | core:ledger | core:peer) ;;
		campaign:base | campaign:os | campaign:store | campaign:bench | campaign:kinds | campaign:core | campaign:ledger | campaign:campaign) ;;
		ledger:base | ledger:os | ledger:bench | ledger:peer | ledger:ledger) ;;
		peer:base | peer:os | peer:store | peer:bench | peer:core | peer:peer) ;;
		mirror:base | mirror:os | mirror:store | mirror:core | mirror:mirror) ;;
		kinds:core)
			case $KINDS_MAY in
			*" ${inc##*/} "*) ;;
			*) complain "$f" "$line" "includes \"$inc\": a change kind uses only$KINDS_MAY of the pipeline" ;;
			esac
			;;
		*:cli) complain "$f" "$line" "includes \"$inc\": only engine/cli/ uses the command layer" ;;
		*) complain "$f" "$line" "includes \"$inc\" (engine/${layer/core/} may not use engine/${dir/core/})" ;;
		esac
	done < <(grep -n '^#include "' "$f")
done

# No two source files of engine/ share a name, whatever their folders.
dups=$(printf '%s\n' $files | grep '^engine/' | xargs -n1 basename | sort | uniq -d)
for d in $dups; do
	complain "$(printf '%s\n' $files | grep "/$d\$" | tr '\n' ' ')" 0 "two files named $d"
done

# No circle of includes between modules (a module is NAME.c with NAME.h;
# its own header does not count).
circle=$(awk '$1 != $2 { print }' "$edges" | sort -u | tsort 2>&1 >/dev/null | grep -v '^tsort: -:' | sed 's/^tsort: //')
[ -n "$circle" ] && complain engine 0 "a circle of includes between modules: $(echo $circle)"

[ "$bad" = 0 ] && echo "layering: ok ($(printf '%s\n' $files | grep -c '^engine/') engine files)"
exit "$bad"
