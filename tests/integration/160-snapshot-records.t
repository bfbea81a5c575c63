#!/usr/bin/env bash
# 160-snapshot-records.t: a snapshot's per-port records are checked field
# by field before anything reads them (counts and lengths within the
# record, names NUL-terminated, bools 0 or 1, results that a recording
# can hold, each link once): a damaged or hand-edited marker is refused,
# exit 65, naming the record and the field, never read past its end
# (these crashed `show` with exit 139, or showed garbage or a port twice).
. "$(dirname "$0")/lib.sh"
need_tool jq
TMP=$(mktemp -d /tmp/cx5t-snaprec.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

SNAP=$TMP/snap
M=$SNAP/cx5prof-snapshot.json
mkdir "$SNAP" && tar -C "$SNAP" -xzf "$FIXTURES/snapshot/cx5-2port-veth.tar.gz"
cp "$M" "$TMP/marker"
TAIL=": not a record cx5prof writes (a damaged or edited snapshot): take the snapshot again"

# refused JQ-EDIT EXPECTED-RECORD-AND-FIELD NAME: show and plan refuse it.
refused() {
	jq "$1" "$TMP/marker" >"$M"
	run "$CX5PROF" --sysroot "$SNAP" show
	is "$rc|$out|$err" "65||cx5prof: error: --sysroot $SNAP: cx5prof-snapshot.json: $2$TAIL" "$3"
	run "$CX5PROF" --sysroot "$SNAP" --json show
	is "$rc|$(jq -r '.exit_code' <<<"$out")" "65|65" "$3 (--json: the error document)"
}
# The fact of KIND on link 0, its hex value edited: bytes at OFFSET
# (hex digits from 2*OFFSET) replaced by HEX.
poke() { # poke KIND OFFSET HEX
	printf '(.links[0].facts[] | select(.kind == "%s") | .value) |= (.[0:%d] + "%s" + .[%d:])' \
		"$1" $((2 * $2)) "$3" $((2 * $2 + ${#3}))
}

run "$CX5PROF" --sysroot "$SNAP" show
is "$rc" 0 "the fixture as taken: show reads it"

# ---- rss: rings, indir_size, key_size (u32 each), then the table
refused "$(poke rss 4 ffffffff)" \
	"links[0].facts[5]: kind rss: indir_size 4294967295 is above the 4096 entries the record holds" \
	"rss indir_size 0xFFFFFFFF: refused (was a crash)"
refused "$(poke rss 8 ffffff7f)" \
	"links[0].facts[5]: kind rss: key_size 2147483647 is above the 256 bytes the record holds" \
	"rss key_size 0x7FFFFFFF: refused (was a crash)"
refused "$(poke rss 12 10000000)" \
	"links[0].facts[5]: kind rss: indir[0] 16 names a queue beyond its 16 rings" \
	"an rss entry naming a queue the header does not have: refused"

# ---- private_flags: n (u32), 32 names of 32 bytes, 32 bools
refused "$(poke private_flags 0 ffffffff)" \
	"links[0].facts[7]: kind private_flags: n 4294967295 is above the 32 flags the record holds" \
	"private_flags count 0xFFFFFFFF: refused (was a crash)"
refused "$(poke private_flags 4 "$(printf '61%.0s' {1..32})")" \
	"links[0].facts[7]: kind private_flags: name[0] has no NUL within its 32 bytes" \
	"a flag name without its NUL: refused (was read past its slot)"
refused "$(poke private_flags $((4 + 32 * 32)) 07)" \
	"links[0].facts[7]: kind private_flags: on[0] is not a bool" \
	"a flag state that is no bool: refused"

# ---- the other kinds' buffers
refused "$(poke channels $((4 * 8)) 02)" \
	"links[0].facts[0]: kind channels: present[0] is not a bool" "channels: a present flag that is no bool"
refused "$(poke features 0 05)" \
	"links[0].facts[2]: kind features: f[0] is not three bools" "features: a state that is no bool"
refused "$(poke flow_hash 0 01000000)" \
	"links[0].facts[6]: kind flow_hash: r[0] 1 is not 0 or an errno" "flow_hash: a result that is no errno"

# ---- a recorded result no recording holds: -ENOMEM is the recorder's
# own failure (a snapshot is never written after one), not the host's
refused '(.links[0].facts[] | select(.kind == "rss")) |= (.result = -12 | .value = null)' \
	"links[0].facts[5]: kind rss: result -12 (Cannot allocate memory) is a failure of the recording, not a fact of the host" \
	"a fact recorded with result -12: refused naming the record (was: cannot list the network interfaces through netlink)"

# ---- a link recorded twice: the kernel has one link per name and ifindex
refused '.links += [.links[0]]' \
	"links[2]: ens1f1 (ifindex 2) is recorded twice (links[0] is ens1f1, ifindex 2)" \
	"a duplicated link record: refused (was shown twice)"
refused '.links[1].ifindex = .links[0].ifindex' \
	"links[1]: ens1f0 (ifindex 2) is recorded twice (links[0] is ens1f1, ifindex 2)" \
	"two links of one ifindex: refused"

# ---- the record as taken still reads, and a failed fact as failed
cp "$TMP/marker" "$M"
run "$CX5PROF" --sysroot "$SNAP" --json show
is "$rc|$(jq -c '[.interfaces[] | .name]' <<<"$out")" '0|["ens1f1","ens1f0"]' \
	"the unedited record: each port once"
done_testing
