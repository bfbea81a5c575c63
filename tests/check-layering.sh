#!/usr/bin/env bash
# check-layering.sh: fail on an #include that breaks the source map's rules
# (README "Source map"); run by `make check` as `make layering`.
#
#   engine/cli/    the command layer (main, option parsing, one file a verb):
#                  may include anything; only it includes cli/ headers.
#   engine/        the pipeline (profile, probe, plan, apply, verify, history,
#                  mirror, campaign, report) and the OS modules (sysroot,
#                  link, ethtool, ethnl, irq, service): may use kinds/ and
#                  bench/.
#   engine/kinds/  one change kind a file: never the benchmark family.
#   engine/bench/  runners, their output parsers, the built-in benchmark and
#                  serve's loop: never change kinds, and none of the
#                  transaction or profile modules listed in BENCH_NEVER
#                  (a benchmark measures; it knows nothing of what was
#                  changed or recorded).
# A header is named from outside its directory with the directory
# ("bench/runner.h"); "../" never appears.
set -u
cd "$(dirname "$0")/.."
BENCH_NEVER=" plan.h apply.h lock.h history.h runs.h outbox.h mirror.h profile.h campaign.h campaigns.h verify.h report.h "
bad=0
complain() {
	printf '%s:%s: %s\n' "$1" "$2" "$3" >&2
	bad=1
}

files=$(git ls-files --cached --others --exclude-standard 'engine/*.[ch]' 'tests/unit/*.[ch]' 'tests/fuzz/*.[ch]')
for f in $files; do
	[ -e "$f" ] || continue
	case $f in
	engine/cli/*) layer=cli ;;
	engine/kinds/*) layer=kinds ;;
	engine/bench/*) layer=bench ;;
	engine/*) layer=core ;;
	*) layer=test ;;
	esac
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
		if [ -e "$here/$inc" ] && [ "$here" != engine ]; then
			dir=${here#engine/}
		elif [ -e "engine/$inc" ]; then
			dir=${inc%/*}
			[ "$dir" = "$inc" ] && dir=core
		else
			[ "$layer" = test ] || complain "$f" "$line" "\"$inc\" is not a header of engine/"
			continue
		fi
		case $layer:$dir in
		cli:* | test:* | core:core | core:kinds | core:bench | kinds:core | kinds:kinds | bench:bench) ;;
		*:cli) complain "$f" "$line" "includes \"$inc\": only engine/cli/ uses the command layer" ;;
		kinds:bench) complain "$f" "$line" "includes \"$inc\": a change kind does not use the benchmark family" ;;
		bench:kinds) complain "$f" "$line" "includes \"$inc\": the benchmark family does not use change kinds" ;;
		bench:core)
			case $BENCH_NEVER in
			*" ${inc##*/} "*) complain "$f" "$line" "includes \"$inc\": the benchmark family never uses$BENCH_NEVER" ;;
			esac
			;;
		*) complain "$f" "$line" "includes \"$inc\" ($layer may not use $dir)" ;;
		esac
	done < <(grep -n '^#include "' "$f")
done
[ "$bad" = 0 ] && echo "layering: ok ($(printf '%s\n' $files | grep -c '^engine/') engine files)"
exit "$bad"
