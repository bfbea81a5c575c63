#!/usr/bin/env bash
# 150-snapshot.t: `cx5prof snapshot` of a lab host (its namespace and its
# sysroot copy of cx5-2port), read back with --sysroot somewhere else: in
# a third namespace whose ens1f0 is another link altogether, `show --json`
# and `plan` give the host's answers (the link facts come from the
# snapshot's record, not from the reader's netlink); the host is left
# byte for byte as it was; nothing secret is copied, not even through a
# link that leads to it; what could not be read is recorded with why;
# every verb that changes or benchmarks the host refuses a snapshot, and
# counters too; doctor answers as on the host; a snapshot of the live host
# (no --sysroot) reads back as the live host;
# --tar FILE; a damaged marker names its field.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
need_root_netns
vsetup snap
OTHER_NS=cx5t-snap-other-$$
cleanup() {
	ip netns del "$OTHER_NS" 2>/dev/null
	v_cleanup
}
trap cleanup EXIT
SNAP=$WORK/snap
mkdir -p "$WORK/profiles"
# udp-jumbo on one port with irqbalance left alone: sysctls, the MTU and
# every completion IRQ of ens1f0 (as 84-88 use it).
sed 's/irqbalance: stop/irqbalance: leave/' "$TOP/profiles/udp-jumbo.yaml" |
	sed 's/^extends: mtu-jumbo.yaml.*/&\nmatch:\n  interfaces: [ens1f0]/' >"$WORK/profiles/one-port.yaml"
cp "$TOP/profiles/mtu-jumbo.yaml" "$TOP/profiles/verify-netperf.yaml" "$TOP/profiles/lab-udp.yaml" "$WORK/profiles/"
PROFILES="lab-udp mtu-jumbo one-port"

# The reader: a namespace of its own whose ens1f0 is another veth, at MTU 1400.
ip netns add "$OTHER_NS" && ip -n "$OTHER_NS" link add ens1f0 type veth peer name rdr0 &&
	ip -n "$OTHER_NS" link set ens1f0 mtu 1400 up || { echo "Bail out! cannot make the reader's namespace"; exit 1; }
other() { ip netns exec "$OTHER_NS" "$CX5PROF" --sysroot "$SNAP" "$@"; }

# Secrets next to what a probe reads: a process's environment and a key,
# and a sysctl of the sysroot turned into a link to that environment.
SECRET=cx5t-secret-$$-do-not-copy
printf 'TAOTOKEN_API_KEY=%s\0' "$SECRET" >"$SR/proc/812/environ"
printf '%s\n' "$SECRET" >"$SR/proc/keys"
host_files() { (cd "$SR" && find . -printf '%p %y %l %m\n' | sort && find . -type f -exec sha256sum {} + | sort); }
host_links() { ip -n "$HOST_NS" -d -o link show | sed 's/ link-netns [^ ]*//'; }
host_files >"$WORK/files.before"
host_links >"$WORK/links.before"

run ip netns exec "$HOST_NS" env CX5T_SECRET="$SECRET" "$CX5PROF" --sysroot "$SR" --json snapshot "$SNAP"
is "$rc" 0 "snapshot: exit 0"
is "$(jq -c '{links, unreadable, tar, dir: (.dir == $d), files: (.files > 100)}' --arg d "$SNAP" <<<"$out")" \
	'{"links":2,"unreadable":[],"tar":null,"dir":true,"files":true}' "snapshot: the report (files, links, nothing unreadable)"
printf '%s\n' "$out" >"$WORK/report.json"
run /usr/bin/python3 -c '
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
marker = {"$ref": "#/$defs/marker", "$defs": schema["$defs"]}
for s, f in ((schema, sys.argv[2]), (marker, sys.argv[3])):
    for e in jsonschema.Draft202012Validator(s).iter_errors(json.load(open(f))):
        print("%s: %s: %s" % (f.rsplit("/", 1)[-1], "/".join(map(str, e.absolute_path)), e.message))
' "$TOP/schemas/snapshot.schema.json" "$WORK/report.json" "$SNAP/cx5prof-snapshot.json"
is "$rc|$out" "0|" "the report and the marker follow schemas/snapshot.schema.json"
is "$(jq -c '{format, version, source: (.source == $s), of_live_host, links: [.links[] | {name, mtu, kind, max_mtu}]}' \
	--arg s "$SR" "$SNAP/cx5prof-snapshot.json")" \
	'{"format":"cx5prof-snapshot","version":2,"source":true,"of_live_host":false,"links":[{"name":"ens1f0","mtu":1500,"kind":"veth","max_mtu":65535},{"name":"ens1f1","mtu":1500,"kind":"veth","max_mtu":65535}]}' \
	"the marker: what it is, and the link facts read over netlink"
