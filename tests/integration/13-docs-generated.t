#!/usr/bin/env bash
# 13-docs-generated.t: the key tables of the man page and of
# schemas/profile.schema.json are what `make docs` writes from the change
# kinds' key rows (engine/kinds/), and plan.schema.json's list of kinds
# from their table: the committed files agree, a hand edit
# inside the generated region is caught with a diff, and `make docs`
# writes it back. Text outside the region (the schema's irq rule across
# keys) stays as written.
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
mkdir -p "$TMP/top/schemas" "$TMP/top/contrib/man"
cp "$TOP/schemas/profile.schema.json" "$TOP/schemas/plan.schema.json" "$TMP/top/schemas/"
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

# No marker, no guess.
sed -i '/KEYS BEGIN/d' "$TMP/top/contrib/man/cx5prof.8"
run python3 "$TOP/contrib/gen-docs.py" --check --top "$TMP/top" "$TMP/keys.json"
is "$rc:$err" "1:gen-docs: the man page has no KEYS BEGIN/END markers" "a man page without the markers is an error"

done_testing
