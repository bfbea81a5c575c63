#!/usr/bin/env bash
# 54-verify-history.t: `verify` without a PROFILE verifies the last applied
# one (from the history), a clear error when there is none, the run tied to
# the apply transaction, and the progress line on a TTY (and only there).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
need_root_netns
vsetup v54

cat >"$WORK/p.yaml" <<YAML
version: 1
name: lab-history
match:
  interfaces: [ens1f0]
link:
  mtu: 9000
verify:
  peer: 198.18.0.2
  runner: [iperf3]
  duration: 2
  message_size: 8000
  thresholds:
    throughput_mbps: 1
YAML

# ---- no PROFILE and nothing applied yet
run cx verify
is "$rc" 64 "nothing applied: usage error"
is "$err" "cx5prof: error: no PROFILE given and no applied profile in the history ($DB): name one, e.g. \`cx5prof verify profiles/udp-jumbo.yaml\`" \
	"nothing applied: asks for a PROFILE"

# ---- after an apply, verify takes that profile
run cx apply "$WORK/p.yaml"
is "$rc" 0 "apply the profile"
run cx verify --no-bench
is "$rc" 0 "last applied: in state"
is "$(printf '%s\n' "$out" | head -n 2)" "verify      lab-history (last applied, transaction 1)
state       in the profile's state (1 interface)" "last applied: named with its transaction"
ip -n "$HOST_NS" link set dev ens1f0 mtu 1500
run cx verify --no-bench
is "$rc" 3 "last applied, MTU changed by hand: drift"
printf '%s\n' "$out" | grep -qx '  ens1f0 mtu: current 1500, expected 9000'
ok $? "last applied: the drift listed"
ip -n "$HOST_NS" link set dev ens1f0 mtu 9000
ip -n "$PEER_NS" link set dev peer0 mtu 9000

# ---- the same profile named: the run belongs to transaction 1
iperf3_server
run cx verify "$WORK/p.yaml" --json
is "$rc" 0 "named profile: pass"
is "$(printf '%s\n' "$out" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(d["transaction"], d["run_id"])')" "1 1" \
	"named profile, same content: transaction 1, run 1"
run "$PY" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select txn from runs where id = 1").fetchone()[0])' "$DB"
is "$out" "1" "the run row points to the transaction"
run "$PY" -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute("select runs.profile_hash, transactions.profile_hash from runs join transactions on runs.txn = transactions.id where runs.id = 1").fetchone(); print(r[0] is not None and r[0] == r[1])' "$DB"
is "$out" "True" "the run records the profile's hash (the transaction's: same content)"
map=$(sqlite3 "$DB" "SELECT content FROM artifacts WHERE run = 1 AND name = 'irq_map'")
printf '%s\n' "$map" | grep -Eq '^mlx5_comp0(-[0-9]+)? -> [0-9][-0-9,]*(, mlx5_comp[0-9]+(-[0-9]+)? -> [0-9][-0-9,]*)*$'
ok $? "the run's IRQ map is in ranges (mlx5_compA-B -> CPUS): $map"
is "$(sqlite3 "$DB" "SELECT content FROM artifacts WHERE run = 1 AND name = 'host_tuning'" | sed '/^$/d' | cut -d: -f1 | paste -sd' ')" \
	"net.core.rmem_max net.core.wmem_max net.core.rmem_default net.core.wmem_default net.core.netdev_max_backlog net.core.netdev_budget net.core.netdev_budget_usecs net.core.busy_read net.core.busy_poll net.ipv4.udp_mem net.ipv4.udp_rmem_min net.ipv4.ipfrag_high_thresh irqbalance bench_cpus" \
	"the run records its host tuning (sysctls, irqbalance, the benchmark's CPUs) for compare"

# ---- nothing sent (no iperf3 server): an error run, loss null, never 0
wait_closed 5201
run cx verify "$WORK/p.yaml"
is "$rc" 1 "no server: verify exits 1 (error)"
run cx history --limit 1
is "$(printf '%s\n' "$out" | sed 's/^.*run 2 *//; s/: [0-9.]* Mbps/: N Mbps/')" \
	"iperf3   lab-history ens1f0 mtu 9000 msg 8000: N Mbps, loss n/a (nothing sent), error" \
	"history: the run is labelled error, its loss n/a"
run cx history --limit 1 --json
is "$(printf '%s' "$out" | jq -c '.history[0] | [.loss_pct, .pass, .outcome]')" '[null,false,"error"]' \
	"history --json: loss_pct null, outcome error"
run "$PY" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select loss_pct is null, sent from runs where id = 2").fetchone())' "$DB"
is "$out" "(1, 0)" "stored: loss_pct NULL, 0 sent"
run cx history --format prometheus
printf '%s\n' "$out" | grep -qx 'cx5prof_run_loss_ratio{interface="ens1f0",profile="lab-history"} NaN'
ok $? "Prometheus: the loss ratio of the error run is NaN, not 0"

# ---- progress on a TTY: elapsed/total on stderr
wait_closed 5201
iperf3_server
run script -qfec "ip netns exec $HOST_NS $CX5PROF --sysroot $SR --db $DB verify $WORK/p.yaml" /dev/null
is "$rc" 0 "on a TTY: pass"
printf '%s' "$out" | tr '\r' '\n' | grep -q '^cx5prof: iperf3 running: 0/2 s'
ok $? "on a TTY: the progress line starts at 0/2 s"
printf '%s' "$out" | tr '\r' '\n' | grep -q '^cx5prof: iperf3 running: [12]/2 s'
ok $? "on a TTY: and counts up"

done_testing
