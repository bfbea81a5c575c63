#!/usr/bin/env bash
# 151-fleet-ansible.t: the Ansible collection (contrib/ansible) over SSH
# against a fleet of five lab hosts (fleet-lib.sh: each a network namespace
# with its own sshd, sysroot copy, history database and peer), with the
# real ansible-playbook in a controller namespace and no local connection.
# h1-h3 are alike; h4 has old firmware (below the profile's
# requires.firmware.min_version) and h5 has no ens1f0 at all.
#
#   check mode changes nothing anywhere; the first run applies, verifies
#   and commits h1-h3, while h4 and h5 end with the engine's own reason
#   and nothing changed; `cx5prof report --hosts` of the rows and bundles
#   the playbook wrote; the second run changes nothing; a rollout in
#   batches [1, "50%"] of a profile whose verify fails stops after the
#   canary, which is rolled back, while h2-h5 stay byte for byte as they
#   were; the fleet summary (cx5prof-summary.yml) has one row per host,
#   those never reached saying so.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
. "$(dirname "$0")/fleet-lib.sh"
need_root_netns
for tool in ansible-playbook /usr/sbin/sshd iperf3 jq sqlite3; do
	need_tool "$tool" # refused in CI, and listed at the end of make check
done
cleanup() {
	fleet_down
	[ "${CX5T_KEEP:-0}" = 1 ] || rm -rf "$W"
}
fleet_setup
trap cleanup EXIT
for n in 1 2 3 4; do fleet_host "$n"; done
fleet_host 5 ens1f1
# h4: firmware 14.32.1010 on both ports; h5: no ens1f0 in its files either.
for f in "$W"/h4/sysroot/sys/class/net/*/device/infiniband/*/fw_ver; do echo 14.32.1010 >"$f"; done
rm "$W/h5/sysroot/sys/class/net/ens1f0"
fleet_inventory 1 2 3 4 5
for n in 1 2 3 4 5; do cp -a "$W/h$n/sysroot" "$W/h$n/pristine"; done

# profiles/lab-udp.yaml with a floor any loaded 2-core machine meets, one
# second of benchmark, and the firmware the profile requires; and the same
# at MTU 8000 with an impossible floor (the canary's).
sed -e 's/throughput_mbps: 100$/throughput_mbps: 1/' -e 's/loss_percent: 90$/loss_percent: 100/' \
	-e 's/^  duration: 2$/  duration: 1/' -e 's/^match:$/requires:\n  firmware:\n    min_version: "16.26.1040"\nmatch:/' \
	"$TOP/profiles/lab-udp.yaml" >"$W/lab-udp.yaml"
sed -e 's/^name: lab-udp$/name: lab-udp-floor/' -e 's/^  mtu: 9000$/  mtu: 8000/' \
	-e 's/throughput_mbps: 1$/throughput_mbps: 900000/' "$W/lab-udp.yaml" >"$W/lab-udp-floor.yaml"
grep -q 'min_version: "16.26.1040"' "$W/lab-udp.yaml" && grep -q 'duration: 1$' "$W/lab-udp.yaml" &&
	grep -q 'mtu: 8000' "$W/lab-udp-floor.yaml" && grep -q 'throughput_mbps: 900000' "$W/lab-udp-floor.yaml" ||
	{ echo "Bail out! could not make the profiles"; exit 1; }

