#!/bin/sh
# stress.sh RUNS: the integration suite RUNS times in a row (make
# run-tests) while a CPU hog keeps every core busy (stress-ng --cpu N,
# bounded by STRESS_LIMIT seconds, default 3 hours), the way a shared CI
# machine is. Prints each run's result and the count of failed runs; exit
# 0 only when every run passed. The hog is stopped by its PID, after
# checking that the PID is still the stress-ng this script started.
set -u
runs=${1:-3}
limit=${STRESS_LIMIT:-10800}
log=${STRESS_LOG:-build/stress}
command -v stress-ng >/dev/null || { echo "stress: needs stress-ng (contrib/install-deps.sh)" >&2; exit 1; }
mkdir -p "$log"

cpus=$(nproc)
stress-ng --cpu "$cpus" --timeout "${limit}s" --quiet &
hog=$!
stop_hog() {
	if grep -qa stress-ng "/proc/$hog/cmdline" 2>/dev/null; then
		kill "$hog" 2>/dev/null
		wait "$hog" 2>/dev/null
	fi
}
trap 'stop_hog' EXIT
trap 'exit 130' INT TERM

failed=0
i=1
while [ "$i" -le "$runs" ]; do
	start=$(date +%s)
	if make --no-print-directory run-tests >"$log/run-$i.log" 2>&1; then
		result=pass
	else
		result=FAIL
		failed=$((failed + 1))
	fi
	echo "stress: run $i of $runs under a $cpus-CPU hog: $result in $(($(date +%s) - start)) s ($log/run-$i.log)"
	[ "$result" = pass ] || grep -E '^(not ok|tests/.*(Wstat|Failed))' "$log/run-$i.log" | sed 's/^/  /'
	i=$((i + 1))
done
echo "stress: $failed of $runs runs failed"
[ "$failed" = 0 ]
