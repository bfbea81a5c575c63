# txn-lib.sh: shared setup of the transaction tests (40-49), sourced after
# lib.sh. Each test gets its own lab (contrib/lab/lab.sh with a unique
# CX5LAB_PREFIX: namespaces <prefix>-host and <prefix>-peer with veths named
# like the fixture's ports), a private copy of the cx5-2port sysroot plus a
# pristine copy to compare with, its own history database, and profiles.
#
#   txn_setup            do all that; trap cleans up
#   cx ARGS...           cx5prof in the lab's host namespace, with --sysroot/--db
#   state_snapshot FILE  show --json + link MTUs, for before/after comparisons
#   host_as_before       0 when the sysroot equals the pristine copy and the
#                        kernel state equals $WORK/before.json
#   txn_status ID        status of a transaction (sqlite3 CLI)
#   kill9_before_step K PROFILE
#                        apply --runtime-only PROFILE, kill -9 it while it is
#                        paused before step K; 1 (with a diagnostic) when it
#                        never got there

LAB=$TOP/contrib/lab/lab.sh

txn_cleanup() {
	local pid
	for pid in ${TXN_PIDS:-}; do kill -9 "$pid" 2>/dev/null; done
	CX5LAB_PREFIX=$CX5LAB_PREFIX "$LAB" down >/dev/null 2>&1
	# the per-host lock of this test's sysroot (engine/store/lock.h), now that
	# nothing holds it
	[ -n "${SR:-}" ] && [ -d "$SR" ] && rm -f "/run/lock/cx5prof-host-$(stat -c '%d-%i' "$SR").lock"
	[ -n "${WORK:-}" ] && rm -rf "$WORK"
}

txn_setup() {
	export CX5LAB_PREFIX=cx5t-$1-$$
	HOST_NS=$CX5LAB_PREFIX-host
	WORK=$(mktemp -d /tmp/cx5t-txn.XXXXXX)
	SR=$WORK/sysroot
	PRISTINE=$WORK/pristine
	DB=$WORK/history.db
	TXN_PIDS=
	trap txn_cleanup EXIT
	"$LAB" up >/dev/null || { echo "Bail out! lab.sh up failed"; exit 1; }
	copy_sysroot cx5-2port "$SR"
	copy_sysroot cx5-2port "$PRISTINE"
	mkdir -p "$WORK/profiles"
	cp "$TOP/profiles/mtu-jumbo.yaml" "$TOP/profiles/verify-netperf.yaml" "$WORK/profiles/"
	# udp-jumbo with irqbalance left alone: stop and ban have their own
	# tests (46-irqbalance.t, 47-irqbalance-ban.t) with a fake systemctl.
	sed 's/irqbalance: stop/irqbalance: leave/' "$TOP/profiles/udp-jumbo.yaml" >"$WORK/profiles/udp-jumbo.yaml"
	# The same, one port only: 2 sysctls + 1 MTU + 16 IRQs = 19 steps.
	sed 's/^extends: mtu-jumbo.yaml.*/&\nmatch:\n  interfaces: [ens1f0]/' "$WORK/profiles/udp-jumbo.yaml" \
		>"$WORK/profiles/one-port.yaml"
	state_snapshot "$WORK/before.json"
}

cx() { ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" "$@"; }

# strace for the fault-injection tests. LeakSanitizer cannot run under
# ptrace (`make asan`): its leak check is off for a traced cx5prof only.
STRACE="env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace"

state_snapshot() {
	{
		ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" show --json
		ip -n "$HOST_NS" -o link show | sed -n 's/^[0-9]*: \([^:@]*\).* mtu \([0-9]*\).*/\1 \2/p'
	} >"$1"
}

# The sysroot is byte for byte as before: every file, symlink and mode.
sysroot_as_before() {
	diff -r --no-dereference "$PRISTINE" "$SR" >/dev/null
}

# Make the one-port profile a short transaction (on a 2-core machine shared
# with other tests): pin all but the first $1 IRQs of ens1f0 where the plan
# wants them, in the sysroot and its pristine copy. The steps left cover
# every change kind: 2 sysctls, the MTU, $1 IRQs.
txn_short_profile() {
	local line irq cpu
	cx plan "$WORK/profiles/one-port.yaml" 2>/dev/null | grep '^irq ' | tail -n +$(($1 + 1)) |
		while read -r line; do
			irq=$(printf '%s\n' "$line" | sed -n 's/.*smp_affinity_list \([0-9]*\) .*/\1/p')
			cpu=${line##* }
			printf '%s\n' "$cpu" >"$SR/proc/irq/$irq/smp_affinity_list"
			printf '%s\n' "$cpu" >"$PRISTINE/proc/irq/$irq/smp_affinity_list"
		done
	state_snapshot "$WORK/before.json"
}

host_as_before() {
	state_snapshot "$WORK/now.json"
	cmp -s "$WORK/before.json" "$WORK/now.json" && sysroot_as_before
}

mtu_of() { ip -n "$HOST_NS" -o link show "$1" | sed -n 's/.* mtu \([0-9]*\).*/\1/p'; }

txn_status() { sqlite3 "$DB" "SELECT status FROM transactions WHERE id = $1"; }
txn_count() { sqlite3 "$DB" "SELECT count(*) FROM transactions ${1:-}" 2>/dev/null || echo 0; }

# wait_for FILE PATTERN: until FILE contains PATTERN (at most 60 s).
wait_for() { wait_until 60 grep -q "$2" "$1" 2>/dev/null; }

kill9_before_step() {
	local bg
	CX5PROF_FAILPOINT=apply-pause:$1 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
		apply --runtime-only "$2" >"$WORK/out" 2>"$WORK/err" &
	bg=$!
	TXN_PIDS="$TXN_PIDS $bg"
	if ! wait_for "$WORK/err" "apply-pause: paused before step $1"; then
		diag "apply did not reach step $1: $(cat "$WORK/err")"
		return 1
	fi
	kill -9 "$(sed -n 's/.*paused before step [0-9]* (pid \([0-9]*\)).*/\1/p' "$WORK/err")"
	wait "$bg" 2>/dev/null
	return 0
}
