#!/usr/bin/env bash
# 223-tune-signal-peer.t: a tune session cut short and a peer that cannot
# be tuned (the namespace lab of campaign-lib.sh, both ends at MTU 1500).
# - The start profile tunes no peer (no peer.ssh): the MTU candidate
#   needs the peer at 9000 too and is skipped with that reason; the IRQ
#   candidate still runs (--only mtu,irq).
#   Its --report DIR: tune.json and report.html (the step chart), which
#   the headless browser lays out without a fault at 800 and 1280 px.
# - A goal the baseline reaches (--goal-mbps 1): no candidate is tried;
#   a budget spent in the baseline rounds (--budget 4s) neither.
# - SIGINT to the process group during a candidate's rounds: exit 6, the
#   session recorded as interrupted with its steps, the host as before.
# - The sessions' records reach a TaoToken gateway on 127.0.0.1 (mirror).
# - --keep: the peer at MTU 9000 (its `serve` says so in STATE, so the MTU
#   candidate needs no tuning there), MTU 9000 kept and applied here as one
#   committed transaction; rollback undoes it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/campaign-lib.sh"
. "$(dirname "$0")/browser-lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
csetup c223
ip -n "$HOST_NS" link set ens1f0 mtu 1500 && ip -n "$PEER_NS" link set peer0 mtu 1500
MTUS0=$(mtus)
cat >"$WORK/start.yaml" <<YAML
version: 1
name: start
match:
  interfaces: [ens1f0]
verify: {peer: 198.18.0.2, runner: netperf, duration: 1, message_size: 8000}
YAML

# ---- a peer that cannot be tuned
run cx --json tune "$WORK/start.yaml" --only mtu,irq --max-rounds 5 --min-effect 10 --report "$WORK/report"
printf '%s' "$out" >"$WORK/peer.json"
is "$rc" 0 "no peer to tune: exit 0"
run "$PY" - "$WORK/peer.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(" / ".join("%s %s: %s" % (s["family"], s["outcome"], s["why"]) for s in d["steps"]))
PY
printf '%s\n' "$out" | grep -q '^mtu skipped: needs the peer changed too, and the profile does not tune the peer (no peer.ssh) / irq '
ok $? "the MTU candidate is skipped with the reason; the IRQ candidate still runs"
diag "$out"
is "$(mtus)" "$MTUS0" "the host's MTU as before"
same_sysroot
ok $? "the sysroot as before"
cmp -s <(python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])), sort_keys=True))' "$WORK/report/tune.json") \
	<(python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])), sort_keys=True))' "$WORK/peer.json")
ok $? "--report: tune.json is the --json document"
grep -q '<h3>Receive throughput per step</h3>' "$WORK/report/report.html" && grep -q '<h3>Loss per step</h3>' "$WORK/report/report.html"
ok $? "--report: report.html has the step charts"
if command -v "$BROWSER" >/dev/null 2>&1; then
	for width in 800 1280; do
		browser_probe "$WORK/report/report.html" "$width" "$WORK/verdict-$width"
		grep -q '^PROBE PASS' "$WORK/verdict-$width"
		ok $? "the tune report at $width px: laid out without a fault"
		grep -q 'PROBE FAIL' "$WORK/verdict-$width" && diag "$(cat "$WORK/verdict-$width")"
	done
	browser_cleanup
else
	skip 2 "no $BROWSER here (contrib/install-deps.sh installs it)"
fi

# ---- a goal the baseline already reaches: no candidate is tried
run cx --json tune "$WORK/start.yaml" --goal-mbps 1 --max-loss 100
printf '%s' "$out" >"$WORK/goal.json"
run "$PY" - "$WORK/goal.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["stopped"], d["exit_code"], len(d["steps"]), d["rounds"], d["goal"])
PY
is "$out" "goal 0 0 3 {'recv_mbps': 1.0, 'max_loss_percent': 100.0}" "--goal-mbps the baseline reaches: stopped at the goal after the 3 baseline rounds"

# ---- a budget spent in the baseline rounds: no candidate's rounds
run cx --json tune "$WORK/start.yaml" --only irq --budget 4s
printf '%s' "$out" >"$WORK/budget.json"
run "$PY" - "$WORK/budget.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["stopped"], d["exit_code"], d["status"], [(s["family"], s["outcome"], s["rounds"]) for s in d["steps"]], d["rounds"] <= 3)
PY
printf '%s\n' "$out" | grep -qE "^budget 0 done (\[\]|\[\('irq', 'skipped', 0\)\]) True$"
ok $? "--budget 4s: stopped by the budget, no candidate's rounds, exit 0"
diag "$out"

