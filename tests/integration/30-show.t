#!/usr/bin/env bash
# 30-show.t: `cx5prof show` on each sysroot fixture, against real veth links.
#
# A private namespace holds veth devices named like the fixtures' ports
# (ens1f0, ens1f1; their peers sit in a second namespace), created with
# explicit queue counts so that ethtool's channel maximums do not depend on
# this machine's CPU count. `show --json` must equal
# tests/expected/show-<fixture>.json byte for byte, and the human output
# tests/expected/show-<fixture>.txt. Nothing is normalised: in a fresh
# namespace the ifindexes are deterministic, veth reports fixed driver facts
# (veth 1.0), and everything else comes from the fixture, the link speed of
# a port the fixture describes included (one source with plan and doctor).
#
# The expected files are checked against the sysroots independently by
# 92-show-facts.t. Regenerate them after an intended output change (then
# read the diff before committing):
#   CX5PROF_REGEN=1 CX5PROF=$PWD/cx5prof prove -v tests/integration/30-show.t
. "$(dirname "$0")/lib.sh"
need_root_netns

unset CX5PROF_SYSTEMCTL # service state must be "unknown" under a sysroot
NS=cx5t-show-$$
PEER=cx5t-showp-$$
EXPECTED=$TESTS_DIR/expected
TMP=$(mktemp -d)
cleanup() { ip netns del "$NS" 2>/dev/null; ip netns del "$PEER" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

ip netns add "$NS" && ip netns add "$PEER" || { echo "Bail out! cannot create namespaces"; exit 1; }
ip -n "$NS" link set lo up
for i in 0 1; do
	ip -n "$NS" link add "ens1f$i" numtxqueues 4 numrxqueues 4 type veth peer name "peer$i" netns "$PEER" \
		numtxqueues 4 numrxqueues 4 || { echo "Bail out! cannot create veth ens1f$i"; exit 1; }
	ip -n "$PEER" link set "peer$i" up
	ip -n "$NS" link set "ens1f$i" up
done
# operstate turns "up" asynchronously (linkwatch): wait, bounded.
both_up() { [ "$(ip -n "$NS" -o link show up | grep -c 'state UP')" = 2 ]; }
wait_until 60 both_up

# compare_or_regen NAME GOT FILE
compare_or_regen() {
	if [ "${CX5PROF_REGEN:-0}" = 1 ]; then
		printf '%s\n' "$2" >"$3"
		diag "regenerated $3"
	fi
	is "$2" "$(cat "$3" 2>/dev/null)" "$1"
}

for fx in cx5-2port cx5-8node cx5-nonuma; do
	SR=$FIXTURES/sysroot/$fx
	run ip netns exec "$NS" "$CX5PROF" --sysroot "$SR" show --json
	is "$rc" 0 "$fx: show --json exits 0"
	is "$err" "" "$fx: show --json prints nothing on stderr"
	compare_or_regen "$fx: show --json equals tests/expected/show-$fx.json" "$out" "$EXPECTED/show-$fx.json"
	printf '%s\n' "$out" >"$TMP/show-$fx.json"

	run ip netns exec "$NS" "$CX5PROF" --sysroot "$SR" show
	is "$rc" 0 "$fx: show exits 0"
	compare_or_regen "$fx: show equals tests/expected/show-$fx.txt" "$out" "$EXPECTED/show-$fx.txt"
done

# Every output against the schema, with a real JSON Schema validator (one
# python start: importing jsonschema takes a second on this machine).
run python3 -c '
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
for f in sys.argv[2:]:
    errors = list(v.iter_errors(json.load(open(f))))
    for e in errors:
        print("%s: %s: %s" % (f.rsplit("/", 1)[-1], "/".join(map(str, e.absolute_path)), e.message))
    print("%s: %d errors" % (f.rsplit("/", 1)[-1], len(errors)))
' "$TOP/schemas/state.schema.json" "$TMP"/show-cx5-2port.json "$TMP"/show-cx5-8node.json "$TMP"/show-cx5-nonuma.json
is "$out" "show-cx5-2port.json: 0 errors
show-cx5-8node.json: 0 errors
show-cx5-nonuma.json: 0 errors" "every show --json validates against schemas/state.schema.json (2020-12)"

# ---- filtering by name
SR=$FIXTURES/sysroot/cx5-2port
run ip netns exec "$NS" "$CX5PROF" --sysroot "$SR" show --json ens1f1
is "$rc" 0 "show ens1f1 exits 0"
is "$(printf '%s' "$out" | jq -r '[.interfaces[].name] | join(" ")')" "ens1f1" "show ens1f1 lists only ens1f1"

# A sysroot-only port (cx5-8node's enp216s0f0np0) is listed, not present.
run ip netns exec "$NS" "$CX5PROF" --sysroot "$FIXTURES/sysroot/cx5-8node" show --json enp216s0f0np0
is "$rc" 0 "show of a sysroot-only port exits 0"
is "$(printf '%s' "$out" | jq -c '.interfaces[] | [.name, .present, .link, .model, .device.driver_version, .device.firmware]')" \
	'["enp216s0f0np0",false,null,"ConnectX-5 Ex","5.2-2.0.7","16.21.0106"]' "a sysroot-only port has device facts and link null"

# ---- errors
run ip netns exec "$NS" "$CX5PROF" --sysroot "$SR" show ens9f9
is "$rc" 66 "an unknown interface exits 66 (not found)"
is "$err" "cx5prof: error: show: no interface 'ens9f9' in this network namespace nor under the sysroot $SR; run 'cx5prof show' for the list" \
	"an unknown interface is named with the places searched"
is "$out" "" "nothing on stdout for an unknown interface"

for bad in ../etc ens1f0/x . .. "a b" 0123456789abcdef; do
	run "$CX5PROF" --sysroot "$SR" show "$bad"
	is "$rc" 64 "invalid name '$bad' exits 64 (usage)"
	is "$err" "cx5prof: error: show: invalid interface name '$bad': 1-15 bytes without '/', whitespace, '.' or '..'" \
		"invalid name '$bad' is reported"
done

run "$CX5PROF" show --frob
is "$rc" 64 "an unknown option exits 64"

run "$CX5PROF" show --help
is "$rc" 0 "show --help exits 0"
is "${out%%$'\n'*}" "Usage: cx5prof show [OPTIONS] [IFACE...]" "show --help prints the usage line"

done_testing
