#!/usr/bin/env bash
# 190-verify-no-thresholds.t: a profile without verify.thresholds judges
# nothing, so verify never says "pass" of a measured run. In the lab, the
# builtin runner against `cx5prof serve` in the peer namespace (so the
# ledger has both hosts' counters): the report ends `result      recorded
# (no thresholds set), limited by STAGE`, the stage being the ledger's
# limited_by; exit 0; JSON result "recorded" with limited_by, valid
# against schemas/verify.schema.json; the history's outcome and verdict
# say the same (`recorded: no thresholds set`). A profile with thresholds still passes (the word is not lost).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
. "$(dirname "$0")/ledger-lib.sh"
need_root_netns
vsetup v190

profile() { # profile FILE NAME [THRESHOLDS-YAML]
	cat >"$1" <<YAML
version: 1
name: $2
match:
  interfaces: [ens1f0]
link:
  mtu: 9000
verify:
  peer: 198.18.0.2
  runner: [builtin]
  duration: 1
  message_size: 8000
$3
YAML
}
profile "$WORK/none.yaml" lab-none ""
profile "$WORK/floor.yaml" lab-floor "  thresholds:
    loss_percent: 100"
set_mtu 9000 9000
serve_start

# ---- no thresholds: recorded, limited by a stage, exit 0
run cx verify "$WORK/none.yaml"
is "$rc" 0 "no thresholds: exit 0, as before"
limited=$(printf '%s\n' "$out" | sed -n 's/^result      recorded (no thresholds set), limited by \([a-z-]*\) (run 1 recorded)$/\1/p')
ok "$([ -n "$limited" ] && echo 0 || echo 1)" "no thresholds: recorded, not pass, with what limited the run"
ok "$([ -n "$limited" ] && [ "$limited" != unknown ] && echo 0 || echo 1)" \
	"limited by a stage (both hosts' counters read): '$limited'"
printf '%s\n' "$out" | grep -q 'pass (run'
ok $((!$?)) "no 'pass' in the result"

# ---- JSON: result recorded, limited_by the ledger's
run cx verify "$WORK/none.yaml" --json
is "$rc" 0 "--json: exit 0"
printf '%s' "$out" >"$WORK/none.json"
is "$("$PY" - "$WORK/none.json" "$TOP/schemas/verify.schema.json" "$TESTS_DIR/helpers" <<'PYEOF'
import json, sys
sys.path.insert(0, sys.argv[3])
from validate_json import validator
doc = json.load(open(sys.argv[1]))
errors = list(validator(sys.argv[2]).iter_errors(doc))
for e in errors:
    print("schema:", e.message, file=sys.stderr)
print(doc["result"], doc["exit_code"], doc["thresholds"], doc["limited_by"] == doc["ledger"]["limited_by"],
      doc["limited_by"] not in (None, "unknown"), "schema-ok" if not errors else "schema-bad")
PYEOF
)" "recorded 0 [] True True schema-ok" "--json: result recorded, limited_by from the ledger, valid"

# ---- the history says recorded, not pass
is "$("$PY" - "$DB" <<'PYEOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(db.execute("select verdict from runs where id = 1").fetchone()[0])
PYEOF
)" "recorded: no thresholds set" "the history's verdict of the run"
run cx history --json --limit 0
is "$(printf '%s' "$out" | jq -c '[.history[] | select(.type == "run") | .outcome]')" '["recorded","recorded"]' \
	"history --json: outcome recorded"
printf '%s' "$out" >"$WORK/history.json"
is "$("$PY" - "$WORK/history.json" "$TOP/schemas/history.schema.json" "$TESTS_DIR/helpers" <<'PYEOF'
import json, sys
sys.path.insert(0, sys.argv[3])
from validate_json import validator
errors = list(validator(sys.argv[2]).iter_errors(json.load(open(sys.argv[1]))))
for e in errors:
    print("schema:", e.message, file=sys.stderr)
print("schema-ok" if not errors else "schema-bad")
PYEOF
)" schema-ok "history --json: valid against history.schema.json"
run cx history
printf '%s\n' "$out" | grep -E '^[0-9-]+ [0-9:]+  run 1 ' | grep -qE ', recorded$'
ok $? "history: the run's line ends 'recorded', not 'pass'"
run cx history show 1
printf '%s\n' "$out" | grep -qE '  recorded: no thresholds set$'
ok $? "history show: 'recorded: no thresholds set'" || diag "$out"

# ---- a threshold that holds: pass, as before
run cx verify "$WORK/floor.yaml"
is "$rc" 0 "a threshold that holds: exit 0"
is "$(printf '%s\n' "$out" | grep '^result')" "result      pass (run 3 recorded)" "a threshold that holds: pass"

done_testing
