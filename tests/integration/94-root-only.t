#!/usr/bin/env bash
# 94-root-only.t: the commands that change the host or its history
# (apply, apply --confirm, rollback, commit, campaign) run by a user other
# than root on root's history exit 77 ("permission denied: run as root"),
# change nothing and write nothing; read-only commands that need no
# privilege (show, plan) still work. The test runs as root and drops to
# `nobody` (runuser) for each command, inside the lab's host namespace.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
need_tool runuser "util-linux"
txn_setup 94

P=$WORK/profiles/mtu-jumbo.yaml
run cx apply --confirm 600 "$P"
is "$rc" 0 "root: apply --confirm, pending a commit"
# nobody may read the profiles and the sysroot, not root's history (0600)
chmod 755 "$WORK"
chmod 644 "$WORK"/profiles/*
state_snapshot "$WORK/applied.json"
db_sum() { sha256sum <"$DB"; }
before=$(db_sum)
as_nobody() { run ip netns exec "$HOST_NS" runuser -u nobody -- "$CX5PROF" --sysroot "$SR" --db "$DB" "$@"; }

why="permission denied: run as root, or choose another file with --db"
for v in "apply $P" "apply --confirm 30 $P" rollback commit "campaign $TOP/contrib/lab/campaign-lab.yaml"; do
	# shellcheck disable=SC2086
	as_nobody $v
	is "$rc" 77 "${v%% *} as nobody: exit 77"
	case $err in
	*"Permission denied: $why") ok 0 "${v%% *} as nobody: says to run as root" ;;
	*) ok 1 "${v%% *} as nobody: says to run as root"; diag "$err" ;;
	esac
	state_snapshot "$WORK/now.json"
	cmp -s "$WORK/applied.json" "$WORK/now.json"
	ok $? "${v%% *} as nobody: the host is unchanged"
	is "$(db_sum)" "$before" "${v%% *} as nobody: the history is unchanged"
done
is "$(txn_status 1)" pending_confirm "root's transaction still waits for root's commit"

as_nobody show
is "$rc" 0 "show as nobody: exit 0 (reading needs no privilege)"
as_nobody plan "$P"
is "$rc" 0 "plan as nobody: exit 0"

run cx commit
is "$rc:$out" "0:committed transaction 1" "root: commit"
run cx rollback
is "$rc" 0 "root: rollback"
host_as_before
ok $? "the host is as before"

done_testing