is "$(jq -c '.links[0] | {drvinfo: .drvinfo.driver, ethlink: .ethlink.result, facts: (.facts | map(select(.size > 0)) | length > 0)}' "$SNAP/cx5prof-snapshot.json")" \
	'{"drvinfo":"veth","ethlink":0,"facts":true}' "the marker: and those read over ethtool, with the change kinds' per-port facts"
host_files >"$WORK/files.after"
host_links >"$WORK/links.after"
cmp -s "$WORK/files.before" "$WORK/files.after"
ok $? "the host's files are byte for byte as before"
cmp -s "$WORK/links.before" "$WORK/links.after"
ok $? "the host's links are as before"
[ -L "$SNAP/sys/class/net/ens1f0" ] && [ -f "$SNAP/sys/class/net/ens1f0/device/vendor" ] &&
	[ "$(readlink "$SNAP/sys/class/net/ens1f0")" = "$(readlink "$SR/sys/class/net/ens1f0")" ]
ok $? "sysfs links are kept as links, with what they point to"
is "$(find "$SNAP" \( -name environ -o -name cmdline -o -name keys \) | wc -l)" 0 \
	"no environment, command line or keys file in the snapshot"
grep -rqF "$SECRET" "$SNAP"
is "$?" 1 "the secret is nowhere in the snapshot"

# ---- the snapshot answers as the host
ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --json show >"$WORK/show.host"
other --json show >"$WORK/show.snap"
cmp -s "$WORK/show.host" "$WORK/show.snap"
ok $? "show --json: the snapshot read elsewhere equals the host"
[ "$(jq -r '.interfaces[] | select(.name == "ens1f0") | .link.mtu' "$WORK/show.snap")" = 1500 ]
ok $? "show: ens1f0's MTU is the host's 1500, not the reader's 1400"
for p in $PROFILES; do
	ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --json plan "$WORK/profiles/$p.yaml" >"$WORK/plan.host" 2>"$WORK/plan.host.err"
	a=$?
	other --json plan "$WORK/profiles/$p.yaml" >"$WORK/plan.snap" 2>"$WORK/plan.snap.err"
	b=$?
	cmp -s "$WORK/plan.host" "$WORK/plan.snap" && cmp -s "$WORK/plan.host.err" "$WORK/plan.snap.err"
	is "$b $?" "$a 0" "plan $p: the snapshot equals the host (exit $a, the same document and messages)"
done
is "$(jq -r '.changes | length' "$WORK/plan.snap")" 19 "plan one-port: the 19 changes (sysctls, MTU, IRQs)"
ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" plan "$WORK/profiles/lab-udp.yaml" >"$WORK/plan.host" 2>&1
other plan "$WORK/profiles/lab-udp.yaml" >"$WORK/plan.snap" 2>&1
cmp -s "$WORK/plan.host" "$WORK/plan.snap"
ok $? "plan (for people): the same text"
run other doctor "$WORK/profiles/lab-udp.yaml"
is "$(printf '%s\n' "$out" | grep -E ' (counters|peer-port|jumbo-path) ' | sed 's/  */ /g')" \
	"SKIP ens1f0 counters a snapshot: the counters move on the host itself
SKIP peer peer-port a snapshot: the path to the peer is checked on the host itself
SKIP peer jumbo-path a snapshot: the path to the peer is checked on the host itself" \
	"doctor: what only the host can answer is skipped, saying so"
# the other checks, as on the host: all but the counters and the peer's
# (which only the host can answer)
host_checks() { jq -S '[.checks[] | select(.check | test("^(counters|peer-.*|jumbo-path)$") | not)]'; }
ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --json doctor "$WORK/profiles/lab-udp.yaml" | host_checks >"$WORK/doctor.host"
other --json doctor "$WORK/profiles/lab-udp.yaml" | host_checks >"$WORK/doctor.snap"
[ "$(jq length "$WORK/doctor.host")" -ge 10 ] && cmp -s "$WORK/doctor.host" "$WORK/doctor.snap"
ok $? "doctor --json: every other check answers as on the host ($(jq length "$WORK/doctor.host") checks)"

# ---- what changes or benchmarks the host refuses a snapshot
(cd "$SNAP" && find . -type f -exec sha256sum {} + | sort) >"$WORK/snap.before"
cp "$TOP/profiles/campaign-udp.yaml" "$WORK/profiles/"
for v in "apply $WORK/profiles/lab-udp.yaml" rollback commit "verify $WORK/profiles/lab-udp.yaml" bench serve \
	"campaign $WORK/profiles/campaign-udp.yaml"; do
	run other --db "$WORK/snap.db" $v
	is "$rc|$err" "64|cx5prof: error: ${v%% *}: $SNAP is a snapshot of a host (cx5prof-snapshot.json): it can be shown, planned and checked (show, plan, doctor), never changed or benchmarked: run ${v%% *} on the host itself" \
		"${v%% *} refuses a snapshot (exit 64)"
