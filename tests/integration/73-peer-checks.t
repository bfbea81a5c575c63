#!/usr/bin/env bash
# 73-peer-checks.t: blame the right host. Before benchmarking, `verify`
# (any runner) probes the jumbo path with DF set and asks a `cx5prof
# serve` on the peer for its state: with the peer at MTU 1500 and the
# host at 9000 nothing is sent, the exit is 1 and the message names both
# MTUs (text and JSON); datagrams that still fit only warn; a smaller
# rmem_max on the peer warns; a driver/firmware difference warns, and
# fails with verify.peer_must_match. `doctor --peer ADDR` runs the same
# checks without a profile.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
need_root_netns
vsetup v73

profile() { # profile FILE RUNNER MESSAGE [EXTRA-VERIFY-LINE]
	cat >"$1" <<YAML
version: 1
name: lab-peer
match:
  interfaces: [ens1f0]
link:
  mtu: 9000
verify:
  peer: 198.18.0.2
  runner: [$2]
  duration: 1
  message_size: $3
  ${4:-streams: 1}
  thresholds:
    loss_percent: 100
YAML
}
profile "$WORK/builtin.yaml" builtin 8000
profile "$WORK/netperf.yaml" netperf 8000
profile "$WORK/small.yaml" builtin 1400
profile "$WORK/must.yaml" builtin 8000 "peer_must_match: true"
profile "$WORK/bufs.yaml" builtin 8000 "socket_buffer: {receive: 4M}"

# The peer's serve describes a ConnectX-5 port too: its own sysroot copy
# where peer0 is the fixture's second port (same driver and firmware).
PSR=$WORK/peer-sysroot
copy_sysroot cx5-2port "$PSR"
ln -s ../../devices/pci0000:ae/0000:ae:00.0/0000:af:00.1/net/ens1f1 "$PSR/sys/class/net/peer0"
# --state-refresh 0: the test edits the peer's firmware version in its
# sysroot between runs, which a real firmware change cannot do without
# re-creating the interface (serve reads the facts anew when its index
# changes, and otherwise answers from facts up to 250 ms old).
timeout -k 1 900 ip netns exec "$PEER_NS" "$CX5PROF" --sysroot "$PSR" serve --bind 198.18.0.2 --state-refresh 0 2>"$WORK/serve.log" &
V_PIDS="$V_PIDS $!"
wait_listen 12866 || { echo "Bail out! serve did not start"; exit 1; }
runs() { sqlite3 "$DB" 'SELECT count(*) FROM runs' 2>/dev/null || echo 0; }

# ---- the peer at 1500, the host at 9000: not sent, both MTUs named
set_mtu 9000 1500
run cx verify "$WORK/builtin.yaml"
is "$rc" 1 "peer MTU 1500, host 9000: exit 1"
is "$err" "cx5prof: error: benchmark: not run: 9000-byte frames with DF set do not reach 198.18.0.2, 1500-byte ones do: the peer or a switch has a smaller MTU (1500 vs 9000); raise the MTU on the peer's NIC and on every switch port in between" \
	"the error names the path MTU, 1500 vs 9000, not a socket buffer"
printf '%s\n' "$out" | grep -qx "check       peer-mtu fail: MTU 1500 on the peer's peer0, 9000 on ens1f0 (1500 vs 9000): 8028-byte datagrams cannot arrive"
ok $? "the report names the peer's MTU against this host's"
printf '%s\n' "$out" | grep -qx "result      error"
ok $? "the result is an error"
is "$(runs)" 0 "nothing was measured, nothing recorded"
run cx verify --json "$WORK/builtin.yaml"
is "$rc" 1 "--json: exit 1"
is "$(printf '%s' "$out" | jq -r '.benchmark.error | contains("(1500 vs 9000)")')" true "--json: the benchmark error names 1500 vs 9000"
is "$(printf '%s' "$out" | jq -r '.peer_checks[] | select(.check == "peer-mtu") | .status + ": " + .detail')" \
	"fail: MTU 1500 on the peer's peer0, 9000 on ens1f0 (1500 vs 9000): 8028-byte datagrams cannot arrive" \
	"--json: the peer-mtu check"
