#!/usr/bin/env bash
# 57-history-txn.t: transactions are inspectable. `history show txn N`
# prints a transaction's undo log (object, key, old -> new, state), a
# rollback row of `history` says what it undid, and `history --json` carries
# each transaction's changes (schemas/history.schema.json). The records come
# from a real apply and rollback in the lab.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 57
export TZ=UTC
SCHEMA=$TOP/schemas/history.schema.json

run cx apply "$WORK/profiles/mtu-jumbo.yaml"
is "$rc" 0 "apply: exit 0"
run cx rollback
is "$rc" 0 "rollback: exit 0"

run cx history
is "$rc|$(printf '%s\n' "$out" | cut -c22-)" '0|txn 2     rollback undid txn 1 (2 changes) committed
txn 1     apply    mtu-jumbo rolled_back: rolled back by `cx5prof rollback`' \
	"history: the rollback row says what it undid"

# the time line varies: checked for its shape only
masked() { printf '%s\n' "$out" | sed -E 's/^(time +)[0-9: -]+ -> [0-9: -]+$/\1T -> T/; s/^(user +root  host ).*/\1H/'; }
run cx history show txn 1
is "$rc|$(masked)" '0|txn 1  apply  mtu-jumbo  rolled_back
time         T -> T
user         root  host H
undone by    txn 2
error        rolled back by `cx5prof rollback`
changes      2
  seq  object           key                          old -> new  state
  1    ens1f0           mtu                          1500 -> 9000  undone
  2    ens1f1           mtu                          1500 -> 9000  undone
mirror: pending, 0 attempt(s), reply -' "history show txn 1: the apply and its undo log"
run cx history show txn 2
is "$rc|$(masked)" '0|txn 2  rollback  -  committed
time         T -> T
user         root  host H
undid        txn 1
changes      2
  seq  object           key                          old -> new  state
  1    ens1f1           mtu                          9000 -> 1500  applied
  2    ens1f0           mtu                          9000 -> 1500  applied
mirror: pending, 0 attempt(s), reply -' "history show txn 2: the rollback and what it restored"
run cx history show run 1
is "$rc|$err" "66|cx5prof: error: run 1 not found in $DB: see 'cx5prof history'" "history show run N: a run"

run cx --json history show txn 2
is "$rc|$(printf '%s' "$out" | jq -c '.transaction | {id, kind, rolls_back, rolled_back_by, changes: [.changes[] | "\(.seq) \(.object) \(.kind) \(.key) \(.old)->\(.new) \(.state)"]}')" \
	'0|{"id":2,"kind":"rollback","rolls_back":1,"rolled_back_by":null,"changes":["1 ens1f1 mtu mtu 9000->1500 applied","2 ens1f0 mtu mtu 9000->1500 applied"]}' \
	"history show txn --json: the changes"
run cx --json history show txn 1
is "$rc|$(printf '%s' "$out" | jq -c '.transaction | {rolls_back, rolled_back_by}')" '0|{"rolls_back":null,"rolled_back_by":2}' \
	"history show txn --json: an apply names the rollback that undid it"
printf '%s\n' "$out" >"$WORK/show-txn.json"
run cx --json history
is "$rc|$(printf '%s' "$out" | jq -c '[.history[] | {id, rolls_back, n: (.changes | length), states: [.changes[].state]}]')" \
	'0|[{"id":2,"rolls_back":1,"n":2,"states":["applied","applied"]},{"id":1,"rolls_back":null,"n":2,"states":["undone","undone"]}]' \
	"history --json: every transaction carries its changes"
printf '%s\n' "$out" >"$WORK/list.json"
run /usr/bin/python3 "$TESTS_DIR/helpers/validate_json.py" "$SCHEMA" "$WORK/show-txn.json" "$WORK/list.json"
is "$rc|$out" "0|2 documents valid" "history show txn and history --json match the schema"

run cx history show txn 9
is "$rc|$err" "66|cx5prof: error: transaction 9 not found in $DB: see 'cx5prof history'" "show txn 9: not found"
run cx history show txn abc
is "$rc|$err" "64|cx5prof: error: 'abc' is not a transaction id (a positive number, as listed by 'cx5prof history')" \
	"show txn abc: usage"
run cx history show txn
is "$rc|$err" "64|cx5prof: error: history show: expected exactly one transaction id" "show txn without an id: usage"

done_testing
