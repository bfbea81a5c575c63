#!/usr/bin/env bash
# 13-docs-generated.t: the key tables of the man page and of
# schemas/profile.schema.json are what `make docs` writes from the change
# kinds' key rows (engine/kinds/), plan.schema.json's list of kinds from
# their table, and state.schema.json's show keys from each kind's
# show_schema: the committed files agree, a hand edit inside the generated
# region is caught with a diff, and `make docs` writes it back. Text
# outside the region (the schema's irq rule across keys, the show keys
# verb_show writes itself) stays as written.
. "$(dirname "$0")/lib.sh"

need_tool python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

run make -s -C "$TOP" --no-print-directory build/keydoc
is "$rc" 0 "the key dump builds"
"$TOP/build/keydoc" >"$TMP/keys.json"
ok $? "keydoc prints the kinds' keys"
is "$(jq -r '[.keys[] | select(.kind == "mtu") | .path] | join(",")' "$TMP/keys.json")" "link.mtu" \
	"the mtu kind owns link.mtu"
is "$(jq -r '.keys[] | select(.path == "link.mtu") | "\(.type) \(.min) \(.max)"' "$TMP/keys.json")" \
	"uint 68 65535" "a key's row carries its type and range"
is "$(jq -r '[.keys[] | select(.help == null and .type != "kinds") | .path] | join(",")' "$TMP/keys.json")" "" \
	"every key of a kind has its help text"

run python3 "$TOP/contrib/gen-docs.py" --check "$TMP/keys.json"
is "$rc:$out" "0:" "the committed man page and JSON Schema agree with the kinds' key rows"

is "$(jq -c '[.kinds | sort_by(.rank)[] | .name]' "$TMP/keys.json")" \
	"$(jq -c '."$defs".change.properties.kind.enum' "$TOP/schemas/plan.schema.json")" \
	"plan.schema.json lists every change kind, in apply order"

# A copy of the files, one generated line edited by hand.
mkdir -p "$TMP/top/schemas" "$TMP/top/contrib/man" "$TMP/top/docs"
cp "$TOP/docs/tune.md" "$TMP/top/docs/"
cp "$TOP/schemas/profile.schema.json" "$TOP/schemas/plan.schema.json" "$TOP/schemas/state.schema.json" \
	"$TMP/top/schemas/"
cp "$TOP/contrib/man/cx5prof.8" "$TMP/top/contrib/man/"
sed -i 's/^integer; 68\.\.65535\. MTU/integer; 68..9000. MTU/' "$TMP/top/contrib/man/cx5prof.8"
run python3 "$TOP/contrib/gen-docs.py" --check --top "$TMP/top" "$TMP/keys.json"
is "$rc" 1 "--check: a hand edit of a generated line fails"
printf '%s\n' "$out" | grep -qxF -- '-integer; 68..9000. MTU of each matched port, in bytes; plan checks it against the device'"'"'s range.'
ok $? "--check shows the line that differs"
printf '%s\n' "$out" | grep -qF 'run `make docs`'
ok $? "--check says what to run"
run python3 "$TOP/contrib/gen-docs.py" --top "$TMP/top" "$TMP/keys.json"
is "$rc:$out" "0:gen-docs: wrote contrib/man/cx5prof.8" "docs writes the generated region back"
cmp -s "$TOP/contrib/man/cx5prof.8" "$TMP/top/contrib/man/cx5prof.8"
ok $? "the man page is as committed again"

jq '.properties.irq.allOf' "$TOP/schemas/profile.schema.json" >"$TMP/allof"
jq 'del(.properties.irq.properties.policy)' "$TOP/schemas/profile.schema.json" >"$TMP/top/schemas/profile.schema.json"
run python3 "$TOP/contrib/gen-docs.py" --top "$TMP/top" "$TMP/keys.json"
is "$rc:$out" "0:gen-docs: wrote schemas/profile.schema.json" "docs writes a key missing from the schema"
cmp -s "$TOP/schemas/profile.schema.json" "$TMP/top/schemas/profile.schema.json"
ok $? "the schema is as committed again"
is "$(jq '.properties.irq.allOf' "$TMP/top/schemas/profile.schema.json")" "$(cat "$TMP/allof")" \
	"the schema's hand-written rule beside the generated keys stays"

