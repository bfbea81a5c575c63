#!/usr/bin/env bash
# 21-schema-agree.t: schemas/profile.schema.json and the C loader agree.
#
# Every shipped profile and every single-file corpus case is judged twice:
# by `cx5prof validate` and by a real JSON Schema 2020-12 validator
# (python3-jsonschema's Draft202012Validator over the document PyYAML
# loads; a file PyYAML cannot load counts as invalid). The verdicts
# (valid/invalid) must be the same. The effective profile printed by
# `validate --json` must also satisfy the schema. Cases the schema cannot
# express are listed below with the reason and left out of the comparison;
# the C verdict for them is checked by 20-validate.t.
. "$(dirname "$0")/lib.sh"

need_python_module yaml jsonschema

CORPUS=$TESTS_DIR/profiles
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cat > "$TMP/excluded" <<'LIST'
malformed/extends-missing.yaml	extends: the schema sees one file, not the chain
malformed/extends-absolute-missing.yaml	extends: the schema sees one file, not the chain
malformed/extends-directory.yaml	extends: the schema sees one file, not the chain
malformed/extends-self.yaml	extends: a cycle is a property of several files
malformed/extends-cycle-a.yaml	extends: a cycle is a property of several files
malformed/extends-cycle-3.yaml	extends: a cycle is a property of several files
malformed/extends-too-long.yaml	extends: the length of a chain is a property of several files
malformed/extends-bad-parent.yaml	extends: the error is in the parent file
good/child.yaml	extends: inherits name and completes the mirror from its parent
good/grandchild.yaml	extends: a chain of files
malformed/duplicate-name.yaml	PyYAML and JSON keep the last of duplicate keys; the schema never sees the first
malformed/duplicate-nested.yaml	PyYAML and JSON keep the last of duplicate keys
malformed/duplicate-flow.yaml	PyYAML and JSON keep the last of duplicate keys
malformed/duplicate-top.yaml	PyYAML and JSON keep the last of duplicate keys
malformed/duplicate-sysctl.yaml	PyYAML and JSON keep the last of duplicate keys
malformed/alias-simple.yaml	PyYAML expands an alias; cx5prof refuses anchors and aliases
malformed/tag.yaml	PyYAML applies the !!int tag; cx5prof refuses tags
malformed/type-gso-yes.yaml	YAML 1.1 reads yes as true; cx5prof accepts only true/false (YAML 1.2 tools read yes as a string)
malformed/private-flags-value.yaml	YAML 1.1 reads yes as true; cx5prof accepts only on/off and true/false (YAML 1.2 tools read yes as a string)
malformed/type-mtu-hex.yaml	YAML 1.1 reads 0x... as an integer; cx5prof accepts decimal integers only
malformed/range-cpulist-reversed.yaml	a reversed range "7-3" matches the list pattern; ranges are not arithmetic in JSON Schema
malformed/range-cpulist-cpu.yaml	a CPU number above 8191 matches the list pattern; its value is not arithmetic in JSON Schema
malformed/range-socket-buffer.yaml	"3G" is a string: the schema cannot compute its value to compare with the maximum
malformed/range-sysctl-small.yaml	"1K" is a string: the schema cannot compute its value to compare with the minimum
malformed/sysctl-floor-too-big.yaml	">= 2147483648" is a string: the schema cannot compare its value
malformed/sysctl-udp-mem-order.yaml	the order of a list's values is arithmetic the schema cannot express
LIST

# The C verdicts, in one run.
files=()
for f in "$TOP"/profiles/*.yaml "$CORPUS"/good/*.yaml "$TESTS_DIR"/malformed/*.yaml; do
	case $f in "$TOP"/profiles/campaign-*.yaml) continue ;; esac # campaigns: 56-campaign.t
	files+=("$f")
done
"$CX5PROF" --json validate "${files[@]}" > "$TMP/c.json" 2>/dev/null
echo $? > "$TMP/c.rc"

/usr/bin/python3 - "$TOP/schemas/profile.schema.json" "$TMP/c.json" "$TMP/excluded" "$CORPUS" "$TMP/c.rc" "${#files[@]}" <<'PY'
import json, sys, yaml, jsonschema

schema_path, c_path, excluded_path, corpus = sys.argv[1:5]
schema = json.load(open(schema_path))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
excluded = dict(line.rstrip("\n").split("\t", 1) for line in open(excluded_path) if line.strip())
n = 0
failed = 0

def ok(cond, name):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok"), n, "-", name)
    failed += 0 if cond else 1

def schema_verdict(path):
    try:
        with open(path, "rb") as f:
            doc = yaml.safe_load(f)
    except Exception as e:
        return False, "PyYAML: " + str(e).splitlines()[0]
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    return not errors, errors[0].message if errors else ""

print("# schema: %s" % schema_path)
verdicts = json.load(open(c_path))
ok(open(sys.argv[5]).read().strip() == "65", "cx5prof validate over all files exits 65 (the bad ones)")
ok(len(verdicts) == int(sys.argv[6]), "one verdict per file (%d)" % len(verdicts))
seen_excluded = set()
for v in verdicts:
    path = v["file"]
    short = path[len(corpus) + 1:] if path.startswith(corpus + "/") else path.rsplit("/", 2)[-2] + "/" + path.rsplit("/", 1)[-1]
    if short in excluded:
        seen_excluded.add(short)
        print("# excluded %s: %s" % (short, excluded[short]))
        continue
    valid, why = schema_verdict(path)
    ok(valid == v["valid"], "%s: C %s, schema %s%s" % (short, "valid" if v["valid"] else "invalid",
                                                         "valid" if valid else "invalid", "" if valid else " (" + why[:80] + ")"))
    if short.startswith("malformed/"):
        ok(not v["valid"], "%s is in malformed/ and invalid" % short)
    if v["valid"]:
        errs = [e.message for e in validator.iter_errors(v["profile"])]
        ok(not errs, "%s: the effective profile (validate --json) satisfies the schema %s" % (short, errs[:1]))
for short in sorted(set(excluded) - seen_excluded):
    ok(False, "excluded case %s exists" % short)
print("1..%d" % n)
sys.exit(1 if failed else 0)
PY
