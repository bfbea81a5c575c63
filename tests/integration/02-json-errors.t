#!/usr/bin/env bash
# 02-json-errors.t: with --json every verb that fails prints exactly one
# document, {"changed", "failed", "exit_code", "msg"}
# (schemas/error.schema.json), whose exit_code is the process's and whose
# msg is the first error line; and `-h` works after every verb.
. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SYS=$FIXTURES/sysroot/cx5-2port
cx() { "$CX5PROF" --sysroot "$SYS" --db "$TMP/h.db" "$@"; }

# case: exit code, verb and arguments, msg (one per line, tab-separated)
while IFS=$'\t' read -r code args msg; do
	read -r -a argv <<<"$args"
	msg=${msg//SYS/$SYS}
	run cx --json "${argv[@]}"
	is "$rc $(printf '%s' "$out" | jq -c .)" \
		"$code $(jq -cn --argjson c "$code" --arg m "$msg" '{changed: false, failed: true, exit_code: $c, msg: $m}')" \
		"$args --json: exit $code, one error document"
	printf '%s\n' "$out" > "$TMP/doc-${argv[0]}.json"
done <<'CASES'
64	help nosuch	help: unknown verb 'nosuch'
66	show nosuch	show: no interface 'nosuch' in this network namespace nor under the sysroot SYS; run 'cx5prof show' for the list
64	validate	validate: no profile given
64	plan	plan: expected one PROFILE
64	apply	apply: expected one PROFILE
64	rollback 1 2	rollback: expected at most one TXN
64	commit x	commit: takes no arguments
66	verify /nonexistent/p.yaml	/nonexistent/p.yaml: cannot read: No such file or directory
66	doctor /nonexistent/p.yaml	/nonexistent/p.yaml: cannot read: No such file or directory
64	serve --port 0	serve: invalid port '0': expected 1..65535
64	bench	bench: --peer ADDR is required (the host running `cx5prof serve`)
64	history show abc	'abc' is not a run id (a positive number, as listed by 'cx5prof history')
64	compare 1	compare: give at least two run ids (see 'cx5prof history')
64	export 1	export: expected one run id and --dir DIR
66	mirror --config /nonexistent/m.yaml	mirror config /nonexistent/m.yaml does not exist: create it (taotoken: base_url, api_key_file, model_id), or name one with --config or $CX5PROF_MIRROR_CONFIG
64	analyze	analyze: expected exactly one run id
CASES

# A failure before any verb ran (global options) prints the same document.
run "$CX5PROF" --json --bogus show
is "$rc $(printf '%s' "$out" | jq -c .)" '64 {"changed":false,"failed":true,"exit_code":64,"msg":"unknown option '"'--bogus'"'"}' \
	"a bad global option with --json: the error document"
# --json after the verb counts too.
run cx show --bogus --json
is "$rc $(printf '%s' "$out" | jq -c .msg)" "64 \"show: unknown option '--bogus'\"" "--json after the verb: the error document"
# Without --json nothing reaches stdout.
run cx show nosuch
is "$rc:$out" "66:" "without --json: nothing on stdout"

if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	run /usr/bin/python3 -c '
import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(s)
for f in sys.argv[2:]:
    jsonschema.Draft202012Validator(s).validate(json.load(open(f)))
print(len(sys.argv) - 2)
' "$TOP/schemas/error.schema.json" "$TMP"/doc-*.json
	is "$rc $out" "0 16" "every error document validates against schemas/error.schema.json"
else
	skip 1 "needs python3-jsonschema (contrib/install-deps.sh)"
fi

# -h is --help, after every verb.
for v in help show validate plan apply rollback commit verify doctor serve bench history compare export mirror analyze; do
	run "$CX5PROF" "$v" --help
	long=$out
	run "$CX5PROF" "$v" -h
	is "$rc:$out" "0:$long" "$v -h: exit 0, the same usage as $v --help"
done
run "$CX5PROF" show --help
is "$(printf '%s\n' "$out" | tail -n 1)" "  -h, --help                 show this help" "the usage names -h"

done_testing
