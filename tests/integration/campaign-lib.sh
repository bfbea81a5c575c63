# campaign-lib.sh: the lab of the campaign statistics tests (110-119),
# sourced after lib.sh and verify-lib.sh.
#
#   csetup NAME   a lab (vsetup), the peer side at MTU 9000 (jumbo frames
#                 need both ends), the path shaped to a packet rate, a
#                 netserver in the peer, and in $WORK: aa.yaml (a second
#                 baseline group with the same settings)
#   cjson FILE PYTHON   run PYTHON on the document FILE (as d), after
#                 checking it against schemas/campaign.schema.json
#   mtus, same_sysroot     the host's MTUs; the sysroot copy unchanged
#   at_run FIFO N   a campaign run with CX5PROF_TEST_PAUSE=bench-running:FIFO
#                 is held in its Nth benchmark, the benchmark's processes
#                 started (the earlier ones were let go on): a signal sent
#                 now (pause_signal) lands during that run
#
# The shaped path: a token bucket on ens1f0 whose every packet costs at
# least 9000 bytes (tbf mpu 9000), as a NIC or a switch limited by its
# packet rate does. A round then measures the packet rate the MTU allows,
# not how much CPU a busy test machine leaves to netperf: MTU 9000 carries
# about 6 times what MTU 1500 does, far outside the noise, and groups with
# the same settings measure the same. Everything is inside the test's
# namespaces.
. "$(dirname "$0")/verify-lib.sh"

csetup() {
	need_root_netns
	need_tool netserver "netperf and netserver (contrib/install-deps.sh)"
	need_tool sqlite3
	need_tool tc "iproute2"
	vsetup "$1" cx5-2port
	copy_sysroot cx5-2port "$WORK/pristine"
	ip -n "$PEER_NS" link set peer0 mtu 9000
	if ! ip netns exec "$HOST_NS" tc qdisc add dev ens1f0 root tbf rate 200mbit burst 64kb latency 20ms mpu 9000; then
		echo "Bail out! tc tbf on ens1f0 failed"
		exit 1
	fi
	# lives as long as the test: stopped at its end (verify-lib.sh v_cleanup)
	timeout -k 1 900 ip netns exec "$PEER_NS" netserver -L 198.18.0.2 -p 12865 -D >/dev/null 2>&1 &
	V_PIDS="$V_PIDS $!"
	wait_listen 12865 || {
		echo "Bail out! netserver did not start"
		exit 1
	}
	cat >"$WORK/aa.yaml" <<YAML
version: 1
name: baseline-again
description: "the baseline's settings once more (A/A)"
extends: $TOP/profiles/baseline.yaml
YAML
	MTUS_BEFORE=$(mtus)
}

mtus() { ip -n "$HOST_NS" -o link show | sed -n 's/^[0-9]*: \([^:@]*\).* mtu \([0-9]*\).*/\1 \2/p' | sort; }
same_sysroot() { diff -r --no-dereference "$SR" "$WORK/pristine" >/dev/null; }
q() { sqlite3 "$DB" "$1"; }

# A campaign file of the shipped groups (or any): cfile NAME GROUP...
cfile() {
	local name=$1 g groups=
	shift
	for g in "$@"; do groups="$groups${groups:+, }$g"; done
	printf 'version: 1\nname: %s\ngroups: [%s]\nverify: {peer: 198.18.0.2, runner: netperf, duration: 1, message_size: 8000}\n' \
		"$name" "$groups"
}

CJSON_PRELUDE='import json, sys, jsonschema
d = json.load(open(sys.argv[1]))
c = json.load(open(sys.argv[2] + "/campaign.schema.json"))
p = json.load(open(sys.argv[2] + "/profile.schema.json"))
jsonschema.Draft202012Validator(c, resolver=jsonschema.RefResolver.from_schema(c, store={p["$id"]: p})).validate(d)
'
cjson() { "$PY" -c "$CJSON_PRELUDE$2" "$1" "$TOP/schemas"; }

at_run() {
	local i
	for ((i = 1; i < $2; i++)); do
		pause_wait "$1" 600 >/dev/null && pause_release "$1" || return 1
	done
	pause_wait "$1" 600 >/dev/null
}
