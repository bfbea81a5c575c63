#!/usr/bin/env bash
# 20-validate.t: `cx5prof validate` on the shipped profiles, the good
# profiles (tests/profiles/good) and the bad ones (tests/malformed, with
# their exact error lines in tests/malformed/EXPECTED; 90-malformed.t runs
# each one alone, through plan and apply --check too): exact stdout/stderr
# lines, exit codes, the --json shape, and that validating changes nothing.
. "$(dirname "$0")/lib.sh"

PROFILES=$TOP/profiles
CORPUS=$TESTS_DIR/profiles
MALFORMED=$TESTS_DIR/malformed
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Shipped profiles, one by one and together.
run "$CX5PROF" validate "$PROFILES/baseline.yaml"
is "$rc/$out/$err" "0/$PROFILES/baseline.yaml: ok (name baseline, extends verify-netperf.yaml)/" "baseline.yaml is valid"
run "$CX5PROF" validate "$PROFILES/mtu-jumbo.yaml"
is "$rc/$out/$err" "0/$PROFILES/mtu-jumbo.yaml: ok (name mtu-jumbo, extends verify-netperf.yaml)/" "mtu-jumbo.yaml is valid"
run "$CX5PROF" validate "$PROFILES/udp-jumbo.yaml"
is "$rc/$out/$err" "0/$PROFILES/udp-jumbo.yaml: ok (name udp-jumbo, extends mtu-jumbo.yaml)/" \
	"udp-jumbo.yaml is valid and extends mtu-jumbo.yaml"
run "$CX5PROF" validate "$PROFILES/lab-udp.yaml"
is "$rc/$out/$err" "0/$PROFILES/lab-udp.yaml: ok (name lab-udp)/" "lab-udp.yaml is valid"
shipped=$(ls "$PROFILES"/*.yaml | grep -v '/campaign-[^/]*\.yaml$')
n=$(printf '%s\n' "$shipped" | wc -l)
run "$CX5PROF" validate $shipped
is "$rc $(printf '%s\n' "$out" | grep -c ': ok (name ')" "0 $n" "all $n shipped profiles at once"
# A campaign file is not a profile: validate says where to check it.
run "$CX5PROF" validate "$PROFILES/campaign-udp.yaml"
is "$rc/$err" "65/cx5prof: error: $PROFILES/campaign-udp.yaml:15:1: groups: not allowed: a campaign file's key, not a profile's: check a campaign with \`cx5prof campaign --check FILE\`" \
	"validate of a campaign file: exit 65, pointing to campaign --check"

# The effective udp-jumbo profile: inherited MTU, expanded sizes, the chain.
run "$CX5PROF" --json validate "$PROFILES/udp-jumbo.yaml"
got=$(printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert isinstance(d, list) and len(d) == 1, d
v = d[0]
assert sorted(v) == ["error", "file", "files", "hash", "profile", "valid"], sorted(v)
p = v["profile"]
print(v["valid"], v["error"], p["name"], p["link"]["mtu"], p["irq"]["policy"], p["irq"]["irqbalance"],
      p["sysctl"]["net.core.rmem_max"], p["verify"]["runner"], p["verify"]["socket_buffer"]["send"],
      p["verify"]["message_size"], p["verify"]["thresholds"]["throughput_mbps"],
      [f.rsplit("/", 1)[-1] for f in v["files"]], len(v["hash"]), "extends" in p)
')
is "$rc $got" "0 True None udp-jumbo 9000 numa-local stop >= 4194304 ['netperf'] 4194304 8000 23000.0 ['udp-jumbo.yaml', 'mtu-jumbo.yaml', 'verify-netperf.yaml'] 64 False" \
	"--json: effective udp-jumbo profile"

# The hash depends on the effective content only, not on comments.
grep -v '^#' "$PROFILES/mtu-jumbo.yaml" > "$TMP/mtu-jumbo.yaml"
cp "$PROFILES/verify-netperf.yaml" "$TMP/"
h1=$("$CX5PROF" --json validate "$PROFILES/mtu-jumbo.yaml" | sed -n 's/^ *"hash": "\([0-9a-f]*\)".*/\1/p')
h2=$("$CX5PROF" --json validate "$TMP/mtu-jumbo.yaml" | sed -n 's/^ *"hash": "\([0-9a-f]*\)".*/\1/p')
is "${#h1} $h1" "64 $h2" "hash ignores comments"

# Good corpus: each valid.
cd "$CORPUS/good" || exit 1
files=(*.yaml)
run "$CX5PROF" validate "${files[@]}"
is "$rc|$err" "0|" "good corpus: exit 0, no diagnostics"
mapfile -t lines <<<"$out"
for i in "${!files[@]}"; do
	is "${lines[$i]%% (*}" "${files[$i]}: ok" "good/${files[$i]} is valid"
done
is "$(printf '%s\n' "$out" | grep -E '^(grand)?child\.yaml:')" "child.yaml: ok (name parent, extends parent.yaml)
grandchild.yaml: ok (name grandchild, extends ./child.yaml)" "name inherited through extends"
is "$(printf '%s\n' "$out" | grep '^multi-parent\.yaml:')" \
	"multi-parent.yaml: ok (name multi-parent, extends grandchild.yaml, pci-only.yaml)" "extends: a list of parents, all named"

# Bad corpus: all of tests/malformed in one run, one stderr line per file
# in order, each the exact line of EXPECTED (the known bugs, TODO there,
# left out).
cd "$MALFORMED" || exit 1
files=() want=()
while IFS=$'\t' read -r f code line todo; do
	case $f in '' | '#'*) continue ;; esac
	[ -z "$todo" ] || continue
	files+=("$f") want+=("cx5prof: error: $line")
