#!/usr/bin/env bash
# 153-snapshot-fixtures.t: every committed snapshot of a real host
# (tests/fixtures/snapshot/NAME.tar.gz, with the host's own `show --json`
# taken with it as NAME.show.json) still reads as that host (a setting
# added since reads as unknown, null: net.ipv4.ipfrag_high_thresh); a snapshot
# whose per-port facts are not this cx5prof's (a kind it does not know,
# another layout or size, an older format) is refused naming the kind and
# what to do, never misread.
. "$(dirname "$0")/lib.sh"
need_tool jq
TMP=$(mktemp -d /tmp/cx5t-snapfx.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

n=0
for tgz in "$FIXTURES"/snapshot/*.tar.gz; do
	name=$(basename "$tgz" .tar.gz)
	n=$((n + 1))
	mkdir "$TMP/$name" && tar -C "$TMP/$name" -xzf "$tgz"
	ok $? "$name: the archive unpacks"
	run "$CX5PROF" --sysroot "$TMP/$name" --json show
	is "$rc|$err" "0|" "$name: show --json reads it (exit 0, no message)"
	printf '%s\n' "$out" >"$TMP/$name.show"
	cmp -s "$TMP/$name.show" "$FIXTURES/snapshot/$name.show.json"
	ok $? "$name: show --json equals the host's, taken with the snapshot"
	! grep -q 'Protocol error\|No data available' "$TMP/$name.show"
	ok $? "$name: no per-port fact misread or missing"
done
[ "$n" -ge 1 ]
ok $? "at least one snapshot fixture is committed ($n)"

# ---- a record of another cx5prof: refused, naming the kind
SNAP=$TMP/cx5-2port-veth
M=$SNAP/cx5prof-snapshot.json
cp "$M" "$TMP/marker"
VERSION=$("$CX5PROF" --version | awk '{print $2}')
refused() { # refused JQ-EDIT EXPECTED-TAIL NAME
	jq "$1" "$TMP/marker" >"$M"
	run "$CX5PROF" --sysroot "$SNAP" show
	is "$rc|$out|$err" "65||cx5prof: error: --sysroot $SNAP: cx5prof-snapshot.json: $2" "$3"
}
refused '(.links[0].facts[] | select(.kind == "rss") | .layout) = 2' \
	"links[0].facts[5]: kind rss was recorded in layout 2 of 16652 bytes, this cx5prof ($VERSION) reads layout 1 of 16652 bytes: take the snapshot again with this cx5prof" \
	"another layout of the same size: refused (exit 65), naming the kind"
refused '(.links[1].facts[1].size) = 80' \
	"links[1].facts[1]: kind rings was recorded in layout 1 of 80 bytes, this cx5prof ($VERSION) reads layout 1 of 72 bytes: take the snapshot again with this cx5prof" \
	"another size: refused"
refused '(.links[0].facts[1].kind) = "ring_params"' \
	"links[0].facts[1]: kind ring_params is not one this cx5prof ($VERSION) reads: take the snapshot again with this cx5prof" \
	"a kind this cx5prof does not know: refused"
refused '(.links[0].facts[1].kind) = "channels"' \
	"links[0].facts[1]: kind channels is recorded twice" "a kind recorded twice: refused"
refused 'del(.links[0].facts[2].layout)' "links[0].facts.layout: missing or not valid" \
	"a fact without its layout: refused"
refused '.version = 1' \
	"version: this cx5prof ($VERSION) reads snapshots of version 2: take the snapshot again with this cx5prof" \
	"a snapshot of the first format (facts by position): refused"

# ---- a kind the snapshot has no record of reads as not recorded
jq '.links[0].facts |= map(select(.kind != "pause"))' "$TMP/marker" >"$M"
run "$CX5PROF" --sysroot "$SNAP" --json show
is "$rc|$(jq -c '.interfaces[0].pause | {status, error}' <<<"$out")" \
	'0|{"status":"failed","error":"No data available"}' \
	"a kind missing from the record: its fact reads as failed (no data), the others as recorded"
done_testing
