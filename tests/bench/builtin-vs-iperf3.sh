#!/usr/bin/env bash
# builtin-vs-iperf3.sh: the built-in UDP benchmark against iperf3 in the lab.
#
# Two network namespaces joined by veth (contrib/lab/lab.sh, MTU 9000).
# For each message size (8000 and 1400 bytes) and each round, runs
# alternate: iperf3 -u -b 0 -l M, then each builtin configuration, all with
# the same duration, so that whatever else the machine does hits every
# configuration alike. Prints one table row per configuration: the median
# over the rounds of the receive throughput, loss and sender CPU, and the
# ratio to iperf3's median receive throughput.
#
#   BENCH_DURATION  seconds per run (default 3)
#   BENCH_ROUNDS    rounds (default 3)
#   BENCH_SIZES     message sizes (default "8000 1400")
#   BENCH_RAW       file for every run's figures (default: none)
# Needs root (namespaces) and iperf3. Sends only inside the lab (198.18.0.0/30).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CX5PROF=${CX5PROF:-$TOP/cx5prof}
D=${BENCH_DURATION:-3}
ROUNDS=${BENCH_ROUNDS:-3}
SIZES=${BENCH_SIZES:-8000 1400}
RAW=${BENCH_RAW:-/dev/null}
export CX5LAB_PREFIX=cx5b70-$$
HNS=$CX5LAB_PREFIX-host
PNS=$CX5LAB_PREFIX-peer
TMP=$(mktemp -d)
PIDS=()

cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	"$TOP/contrib/lab/lab.sh" down >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || { echo "builtin-vs-iperf3: needs root (network namespaces); skipped"; exit 0; }
command -v iperf3 >/dev/null || { echo "builtin-vs-iperf3: iperf3 not installed; skipped"; exit 0; }
"$TOP/contrib/lab/lab.sh" up >/dev/null || { echo "builtin-vs-iperf3: lab.sh up failed" >&2; exit 1; }
ip -n "$HNS" link set ens1f0 mtu 9000 && ip -n "$PNS" link set peer0 mtu 9000 || exit 1
NCPU=$(nproc)
LAST=$((NCPU - 1))

# Receivers: not pinned for the "as an operator runs it" rows, and pinned
# to the last CPU for the "both ends pinned" rows (sender on CPU 0).
ip netns exec "$PNS" "$CX5PROF" serve --bind 198.18.0.2 --port 12866 2>"$TMP/serve.log" &
PIDS+=($!)
ip netns exec "$PNS" "$CX5PROF" serve --bind 198.18.0.2 --port 12867 --cpus "$LAST" 2>"$TMP/serve-pinned.log" &
PIDS+=($!)
ip netns exec "$PNS" iperf3 -s -B 198.18.0.2 -p 5201 >/dev/null 2>&1 &
PIDS+=($!)
ip netns exec "$PNS" taskset -c "$LAST" iperf3 -s -B 198.18.0.2 -p 5202 >/dev/null 2>&1 &
PIDS+=($!)
sleep 1

# name | kind | arguments
CONFIGS=(
	"iperf3 -u -b 0|iperf3|-p 5201"
	"iperf3, both ends pinned|iperf3|-p 5202 -A 0"
	"builtin (sendmmsg/recvmmsg batches)|builtin|--port 12866"
	"builtin + GSO|builtin|--port 12866 --gso"
	"builtin, both ends pinned|builtin|--port 12867 --cpus 0"
	"builtin, both ends pinned + GSO|builtin|--port 12867 --cpus 0 --gso"
	"builtin, both ends pinned + GSO + 2 streams|builtin|--port 12867 --cpus 0 --streams 2 --gso"
)

# run_one KIND SIZE ARGS -> "recv_mbps loss_pct sender_cpu"
run_one() {
	local kind=$1 size=$2 args=$3 j
	if [ "$kind" = iperf3 ]; then
		# shellcheck disable=SC2086
		j=$(ip netns exec "$HNS" iperf3 -c 198.18.0.2 $args -u -b 0 -l "$size" -t "$D" --json 2>/dev/null)
		printf '%s' "$j" | jq -r '(.end.sum_received // .end.sum) as $r |
			"\($r.bits_per_second / 1e6) \(.end.sum.lost_percent) \(.end.cpu_utilization_percent.host_total)"' \
			2>/dev/null || echo "0 100 0"
	else
		# shellcheck disable=SC2086
		j=$(ip netns exec "$HNS" "$CX5PROF" --json bench --no-record --peer 198.18.0.2 $args \
			--message-size "$size" --duration "$D" 2>/dev/null)
		printf '%s' "$j" | jq -r '"\(.recv_mbps) \(.loss_percent) \(.sender_cpu_percent)"' 2>/dev/null ||
			echo "0 100 0"
	fi
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) print 0; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

echo "# builtin vs iperf3: veth between two namespaces, MTU 9000, ${D}s per run, $ROUNDS alternating rounds, $NCPU CPUs"
for size in $SIZES; do
	for round in $(seq "$ROUNDS"); do
		for i in "${!CONFIGS[@]}"; do
			IFS='|' read -r name kind args <<<"${CONFIGS[$i]}"
			res=$(run_one "$kind" "$size" "$args")
			echo "$size $i $round $res" >>"$TMP/runs"
			echo "$size|$name|round $round|$res" >>"$RAW"
		done
	done
	printf '\n| %s-byte messages | recv Mbps | loss %% | sender CPU %% | recv vs iperf3 |\n|---|---|---|---|---|\n' "$size"
	base=$(awk -v s="$size" '$1==s && $2==0 {print $4}' "$TMP/runs" | median)
	for i in "${!CONFIGS[@]}"; do
		IFS='|' read -r name kind args <<<"${CONFIGS[$i]}"
		rx=$(awk -v s="$size" -v c="$i" '$1==s && $2==c {print $4}' "$TMP/runs" | median)
		loss=$(awk -v s="$size" -v c="$i" '$1==s && $2==c {print $5}' "$TMP/runs" | median)
		cpu=$(awk -v s="$size" -v c="$i" '$1==s && $2==c {print $6}' "$TMP/runs" | median)
		printf '| %s | %.0f | %.1f | %.0f | %.2fx |\n' "$name" "$rx" "$loss" "$cpu" \
			"$(awk -v a="$rx" -v b="$base" 'BEGIN {print (b > 0 ? a / b : 0)}')"
	done
done
