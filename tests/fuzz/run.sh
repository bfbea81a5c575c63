#!/usr/bin/env bash
# run.sh: run or replay the libFuzzer harnesses built by `make fuzz-build`.
#
#   run.sh fuzz SECONDS [HARNESS...]  fuzz each harness for SECONDS seconds
#   run.sh replay [HARNESS...]        run every seed and regression input once
#
# Seeds: tests/fuzz/corpus/<harness>/ (committed, read-only here). New
# inputs go to $FUZZ_BUILD/corpus/<harness>/, crash inputs to
# $FUZZ_BUILD/artifacts/<harness>/, logs to $FUZZ_BUILD/logs/. A crash
# fails the run and says how to keep the input as a regression case
# (tests/fuzz/regressions/<harness>/, replayed by `make check`).
# FUZZ_JOBS=N runs N harnesses at once (default 1). FUZZ_KEEP_GOING=1
# (long runs) keeps fuzzing after a crash (libFuzzer fork mode) so every
# crash of the run is counted. Prints one line per harness: name,
# executions, crash inputs saved, seconds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${FUZZ_BUILD:-$top/build/fuzz}
jobs=${FUZZ_JOBS:-1}
mode=${1:-}
shift || true

all_harnesses() {
	local f
	for f in "$here"/fuzz_*.c; do basename "$f" .c; done
}

dict_for() { # the harness's dictionary, if it has one
	[ -f "$here/$1.dict" ] && echo "-dict=$here/$1.dict"
}

fuzz_one() { # fuzz_one HARNESS SECONDS
	local h=$1 secs=$2 log execs crashes rc keep=()
	log=$build/logs/$h.log
	mkdir -p "$build/corpus/$h" "$build/artifacts/$h" "$build/logs"
	# Crash inputs of earlier runs were reported then: count this run's only.
	touch "$log.start"
	[ "${FUZZ_KEEP_GOING:-0}" = 1 ] && keep=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
	# shellcheck disable=SC2046
	"$build/$h" "${keep[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
		-print_final_stats=1 -artifact_prefix="$build/artifacts/$h/" $(dict_for "$h") \
		"$build/corpus/$h" "$here/corpus/$h" >"$log" 2>&1
	rc=$?
	# Plain mode prints the total; fork mode only its "#N:" status lines.
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' "$log" | tail -n 1)
	crashes=$(find "$build/artifacts/$h" -type f -newer "$log.start" | wc -l)
	printf '%-18s executions %12s  crashes %3s  seconds %s\n' "$h" "${execs:-?}" "$crashes" "$secs"
	if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
		echo "$h: FAILED (exit $rc); log: $log" >&2
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*contract broken)' "$log" | head -n 5 >&2
		find "$build/artifacts/$h" -type f -newer "$log.start" | sed "s|^|$h: keep as regression: cp |; s|\$| $here/regressions/$h/|" >&2
		return 1
	fi
}

replay_one() { # replay_one HARNESS: every seed and regression input, once
	local h=$1 files n
	mapfile -t files < <(find "$here/corpus/$h" "$here/regressions/$h" -type f ! -name README 2>/dev/null | sort)
	n=${#files[@]}
	if [ "$n" -eq 0 ]; then
		printf '%-18s replayed %4d inputs\n' "$h" 0
		return 0
	fi
	mkdir -p "$build/logs"
	if ! "$build/$h" -timeout=10 -rss_limit_mb=2048 "${files[@]}" >"$build/logs/$h.replay.log" 2>&1; then
		echo "$h: replay FAILED; log: $build/logs/$h.replay.log" >&2
		grep -E '^(==[0-9]+==ERROR|SUMMARY|Running:|.*contract broken)' "$build/logs/$h.replay.log" | tail -n 5 >&2
		return 1
	fi
	printf '%-18s replayed %4d inputs\n' "$h" "$n"
}

case $mode in
fuzz)
	secs=${1:?usage: run.sh fuzz SECONDS [HARNESS...]}
	shift
	fn=fuzz_one
	;;
replay)
	secs=
	fn=replay_one
	;;
*)
	echo "usage: run.sh fuzz SECONDS [HARNESS...] | run.sh replay [HARNESS...]" >&2
	exit 64
	;;
esac
[ $# -gt 0 ] || set -- $(all_harnesses)
for h in "$@"; do
	if [ ! -x "$build/$h" ]; then
		echo "run.sh: $build/$h is not built (make fuzz-build)" >&2
		exit 1
	fi
done

failed=0
running=0
for h in "$@"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n || failed=1
		running=$((running - 1))
	fi
	$fn "$h" $secs &
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	wait -n || failed=1
	running=$((running - 1))
done
exit $failed