PLAYBOOKS=$TOP/contrib/ansible/playbooks
: >"$W/ansible.cfg"
k=0
# ap PLAYBOOK ARGS...: ansible-playbook in the controller's namespace, over
# SSH; its JSON report in $J, the summary directory $S.
ap() {
	local pb=$1
	shift
	k=$((k + 1))
	J=$W/run-$k.json S=$W/summary-$k
	ip netns exec "$CTL" env HOME="$W/home" ANSIBLE_CONFIG="$W/ansible.cfg" ANSIBLE_COLLECTIONS_PATH="$W/collections" \
		ANSIBLE_LOCAL_TEMP="$W/tmp" ANSIBLE_REMOTE_TMP="$W/tmp" ANSIBLE_PIPELINING=1 ANSIBLE_FORKS=5 \
		ANSIBLE_SSH_ARGS="-o ControlMaster=no" ANSIBLE_HOST_KEY_CHECKING=1 \
		ANSIBLE_CALLBACK_PLUGINS="$TESTS_DIR/integration/ansible" ANSIBLE_STDOUT_CALLBACK=cx5json ANSIBLE_NOCOLOR=1 \
		ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_DEPRECATION_WARNINGS=0 \
		timeout -k 5 240 ansible-playbook -i "$W/inventory.yml" "$pb" -e cx5prof_summary_dir="$S" "$@" >"$J" 2>"$W/run-$k.err"
	rc=$?
}
# row N: host hN's row of the last run's summary, without the figure.
row() { jq -cS '.recv_mbps |= (if type == "number" then (if . > 0 then "N" else . end) else . end) | .drift |= length' "$S/h$1/host.json"; }
recap() { jq -c --arg h "h$1" '.stats[$h] // {} | {changed, failures, ok, rescued}' "$J"; }
mtus() { local n; for n in "$@"; do printf '%s ' "$(mtu_of "$n")"; done; }
txns() { sqlite3 "$W/h$1/history.db" "SELECT group_concat(id || ' ' || kind || ' ' || status, ', ') FROM transactions" 2>/dev/null; }
same_files() { # same_files N: hN's sysroot is byte for byte its pristine copy
	diff -r --no-dereference "$W/h$1/pristine" "$W/h$1/sysroot" >/dev/null
}
dump_db() { [ ! -e "$W/h$1/history.db" ] || sqlite3 "$W/h$1/history.db" .dump; }
fw_reason='ens1f0: firmware version 14.32.1010 is older than the required 16.26.1040 (requires.firmware.min_version): update the NIC firmware (mlxup or mstflint)'
nic_reason='ens1f0: no such interface: check the interface name in match.interfaces'
# odd_rows: h4's and h5's exit code, verify and reason.
odd_rows() { for n in 4 5; do jq -c '[.exit_code, .verify, .transaction, .reason]' "$S/h$n/host.json"; done; }
odd_expected="[5,null,null,\"$fw_reason\"]
[66,null,null,\"$nic_reason\"]"

# ---- check mode: every host planned, nothing changed anywhere
ap "$PLAYBOOKS/cx5prof-fleet.yml" --check
is "$rc" 2 "check mode: exit 2 (h4 and h5 cannot take the profile)"
for n in 1 2 3; do
	is "$(row "$n")" "{\"changed\":true,\"drift\":0,\"exit_code\":2,\"host\":\"h$n\",\"profile\":\"lab-udp\",\"reason\":\"would change 1 settings\",\"recv_mbps\":null,\"transaction\":null,\"verify\":null}" \
		"check mode: h$n would change its MTU (plan's exit 2)"
done
is "$(odd_rows)" "$odd_expected" "check mode: h4 and h5 end with the engine's own reason (old firmware: exit 5; no NIC: exit 66)"
ok_files=0
for n in 1 2 3 4 5; do same_files "$n" || ok_files=1; done
ok "$ok_files" "check mode: every host's files are as before"
is "$(ls "$W"/h*/history.db 2>/dev/null | wc -l)" 0 "check mode: no host has a history database"
is "$(mtus 1 2 3 4 5)" "1500 1500 1500 1500 - " "check mode: every MTU as before"

# ---- first run: h1-h3 applied, verified and committed; h4 and h5 failed
ap "$PLAYBOOKS/cx5prof-fleet.yml"
is "$rc" 2 "first run: exit 2 (h4 and h5 failed)"
for n in 1 2 3; do
	is "$(row "$n")" "{\"changed\":true,\"drift\":0,\"exit_code\":0,\"host\":\"h$n\",\"profile\":\"lab-udp\",\"reason\":\"committed transaction 1\",\"recv_mbps\":\"N\",\"transaction\":1,\"verify\":\"pass\"}" \
		"first run: h$n applied, verified (pass, Mbps measured) and committed"
done
is "$(for n in 1 2 3; do txns "$n"; done | sort | uniq -c | sed 's/^ *//')" "3 1 apply committed" "first run: each history holds its committed transaction"
is "$(mtus 1 2 3 4 5)" "9000 9000 9000 1500 - " "first run: MTU 9000 on h1-h3 only"
is "$(odd_rows)" "$odd_expected" "first run: h4 and h5 failed with the engine's own reason"
same_files 4 && same_files 5
ok $? "first run: h4's and h5's files are as before"
is "$(recap 1)|$(recap 4)" '{"changed":2,"failures":0,"ok":6,"rescued":0}|{"changed":0,"failures":1,"ok":2,"rescued":1}' \
	"first run: recap of h1 and h4"
is "$(jq -r '.id' "$S/h1/run.json")|$(jq -r '.results.outcome' "$S/h1/run.json")|$(jq -r '.name' "$S/h1/profile.json")" "1|pass|lab-udp" \
	"first run: h1's verify run and its profile are on the controller (the export bundle)"
FIRST=$S

# ---- the first run's hosts in one report (the rows and the bundles)
run "$CX5PROF" report --hosts "$FIRST"/h1 "$FIRST"/h2 "$FIRST"/h3 "$FIRST"/h4 "$FIRST"/h5 --dir "$W/report"
is "$rc" 0 "report --hosts: exit 0"
is "$(printf '%s\n' "$out" | sed -n 2p)" "verdict     3 pass; 2 not run: h4 (exit 5), h5 (exit 66)" "report --hosts: the fleet's verdict"
is "$(printf '%s\n' "$out" | sed -n '4,$p' | sed -E 's/ +[0-9]+\.[0-9] +[0-9]+\.[0-9]{2} / N L /' | sed 's/  */ /g')" \
	"h1 lab-udp 1 yes pass N L 0 0 committed transaction 1
h2 lab-udp 1 yes pass N L 0 0 committed transaction 1
h3 lab-udp 1 yes pass N L 0 0 committed transaction 1
h4 lab-udp - no not run - - 0 5 $fw_reason
h5 lab-udp - no not run - - 0 66 $nic_reason" "report --hosts: one row per host, from the playbook's rows and the exported runs"
is "$(grep -c '^<tr><td>' "$W/report/report.html")" 5 "report --hosts: report.html has the five hosts"

# ---- second run: nothing to change anywhere
ap "$PLAYBOOKS/cx5prof-fleet.yml"
is "$rc" 2 "second run: exit 2 (h4 and h5 still fail)"
for n in 1 2 3; do
	is "$(jq -c '{changed, reason, verify}' "$S/h$n/host.json")" '{"changed":false,"reason":"nothing to change","verify":"pass"}' \
		"second run: h$n unchanged, still passes"
done
is "$(for n in 1 2 3; do recap "$n" | jq -c .changed; done | paste -sd' ')" "0 0 0" "second run: recap changed=0 on h1-h3"
is "$(for n in 1 2 3; do txns "$n"; done | sort | uniq -c | sed 's/^ *//')" "3 1 apply committed" "second run: no new transaction"

# ---- canary: batches [1, "50%"], a profile whose verify fails on the canary
for n in 2 3 4 5; do
	rm -rf "$W/h$n/pristine" && cp -a "$W/h$n/sysroot" "$W/h$n/pristine"
	dump_db "$n" >"$W/h$n/db.before"
done
ap "$PLAYBOOKS/cx5prof-fleet.yml" -e cx5prof_profile="$W/lab-udp-floor.yaml" -e '{"cx5prof_serial": [1, "50%"]}'
is "$rc" 2 "canary: exit 2"
is "$(jq -r '.stats | keys | join(" ")' "$J")" "h1" "canary: the rollout stopped after the canary h1"
is "$(jq -c '{transaction, changed, verify, exit_code, reason: (.reason | sub("measured [0-9.]+"; "measured N"))}' "$S/h1/host.json")" \
	'{"transaction":2,"changed":false,"verify":"fail","exit_code":4,"reason":"receive throughput below >= 900000.0 Mbps (measured N); rolled back transaction 2"}' \
	"canary: h1 applied transaction 2, failed its verify (exit 4, the engine's figures) and was rolled back (changed: false, its final state)"
is "$(txns 1)" "1 apply committed, 2 apply rolled_back, 3 rollback committed" "canary: h1's transaction 2 was rolled back"
is "$(mtus 1 2 3 4 5)" "9000 9000 9000 1500 - " "canary: h1 back at MTU 9000, the others untouched"
for n in 2 3 4 5; do
	same_files "$n" && [ "$(dump_db "$n")" = "$(cat "$W/h$n/db.before")" ] && [ ! -e "$S/h$n" ]
	ok $? "canary: h$n byte for byte as before (files and history), never reached"
done
CANARY=$S
ap "$PLAYBOOKS/cx5prof-summary.yml" -e cx5prof_summary_dir="$CANARY"
is "$rc" 0 "summary: exit 0"
is "$(sed -E -e 's/ [0-9]+\.[0-9] / N /' -e 's/measured [0-9.]+/measured N/' -e 's/  */ /g' -e 's/ $//' "$CANARY/summary.txt")" \
	"HOST PROFILE TXN CHANGED VERIFY RECV_MBPS DRIFT EXIT REASON
h1 lab-udp-floor 2 no fail N no 4 receive throughput below >= 900000.0 Mbps (measured N); rolled back transaction 2
h2 - - no - - no - not reached (the rollout stopped before this host)
h3 - - no - - no - not reached (the rollout stopped before this host)
h4 - - no - - no - not reached (the rollout stopped before this host)
h5 - - no - - no - not reached (the rollout stopped before this host)" \
	"summary: one row per host (host, profile, transaction, changed, verify, Mbps, drift, exit code, reason); the hosts never reached say so"
is "$(jq -c 'map(.host)' "$CANARY/summary.json")" '["h1","h2","h3","h4","h5"]' "summary: summary.json holds the rows"
# The documented page of that run: every entry of the summary directory.
run "$CX5PROF" report --hosts "$CANARY"/* --dir "$W/report-canary"
is "$rc|$(printf '%s\n' "$out" | sed -n 2p)" "0|verdict     1 fail: h1; 4 not run: h2, h3, h4, h5" \
	"report --hosts DIR/* on the summary's directory: h1 from its row and run, the hosts never reached from summary.json"
done_testing