done <EXPECTED
run "$CX5PROF" validate "${files[@]}"
is "$rc|$out" "65|" "bad corpus: exit 65, nothing on stdout"
mapfile -t lines <<<"$err"
is "${#lines[@]}" "${#files[@]}" "bad corpus: one error line per file (${#files[@]})"
wrong=0
for i in "${!files[@]}"; do
	if [ "${lines[$i]}" != "${want[$i]}" ]; then
		wrong=$((wrong + 1))
		diag "${files[$i]}: got: ${lines[$i]}" "${files[$i]}: want: ${want[$i]}"
	fi
done
is "$wrong" 0 "bad corpus: each file's exact line, in order"

# Several files: ok lines on stdout, error lines on stderr, exit 65.
run "$CX5PROF" validate "$CORPUS/good/minimal.yaml" range-mtu-too-big.yaml
is "$rc|$out|$err" "65|$CORPUS/good/minimal.yaml: ok (name minimal)|cx5prof: error: range-mtu-too-big.yaml:4:8: link.mtu: 65536 is out of range 68..65535" \
	"one valid and one invalid file: 65"

# Missing file: 66, named; it outranks an invalid file.
run "$CX5PROF" validate no-such-profile.yaml
is "$rc|$out|$err" "66||cx5prof: error: no-such-profile.yaml: cannot read: No such file or directory" \
	"missing file: 66 and the file named"
run "$CX5PROF" validate range-mtu-too-big.yaml no-such-profile.yaml
is "$rc" "66" "missing and invalid: 66"
run "$CX5PROF" validate
is "$rc|$out" "64|" "no file: usage error 64"
run "$CX5PROF" validate "$CORPUS"
is "$rc|$err" "1|cx5prof: error: $CORPUS: cannot read: Is a directory" "a directory: error 1"

