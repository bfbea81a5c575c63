#!/usr/bin/env bash
# 76-peer-record-unreadable.t: a transaction that tuned a peer but whose
# stored profile no longer loads (an old or damaged record) still rolls this
# host back, and says, with a failing exit code, what to run on the peer:
# it never skips the peer without a word.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 76

cat >"$WORK/mtu.yaml" <<'YAML'
version: 1
name: mtu-only
link:
  mtu: 9000
YAML

run cx apply "$WORK/mtu.yaml"
is "$rc" 0 "apply: exit 0"
is "$(mtu_of ens1f0)" 9000 "apply: ens1f0 at 9000"
# As if a peer had been tuned with it, from a profile this cx5prof cannot read.
sqlite3 "$DB" "UPDATE transactions SET peer_txn = 5, profile_json = '{\"version\": 1, \"link\": {\"mtu\": \"big\"}}' WHERE id = 1"

run cx rollback
is "$rc" 7 "rollback: exit 7 (the peer is not known to be restored)"
is "$(printf '%s\n' "$err" | grep error:)" \
	"cx5prof: error: transaction 1 tuned a peer (its transaction 5), but the stored profile does not say how to reach it: run \`cx5prof rollback 5\` on the peer (recorded: the next \`cx5prof rollback\` here tries again)" \
	"rollback: names the peer's transaction and what to run there"
is "$(mtu_of ens1f0)" 1500 "rollback: this host is restored"
host_as_before
ok $? "rollback: host and sysroot as before"

done_testing