# ---- SIGINT during a candidate's rounds (the 3 baseline rounds, then the candidate's)
mkfifo "$WORK/int.fifo"
CX5PROF_TEST_PAUSE=bench-running:$WORK/int.fifo setsid ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	tune "$WORK/start.yaml" --only irq --max-rounds 5 >"$WORK/int.out" 2>"$WORK/int.err" &
pid=$!
at_run "$WORK/int.fifo" 5
ok $? "the candidate's second round runs (process group $pid)"
pause_signal "$WORK/int.fifo" INT "-$pid"
wait "$pid"
is "$?" 6 "SIGINT to the process group: exit 6"
is "$(q "SELECT status FROM tunes ORDER BY id DESC LIMIT 1")" interrupted "the session is recorded as interrupted"
q "SELECT summary FROM tunes ORDER BY id DESC LIMIT 1" >"$WORK/int.json"
run "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["stopped"], d["exit_code"], [(s["family"], s["outcome"]) for s in d["steps"]], d["baseline"] is not None)' "$WORK/int.json"
is "$out" "interrupted 6 [('irq', 'interrupted')] True" "its steps: the interrupted one, with the baseline measured"
is "$(q "SELECT COUNT(*) FROM transactions WHERE kind = 'apply' AND status != 'rolled_back'")" 0 \
	"every round's transaction rolled back"
is "$(mtus)" "$MTUS0" "the host's MTU as before"
same_sysroot
ok $? "the sysroot as before"
# ---- --keep
ip -n "$PEER_NS" link set peer0 mtu 9000
timeout -k 1 300 ip netns exec "$PEER_NS" "$CX5PROF" serve --bind 198.18.0.2 2>"$WORK/serve.log" &
V_PIDS="$V_PIDS $!"
wait_listen 12866 || { echo "Bail out! serve did not start: $(cat "$WORK/serve.log")"; exit 1; }
sed 's/runner: netperf/runner: builtin/' "$WORK/start.yaml" >"$WORK/start-builtin.yaml"
run cx tune "$WORK/start-builtin.yaml" --only mtu --max-rounds 5 --min-effect 10 --keep --out "$WORK/kept.yaml"
diag "$out"
is "$rc" 0 "--keep: exit 0"
is "$(ip -n "$HOST_NS" -o link show ens1f0 | grep -o 'mtu [0-9]*')" "mtu 9000" "--keep: MTU 9000 stays applied here"
is "$(q "SELECT kind || ':' || status FROM transactions ORDER BY id DESC LIMIT 1")" "apply:committed" \
	"--keep: one committed transaction"
grep -q '^  mtu: 9000  # step 1: throughput +' "$WORK/kept.yaml"
ok $? "--keep: the profile written with its measured effect"
run cx rollback
is "$rc/$(ip -n "$HOST_NS" -o link show ens1f0 | grep -o 'mtu [0-9]*')" "0/mtu 1500" "rollback undoes the kept profile"
same_sysroot
ok $? "the sysroot as before"

# ---- the sessions' records drained to a TaoToken gateway (the fake one of
# the mirror tests, on 127.0.0.1 outside the lab's namespaces)
tt_gateway "$WORK" tune
sessions=$(q "SELECT COUNT(*) FROM tunes")
run env CX5PROF_MIRROR_CONFIG="$WORK/mirror.yaml" "$CX5PROF" --db "$DB" mirror
is "$rc/$(q "SELECT COUNT(*) FROM outbox WHERE source_kind = 'tune' AND status = 'sent' AND attempts = 1")" "0/$sessions" \
	"mirror: every tune session's outbox row sent once"
run "$PY" - "$WORK/tt.log" "$TOP/schemas/tune.schema.json" <<'PYEOF'
import json, sys, jsonschema
got = [json.loads(l) for l in open(sys.argv[1])]
tune = [e for e in got if e["record"] == "tune 1"]
doc = json.loads(tune[0]["content"].split(":", 1)[1]) if len(tune) == 1 else {}
jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(doc)
print(len(tune), tune[0]["status"], tune[0]["key_ok"], doc["tune"], doc["status"])
PYEOF
is "$rc $out" "0 1 200 True 1 done" "the gateway received the first session's record once: its document (valid), with the key"
done_testing
