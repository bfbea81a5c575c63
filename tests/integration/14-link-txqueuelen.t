#!/usr/bin/env bash
# 14-link-txqueuelen.t: link.txqueuelen, a change kind of its own
# (engine/kinds/txqueuelen.c), on the lab's veths: shown (text and JSON),
# planned, applied through rtnetlink IFLA_TXQLEN (read back with `ip
# link`), idempotent, verified for drift, rolled back exactly; a failure at
# its step and a kill -9 before it leave the port as before. Malformed
# values are profile errors at their line and column, nothing changed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 14

qlen() { ip -n "$HOST_NS" -o link show ens1f0 | sed -n 's/.* qlen \([0-9]*\).*/\1/p'; }
schema_ok() {
	python3 -c 'import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
		"$TOP/schemas/$1.schema.json" "$2"
}
ip -n "$HOST_NS" link set ens1f0 txqueuelen 1000
state_snapshot "$WORK/before.json"
is "$(qlen)" 1000 "setup: ens1f0 qlen 1000"

P=$WORK/profiles/qlen.yaml
printf 'version: 1\nname: qlen\nmatch:\n  interfaces: [ens1f0]\nlink:\n  txqueuelen: 5000\n' >"$P"

# ---- show: text and JSON
run cx show ens1f0
printf '%s\n' "$out" | grep -q '^  link      .*  mtu 1500 (68-65535)  txqueuelen 1000  '
ok $? "show: the link line has the queue length after the MTU"
run cx --json show ens1f0
is "$(printf '%s' "$out" | jq -c '.interfaces[0].link | [.mtu, .txqueuelen]')" "[1500,1000]" "show --json: link.txqueuelen"
printf '%s' "$out" >"$WORK/show.json"
schema_ok state "$WORK/show.json"
ok $? "show --json validates against schemas/state.schema.json"

# ---- the profile: the key, its JSON, its place after the link's other keys
run cx --json validate "$P"
is "$rc:$(printf '%s' "$out" | jq -c '.[0].profile.link')" '0:{"txqueuelen":5000}' "validate --json: link.txqueuelen"
printf 'version: 1\nname: both\nlink:\n  txqueuelen: 64\n  mtu: 9000\n' >"$WORK/both.yaml"
run cx --json validate "$WORK/both.yaml"
is "$(printf '%s' "$out" | jq -c '.[0].profile.link')" '{"mtu":9000,"txqueuelen":64}' \
	"the effective profile lists the format's keys first, then txqueuelen"

# ---- plan
run cx plan --runtime-only "$P"
is "$rc:$out" "2:ens1f0  txqueuelen  1000 -> 5000
1 change pending" "plan: one change"
run cx --json plan --runtime-only "$P"
is "$(printf '%s' "$out" | jq -c '.changes[0]')" \
	'{"object":"ens1f0","kind":"txqueuelen","key":"txqueuelen","before":"1000","after":"5000","resets_link":false,"note":null}' \
	"plan --json: the change"
printf '%s' "$out" >"$WORK/plan.json"
schema_ok plan "$WORK/plan.json"
ok $? "plan --json validates against schemas/plan.schema.json"

# ---- apply, read back with ip link
run cx apply --runtime-only "$P"
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "0:applied 1 change (transaction 1)" "apply: exit 0"
is "$(qlen)" 5000 "apply: ip link shows qlen 5000"
is "$(sqlite3 "$DB" "SELECT kind || ' ' || object || ' ' || key || ' ' || old_value || ' ' || new_value || ' ' || state FROM changes WHERE txn = 1")" \
	"txqueuelen ens1f0 txqueuelen 1000 5000 applied" "history: the undo log holds the old value"
run cx apply --runtime-only "$P"
is "$rc:$out" "0:nothing to change" "second apply: nothing to change"
run cx --json show ens1f0
is "$(printf '%s' "$out" | jq '.interfaces[0].link.txqueuelen')" 5000 "show --json after apply: 5000"