# --json for an invalid and a missing file.
run "$CX5PROF" validate --json range-mtu-too-big.yaml no-such-profile.yaml
got=$(printf '%s' "$out" | python3 -c '
import json, sys
for v in json.load(sys.stdin):
    print(v["file"], v["valid"], json.dumps(v["error"], sort_keys=True), v["profile"], v["files"], v["hash"])
')
is "$rc
$got" "66
range-mtu-too-big.yaml False {\"column\": 8, \"file\": \"range-mtu-too-big.yaml\", \"line\": 4, \"message\": \"link.mtu: 65536 is out of range 68..65535\"} None None None
no-such-profile.yaml False {\"column\": 0, \"file\": \"no-such-profile.yaml\", \"line\": 0, \"message\": \"cannot read: No such file or directory\"} None None None" \
	"--json: error objects"

# The --json document follows schemas/validate.schema.json (valid and invalid files).
run "$CX5PROF" validate --json "$CORPUS/good/every-key.yaml" range-mtu-too-big.yaml no-such-profile.yaml
printf '%s' "$out" > "$TMP/v.json"
python3 -c '
import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator(s).validate(json.load(open(sys.argv[2])))
' "$TOP/schemas/validate.schema.json" "$TMP/v.json"
ok $? "--json matches schemas/validate.schema.json"

# An error in a parent names the parent's file and line.
run "$CX5PROF" --json validate extends-bad-parent.yaml
got=$(printf '%s' "$out" | python3 -c 'import json,sys; e=json.load(sys.stdin)[0]["error"]; print(e["file"], e["line"], e["column"])')
is "$got" "bad-parent.inc 4 8" "--json: error in the parent file"

# Resource bounds, generated here rather than stored: a file over 1 MiB,
# and a "billion laughs" document (rejected at its first anchor, fast).
{ printf 'version: 1\nname: big\ndescription: "'; head -c 1100000 /dev/zero | tr '\0' x; printf '"\n'; } > "$TMP/big.yaml"
run "$CX5PROF" validate "$TMP/big.yaml"
is "$rc|$err" "65|cx5prof: error: $TMP/big.yaml: file is larger than 1048576 bytes" "file over 1 MiB rejected"
{
	printf 'version: 1\nname: lol\na: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
	for i in b c d e f g h i; do
		p=$(printf '%s' abcdefghi | cut -c$(( $(printf '%d' "'$i") - 97 )))
		printf '%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n' "$i" "$i" "$p" "$p" "$p" "$p" "$p" "$p" "$p" "$p" "$p"
	done
} > "$TMP/lol.yaml"
run timeout 60 "$CX5PROF" validate "$TMP/lol.yaml"
is "$rc|$err" "65|cx5prof: error: $TMP/lol.yaml:3:4: anchors and aliases are not supported" \
	"billion laughs rejected at its first anchor (3:4), never expanded"
{ printf 'version: 1\nname: deep\nlink: '; printf '{a: %.0s' $(seq 5000); printf 1; printf '}%.0s' $(seq 5000); echo; } > "$TMP/deep.yaml"
run "$CX5PROF" validate "$TMP/deep.yaml"
is "$rc|$err" "65|cx5prof: error: $TMP/deep.yaml:3:131: nesting deeper than 32 levels" "deep nesting rejected"
{ printf 'version: 1\nname: wide\nverify:\n  runner: ['; printf 'builtin, %.0s' $(seq 19999); printf 'builtin]\n'; } > "$TMP/wide.yaml"
run "$CX5PROF" validate "$TMP/wide.yaml"
is "$rc|${err%%:*}" "65|cx5prof" "more than 10000 nodes rejected"
is "${err##*: }" "too many YAML nodes (more than 10000)" "node limit message"

# Validating reads only: the corpus is unchanged.
before=$(cd "$TESTS_DIR" && find profiles malformed -type f -exec sha256sum {} + | sort)
"$CX5PROF" validate "$CORPUS"/good/*.yaml "$MALFORMED"/*.yaml >/dev/null 2>&1
after=$(cd "$TESTS_DIR" && find profiles malformed -type f -exec sha256sum {} + | sort)
is "$after" "$before" "validate changes no file"

done_testing