# show's keys: every kind with a show op has its schema, and each key it
# writes is in state.schema.json, required, marked with the kind's name.
is "$(jq -r '[.kinds[] | select(.show_in) | .name] | length' "$TMP/keys.json")" 15 \
	"15 kinds show their state, each with its show schema"
is "$(jq -r '."$defs".interface.properties.link.properties.txqueuelen."$comment"' "$TOP/schemas/state.schema.json")" \
	"from the change kind txqueuelen (make docs)" "link.txqueuelen in the show schema comes from its kind"
jq -e '."$defs".interface.properties.link.required | index("txqueuelen")' "$TOP/schemas/state.schema.json" >/dev/null
ok $? "a kind's show key is required where it is written"
is "$(jq -r '.properties.sysctl.required | length' "$TOP/schemas/state.schema.json")" \
	"$(jq -r '.sysctls | length' "$TMP/keys.json")" "show's sysctl object lists every sysctl of the table"
is "$(jq -r '.properties.firewall."$comment" // "by hand"' "$TOP/schemas/state.schema.json")" "by hand" \
	"what verb_show writes itself has no kind's mark"
is "$(jq -c '."$defs".interface.properties.rss.properties | keys_unsorted[:3]' "$TOP/schemas/state.schema.json")" \
	'["status","error","kernel_message"]' "a kind's status shorthand becomes the keys kind_show_status writes"
is "$(jq -r '."$defs".interface.properties.rings.properties.status.description' "$TOP/schemas/state.schema.json")" \
	"ok: read; unsupported: the driver does not implement this ethtool request (EOPNOTSUPP; veth has no rings); failed: see error" \
	"with the kind's own reason for unsupported"
jq -e '."$defs".interface.properties.flow_hash.properties | .udp4 == .udp6 and (.udp6.properties.ports | type == "object")' \
	"$TOP/schemas/state.schema.json" >/dev/null
ok $? "flow_hash.udp6 is written out as its sibling udp4"
is "$(grep -c 'x-cx5prof' "$TOP/schemas/state.schema.json")" 0 "no shorthand is left in the schema"

# A show key deleted by hand, and one of a kind that is gone: both caught,
# both written back; the hand-written keys beside them stay.
jq 'del(."$defs".interface.properties.link.properties.txqueuelen)
    | .properties.gone = {"$comment": "from the change kind gone (make docs)", "type": "integer"}
    | .required += ["gone"]' "$TOP/schemas/state.schema.json" >"$TMP/top/schemas/state.schema.json"
run python3 "$TOP/contrib/gen-docs.py" --check --top "$TMP/top" "$TMP/keys.json"
is "$rc" 1 "--check: a show key missing or left over fails"
printf '%s\n' "$out" | grep -qE -- '^\+ *"\$comment": "from the change kind txqueuelen \(make docs\)",$'
ok $? "--check shows the key that is missing"
printf '%s\n' "$out" | grep -qE -- '^- *"gone": \{$'
ok $? "--check shows the key that is left over"
run python3 "$TOP/contrib/gen-docs.py" --top "$TMP/top" "$TMP/keys.json"
is "$rc:$out" "0:gen-docs: wrote schemas/state.schema.json" "docs writes the show keys back"
cmp -s "$TOP/schemas/state.schema.json" "$TMP/top/schemas/state.schema.json"
ok $? "the show schema is as committed again"

# A kind's show key also written by hand is a conflict, not a guess.
jq '.properties.sysctl |= del(."$comment")' "$TOP/schemas/state.schema.json" >"$TMP/top/schemas/state.schema.json"
run python3 "$TOP/contrib/gen-docs.py" --check --top "$TMP/top" "$TMP/keys.json"
is "$rc:$err" "1:gen-docs: kind sysctl: show key sysctl is also in state.schema.json by hand" \
	"a show key written by hand and by a kind is an error"
cp "$TOP/schemas/state.schema.json" "$TMP/top/schemas/"

# No marker, no guess.
sed -i '/KEYS BEGIN/d' "$TMP/top/contrib/man/cx5prof.8"
run python3 "$TOP/contrib/gen-docs.py" --check --top "$TMP/top" "$TMP/keys.json"
is "$rc:$err" "1:gen-docs: the man page has no KEYS BEGIN/END markers" "a man page without the markers is an error"

done_testing