printf '%s' "$out" >"$WORK/verify.json"
"$PY" "$TESTS_DIR/helpers/validate_json.py" "$TOP/schemas/verify.schema.json" "$WORK/verify.json" >/dev/null
ok $? "--json follows schemas/verify.schema.json"

# Any runner: netperf is never started (installed or not), the path says why.
run cx verify "$WORK/netperf.yaml"
is "$rc" 1 "netperf runner: exit 1"
printf '%s\n' "$err" | grep -qF "benchmark: not run: 9000-byte frames with DF set do not reach 198.18.0.2, 1500-byte ones do"
ok $? "netperf runner: the path MTU is the reason"

# 1400-byte messages fit a 1500 MTU: a warning, and the run goes on.
run cx verify "$WORK/small.yaml"
is "$rc" 0 "1400-byte messages over the 1500 peer: exit 0"
printf '%s\n' "$out" | grep -qx "check       peer-mtu warn: MTU 1500 on the peer's peer0, 9000 on ens1f0 (1500 vs 9000): 1428-byte datagrams still fit"
ok $? "1400-byte messages: the MTU difference is a warning"

# ---- both at 9000: the path and the peer pass; same NIC on both ends
set_mtu 9000 9000
PRMEM=$(cat "$PSR/proc/sys/net/core/rmem_max") # serve reads its sysroot
run cx verify "$WORK/builtin.yaml"
is "$rc" 0 "both at 9000: exit 0"
is "$(printf '%s\n' "$out" | grep '^check ')" "check       path-mtu pass: 9000-byte frames with DF set reach 198.18.0.2
check       peer-serve pass: cx5prof serve on 198.18.0.2:12866 answers for peer0
check       peer-mtu pass: MTU 9000 on the peer's peer0, 9000 here
check       peer-rmem pass: net.core.rmem_max $PRMEM on the peer
check       peer-match pass: same as the peer: NIC 15b3:1017, driver mlx5_core, driver version $(cat "$SR/proc/sys/kernel/osrelease"), firmware 16.29.1030" \
	"both at 9000: every check passes, the NIC, driver and firmware are the same"

run cx verify "$WORK/bufs.yaml"
is "$rc" 0 "a 4M receive buffer: exit 0"
printf '%s\n' "$out" | grep -qx "check       peer-rmem warn: the receive buffer asked, 4194304, exceeds the peer's net.core.rmem_max $PRMEM: the peer's kernel clamps it"
ok $? "a receive buffer above the peer's rmem_max: a warning naming both"

# ---- a firmware difference: a warning, a failure with peer_must_match
echo 16.35.2000 >"$PSR/sys/devices/pci0000:ae/0000:ae:00.0/0000:af:00.1/infiniband/mlx5_1/fw_ver"
run cx verify "$WORK/builtin.yaml"
is "$rc" 0 "another firmware on the peer: exit 0"
printf '%s\n' "$out" | grep -qx "check       peer-match warn: results are not comparable: firmware 16.29.1030 here, 16.35.2000 on the peer"
ok $? "another firmware on the peer: a warning with both versions"
run cx verify "$WORK/must.yaml"
is "$rc" 4 "peer_must_match: exit 4"
printf '%s\n' "$out" | grep -qx "  peer NIC, driver and firmware == 1 (same): fail (results are not comparable: firmware 16.29.1030 here, 16.35.2000 on the peer)"
ok $? "peer_must_match: the threshold fails with both versions"

# ---- doctor --peer without a profile
run cx doctor --peer 198.18.0.2
printf '%s\n' "$out" | grep -qE "^WARN +198.18.0.2 +peer-match +results are not comparable: firmware 16.29.1030 here, 16.35.2000 on the peer$"
ok $? "doctor --peer without a profile: the peer's firmware is compared"
printf '%s\n' "$out" | grep -qE "^PASS +198.18.0.2 +peer-mtu +MTU 9000 on the peer's peer0, 9000 here$"
ok $? "doctor --peer without a profile: the peer's MTU is checked"
run cx doctor
printf '%s\n' "$out" | grep -qE "^SKIP +peer +peer-port +no profile and no --peer: the peer is not checked$"
ok $? "doctor without a profile or --peer: says there is no profile"
done_testing
