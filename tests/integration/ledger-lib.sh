# ledger-lib.sh: the loss ledger tests (130-139), sourced after lib.sh and
# verify-lib.sh. The ledgers they check are the kernel's real counters in
# the lab's namespaces: nothing here is a fixture.
#
#   ledger_profile FILE NAME RUNNER DURATION RECEIVE
#                         a profile that runs RUNNER against the peer for
#                         DURATION seconds, 8000-byte datagrams, send buffer
#                         4M, receive buffer RECEIVE, any loss allowed
#   serve_start           `cx5prof serve` in the peer for several runs
#                         (killed by stop_servers)
#   ledger_facts FILE     one line from the "ledger" of a verify or bench
#                         --json document: limited_by, sent, received,
#                         lost, the receiver-socket-buffer and reassembly
#                         counts, unaccounted, whether the lines add up,
#                         whether the receiver's counters were read, and
#                         whether it validates against the schema
#   exit0 NAME            the last run exited 0 (else its stderr as a diagnostic)

ledger_profile() {
	cat >"$1" <<YAML
version: 1
name: $2
match:
  interfaces: [ens1f0]
verify:
  peer: 198.18.0.2
  runner: $3
  duration: $4
  message_size: 8000
  socket_buffer:
    send: 4M
    receive: $5
  thresholds:
    loss_percent: 100
YAML
}

serve_start() {
	timeout -k 1 900 ip netns exec "$PEER_NS" "$CX5PROF" serve --bind 198.18.0.2 2>>"$WORK/serve.log" &
	V_PIDS="$V_PIDS $!"
	wait_listen 12866
}

ledger_facts() {
	"$PY" - "$1" "$TOP/schemas/ledger.schema.json" <<'PYEOF'
import json, sys
import jsonschema
doc = json.load(open(sys.argv[1]))
led = doc["ledger"]
errors = list(jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).iter_errors(led))
for e in errors:
    print("schema:", e.message, file=sys.stderr)
counts = {l["stage"]: l["count"] for l in led["lines"]}
adds = led["sent"] == led["received"] + sum(c for c in counts.values() if c) + led["unaccounted"]
print(led["limited_by"], led["sent"], led["received"], led["lost"],
      counts["receiver-socket-buffer"], counts["reassembly"], led["unaccounted"],
      "adds-up" if adds else "does-not-add-up",
      "receiver-known" if led["hosts"]["receiver"]["known"] else "receiver-unknown",
      "schema-ok" if not errors else "schema-bad")
PYEOF
}

# exit0 NAME: the last run exited 0; if not, its stderr says why.
exit0() {
	is "$rc" 0 "$1"
	[ "$rc" = 0 ] || diag "stderr: $err"
}