done
run other counters ens1f0
is "$rc|$out|$err" "64||cx5prof: error: counters: $SNAP is a snapshot of a host (cx5prof-snapshot.json): the counters move on the host itself: run counters on the host itself" \
	"counters refuses a snapshot (exit 64), with doctor's reason"
(cd "$SNAP" && find . -type f -exec sha256sum {} + | sort) >"$WORK/snap.after"
cmp -s "$WORK/snap.before" "$WORK/snap.after" && [ ! -e "$WORK/snap.db" ]
ok $? "the snapshot is unchanged and no history was created"

# ---- a snapshot of the live host (no --sysroot): its real /proc and /sys,
# read in the host's namespace, where ens1f0 is the lab's veth
LIVE=$WORK/live
run ip netns exec "$HOST_NS" "$CX5PROF" --json snapshot "$LIVE"
is "$rc|$(jq -c '{source, links, unreadable}' <<<"$out")" '0|{"source":"/","links":2,"unreadable":[]}' \
	"snapshot of the live host: exit 0, its two links, nothing unreadable"
is "$(jq -c '{of_live_host, source}' "$LIVE/cx5prof-snapshot.json")" '{"of_live_host":true,"source":"/"}' \
	"the marker says the links are the live host's own"
port() { jq -S '.interfaces[] | select(.name == "ens1f0")'; }
ip netns exec "$HOST_NS" "$CX5PROF" --json show | port >"$WORK/port.live"
ip netns exec "$OTHER_NS" "$CX5PROF" --sysroot "$LIVE" --json show | port >"$WORK/port.snap"
[ -s "$WORK/port.live" ] && cmp -s "$WORK/port.live" "$WORK/port.snap"
ok $? "show --json: ens1f0 read back from the live snapshot elsewhere equals the live host's"
is "$(jq -c '{mtu: .link.mtu, present}' "$WORK/port.snap")" '{"mtu":1500,"present":true}' \
	"show: the veth as the host has it (MTU 1500, not the reader's 1400)"

# ---- what could not be read, and a link to a secret
truncate -s 9M "$SR/proc/sys/net/core/busy_poll"
rm "$SR/proc/sys/net/core/busy_read" && ln -s ../../../812/environ "$SR/proc/sys/net/core/busy_read"
mkdir "$WORK/tmp"
run ip netns exec "$HOST_NS" env TMPDIR="$WORK/tmp" "$CX5PROF" --sysroot "$SR" --json snapshot --tar "$WORK/snap.tar"
is "$rc" 0 "snapshot --tar: exit 0"
is "$(jq -c '{dir, tar: (.tar == $t), unreadable}' --arg t "$WORK/snap.tar" <<<"$out")" \
	'{"dir":null,"tar":true,"unreadable":[{"path":"/proc/sys/net/core/busy_poll","error":"File too large"},{"path":"/proc/sys/net/core/busy_read","error":"not copied: it leads to a file that may hold secrets or lies outside /proc and /sys"}]}' \
	"what could not be read, and why"
mkdir "$WORK/untar" && tar -xf "$WORK/snap.tar" -C "$WORK/untar"
is "$(jq -c .unreadable "$WORK/untar/cx5prof-snapshot.json" | jq length)" 2 "the archive holds the snapshot"
grep -rqF "$SECRET" "$WORK/untar"
is "$?" 1 "the secret behind the link is not in the archive"
is "$(ls -A "$WORK/tmp")" "" "the temporary directory of --tar is gone"

# ---- errors
run ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" snapshot "$SNAP"
is "$rc|$err" "73|cx5prof: error: snapshot: directory $SNAP is not empty: choose a new or empty directory" \
	"a directory that is not empty: exit 73"
run ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" snapshot --tar "$WORK/snap.tar"
is "$rc|$err" "73|cx5prof: error: snapshot: $WORK/snap.tar exists: choose a new archive name" "an archive that exists: exit 73"
run "$CX5PROF" snapshot
is "$rc" 64 "no directory and no --tar: exit 64"
jq '.links[0].mtu = "9000"' "$SNAP/cx5prof-snapshot.json" >"$WORK/m" && cp "$WORK/m" "$SNAP/cx5prof-snapshot.json"
run other show
is "$rc|$err" "65|cx5prof: error: --sysroot $SNAP: cx5prof-snapshot.json: links[0].mtu: missing or not valid" \
	"a damaged marker: exit 65, naming the field"
done_testing