# ---- verify: in the profile's state, then drift
run cx verify --no-bench "$P"
is "$rc:$(printf '%s\n' "$out" | sed -n 2p)" "0:state       in the profile's state (1 interface)" "verify: no drift"
ip -n "$HOST_NS" link set ens1f0 txqueuelen 77
run cx verify --no-bench "$P"
is "$rc:$(printf '%s\n' "$out" | sed -n 3p)" "3:  ens1f0 txqueuelen: current 77, expected 5000" "verify: another length is drift (exit 3)"
ip -n "$HOST_NS" link set ens1f0 txqueuelen 5000
run cx verify --no-bench
is "$rc:$(printf '%s\n' "$out" | sed -n 1,2p)" "0:verify      qlen (last applied, transaction 1)
state       in the profile's state (1 interface)" "verify without PROFILE: the recorded profile loads back"

# ---- rollback
run cx rollback
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "0:rolled back transaction 1 (recorded as transaction 2)" "rollback: exit 0"
is "$(qlen)" 1000 "rollback: qlen 1000 again"
host_as_before
ok $? "rollback: host exactly as before"

# ---- a failure at its step, and after it: nothing left changed
run env CX5PROF_FAILPOINT=apply-step:1 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	apply --runtime-only "$P"
is "$rc:$(qlen):$(txn_status 3)" "6:1000:rolled_back" "failure at the step: exit 6, qlen as before, rolled back"
host_as_before
ok $? "failure at the step: host exactly as before"

# ---- kill -9 before the step, and once it has landed: rollback restores
if kill9_before_step 1 "$P"; then
	run cx rollback
	is "$rc:$(qlen)" "0:1000" "kill -9 before the step: rollback exit 0, qlen 1000"
fi
# two ports: the first one's step lands, then the kill
qlen1() { ip -n "$HOST_NS" -o link show ens1f1 | sed -n 's/.* qlen \([0-9]*\).*/\1/p'; }
ip -n "$HOST_NS" link set ens1f1 txqueuelen 1000
state_snapshot "$WORK/before.json"
printf 'version: 1\nname: two\nmatch:\n  interfaces: [ens1f0, ens1f1]\nlink:\n  txqueuelen: 5000\n' >"$WORK/two.yaml"
if kill9_before_step 2 "$WORK/two.yaml"; then
	is "$(qlen):$(qlen1)" "5000:1000" "kill -9 after the first port's queue length landed"
	run cx rollback
	is "$rc:$(qlen):$(qlen1)" "0:1000:1000" "rollback: both ports at 1000 again"
fi
host_as_before
ok $? "after the kills and rollbacks: host exactly as before"

# ---- malformed values: the place and the reason, nothing changed
bad() { # bad VALUE EXPECTED-ERROR
	printf 'version: 1\nname: bad\nlink:\n  txqueuelen: %s\n' "$1" >"$WORK/bad.yaml"
	run cx plan "$WORK/bad.yaml"
	is "$rc:$err" "65:cx5prof: error: $WORK/bad.yaml:4:${3:-15}: $2" "txqueuelen: $1"
}
bad -1 "link.txqueuelen: -1 is out of range 0..4294967295"
bad 4294967296 "link.txqueuelen: 4294967296 is out of range 0..4294967295"
bad '"1000"' 'link.txqueuelen: expected an integer, got "1000"'
bad 1e3 'link.txqueuelen: expected an integer, got "1e3"'
bad 1000.5 "link.txqueuelen: expected an integer, got 1000.5"
bad '[1000]' "link.txqueuelen: expected an integer, got a list"
bad '' "link.txqueuelen: expected an integer, got null" 14
printf 'version: 1\nname: bad\nlink:\n  txqueulen: 5000\n' >"$WORK/bad.yaml"
run cx plan "$WORK/bad.yaml"
is "$rc:$err" "65:cx5prof: error: $WORK/bad.yaml:4:3: unknown key \"txqueulen\" in link (did you mean \"txqueuelen\"?)" \
	"a misspelt key: the hint names txqueuelen"
# unset in a child: the parent's value is not managed any more
printf 'version: 1\nname: child\nextends: qlen.yaml\nlink:\n  txqueuelen: ~\n' >"$WORK/profiles/child.yaml"
run cx plan --runtime-only "$WORK/profiles/child.yaml"
is "$rc" 0 "txqueuelen: ~ in a child unsets the parent's value"
is "$(qlen)" 1000 "after the bad profiles: qlen 1000"

done_testing
