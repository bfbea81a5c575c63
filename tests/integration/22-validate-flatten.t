#!/usr/bin/env bash
# 22-validate-flatten.t: `validate --flatten FILE` prints the effective
# profile of FILE and its extends chain as one file that stands alone: it
# validates, has no extends, gives the same effective profile (same hash),
# and still loads after being copied elsewhere (where a relative extends
# would break). The persistence warning advises it (49-reboot.t).
. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
GOOD=$TESTS_DIR/profiles/good
hash_of() { "$CX5PROF" --json validate "$1" | jq -r '.[0].hash'; }

run "$CX5PROF" validate --flatten "$GOOD/grandchild.yaml"
is "$rc:$err" "0:" "--flatten of a 3-file chain: exit 0, nothing on stderr"
mkdir "$TMP/elsewhere"
printf '%s\n' "$out" >"$TMP/elsewhere/grandchild.yaml"
run "$CX5PROF" validate "$TMP/elsewhere/grandchild.yaml"
is "$rc:$out" "0:$TMP/elsewhere/grandchild.yaml: ok (name grandchild)" \
	"the flattened copy validates away from its parents, and extends nothing"
is "$(hash_of "$TMP/elsewhere/grandchild.yaml")" "$(hash_of "$GOOD/grandchild.yaml")" \
	"the same effective profile (same hash) as the chain"
cp "$GOOD/grandchild.yaml" "$TMP/elsewhere/copied.yaml"
run "$CX5PROF" validate "$TMP/elsewhere/copied.yaml"
is "$rc" 65 "a plain copy of the child alone breaks its relative extends (why --flatten exists)"

run "$CX5PROF" --json validate --flatten "$GOOD/grandchild.yaml"
is "$rc:$(printf '%s' "$out" | jq -c '[.name, has("extends"), .link.mtu]')" '0:["grandchild",false,1500]' \
	"--json --flatten: the same document"

run "$CX5PROF" validate --flatten "$GOOD/minimal.yaml" "$GOOD/child.yaml"
is "$rc:$err" "64:cx5prof: error: validate: --flatten takes one FILE" "--flatten with two files: exit 64"
printf 'version: 1\nname: typo\nlink:\n  mtuu: 9000\n' >"$TMP/typo.yaml"
run "$CX5PROF" validate --flatten "$TMP/typo.yaml"
is "$rc:$out:$err" "65::cx5prof: error: $TMP/typo.yaml:4:3: unknown key \"mtuu\" in link (did you mean \"mtu\"?)" \
	"--flatten of an invalid profile: exit 65, the error, nothing on stdout"

done_testing
