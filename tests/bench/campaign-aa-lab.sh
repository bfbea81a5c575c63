#!/usr/bin/env bash
# campaign-aa-lab.sh: the lab's A/A false rate. AA_CAMPAIGNS (default 50)
# campaigns of two groups with the shipped baseline's settings (the
# baseline and a copy) in the namespace lab of the campaign tests
# (tests/integration/campaign-lib.sh: a veth path shaped to a packet rate
# by tbf, netperf 1 s rounds), each with AA_FILE_TAIL (default a fixed
# `repeat: 5`; AA_FILE_TAIL=$'repeat: auto\nmin_effect: {throughput: 10%}'
# for repeat: auto at the lab's margin). Prints how many campaigns said a
# false better/worse for throughput and for loss, how many said no
# meaningful difference, and their rounds. docs/campaigns.md quotes it.
# Bounded: at most AA_CAMPAIGNS campaigns and AA_MAX_S seconds (default
# 3600) in all. Needs root (namespaces) and netserver; everything runs
# inside its own namespaces (198.18.0.0/30).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CX5PROF=${CX5PROF:-$TOP/cx5prof}
N=${AA_CAMPAIGNS:-50}
MAX_S=${AA_MAX_S:-3600}
TAIL=${AA_FILE_TAIL:-repeat: 5}
export CX5LAB_PREFIX=cx5aa-$$
HNS=$CX5LAB_PREFIX-host
PNS=$CX5LAB_PREFIX-peer
TMP=$(mktemp -d)
NETSERVER=

cleanup() {
	if [ -n "$NETSERVER" ] && grep -q timeout "/proc/$NETSERVER/cmdline" 2>/dev/null; then
		kill "$NETSERVER" 2>/dev/null
		wait "$NETSERVER" 2>/dev/null
	fi
	"$TOP/contrib/lab/lab.sh" down >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || { echo "campaign-aa-lab: needs root (network namespaces); skipped"; exit 0; }
command -v netserver >/dev/null || { echo "campaign-aa-lab: netserver not installed; skipped"; exit 0; }
mkdir -p "$TMP/sysroot" && cp -a "$TOP/tests/fixtures/sysroot/cx5-2port/." "$TMP/sysroot/"
"$TOP/contrib/lab/lab.sh" up >/dev/null || { echo "campaign-aa-lab: lab.sh up failed" >&2; exit 1; }
ip -n "$PNS" link set peer0 mtu 9000 || exit 1
ip netns exec "$HNS" tc qdisc add dev ens1f0 root tbf rate 200mbit burst 64kb latency 20ms mpu 9000 || exit 1
timeout -k 1 "$((MAX_S + 60))" ip netns exec "$PNS" netserver -L 198.18.0.2 -p 12865 -D >/dev/null 2>&1 &
NETSERVER=$!
for _ in $(seq 50); do
	ip netns exec "$PNS" ss -Hltn "sport = :12865" | grep -q . && break
	sleep 0.2 # polling for the listener (bounded: 10 s), not synchronisation by time
done
cat >"$TMP/aa.yaml" <<YAML
version: 1
name: baseline-again
description: "the baseline's settings once more (A/A)"
extends: $TOP/profiles/baseline.yaml
YAML
printf 'version: 1\nname: aa-lab\ngroups: [%s, %s]\nverify: {peer: 198.18.0.2, runner: netperf, duration: 1, message_size: 8000}\n%s\n' \
	"$TOP/profiles/baseline.yaml" "$TMP/aa.yaml" "$TAIL" >"$TMP/campaign.yaml"

start=$SECONDS
ran=0
: >"$TMP/words"
while [ "$ran" -lt "$N" ] && [ $((SECONDS - start)) -lt "$MAX_S" ]; do
	ip netns exec "$HNS" "$CX5PROF" --sysroot "$TMP/sysroot" --db "$TMP/history.db" --json \
		campaign "$TMP/campaign.yaml" >"$TMP/c.json" 2>/dev/null
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); c = d["comparisons"]
print(c[0]["recv"]["verdict"] if c else "none", c[0]["loss"]["verdict"] if c else "none", d["repetitions"], sep="\t")' \
		"$TMP/c.json" >>"$TMP/words" 2>/dev/null || printf 'error\terror\t0\n' >>"$TMP/words"
	ran=$((ran + 1))
done
python3 - "$TMP/words" "$TAIL" <<'PYEOF'
import sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
n = len(rows)
thr = sum(1 for r in rows if r[0] in ("better", "worse"))
loss = sum(1 for r in rows if r[1] in ("better", "worse"))
eq = sum(1 for r in rows if r[0] == "no meaningful difference")
err = sum(1 for r in rows if r[0] in ("error", "none"))
rounds = sum(int(r[2]) for r in rows) / n if n else 0
tail = sys.argv[2].replace("\n", "; ")
print(f"A/A in the lab ({tail}): {n} campaigns; false better/worse: throughput {thr} ({100*thr/n:.1f}%), "
      f"loss {loss} ({100*loss/n:.1f}%); throughput no meaningful difference {eq}; errors {err}; "
      f"mean repetitions {rounds:.1f}")
PYEOF
