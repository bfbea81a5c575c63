#!/usr/bin/env bash
# 31-show-mtu-follow.t: `show` reports the kernel's link state, live.
#
# A veth pair in private namespaces: change the MTU with `ip` and see
# `show --json` (and the human output) follow; ethtool facts of a veth as the
# reference describes them: driver veth 1.0, no firmware, channels rx/tx with
# their maximums (the queue counts the veth was created with), combined n/a,
# rings unsupported (EOPNOTSUPP), reported as such.
. "$(dirname "$0")/lib.sh"
need_root_netns

NS=cx5t-mtu-$$
PEER=cx5t-mtup-$$
SR=$FIXTURES/sysroot/cx5-2port
cleanup() { ip netns del "$NS" 2>/dev/null; ip netns del "$PEER" 2>/dev/null; }
trap cleanup EXIT

ip netns add "$NS" && ip netns add "$PEER" || { echo "Bail out! cannot create namespaces"; exit 1; }
ip -n "$NS" link add ens1f0 numtxqueues 3 numrxqueues 2 type veth peer name peer0 netns "$PEER" ||
	{ echo "Bail out! cannot create veth"; exit 1; }

# field FILTER...: jq -c of the first interface of the last show --json ($out).
field() {
	local f
	for f in "$@"; do
		printf '%s' "$out" | jq -c ".interfaces[0].$f"
	done
}
show_json() { run ip netns exec "$NS" "$CX5PROF" --sysroot "$SR" show --json ens1f0; }

show_json
is "$rc" 0 "show --json exits 0"
is "$(field link.mtu link.min_mtu link.max_mtu link.operstate link.admin_up)" "1500
68
65535
\"down\"
false" "a new veth: mtu 1500 (68-65535), down"

# ethtool facts of a veth
is "$(field ethtool_driver)" '{"status":"ok","error":null,"driver":"veth","version":"1.0","firmware":null,"bus_info":null}' \
	"veth driver facts: veth 1.0, no firmware, no bus-info"
is "$(field channels)" '{"status":"ok","error":null,"rx":2,"max_rx":2,"tx":3,"max_tx":3,"other":null,"max_other":null,"combined":null,"max_combined":null}' \
	"veth channels: rx 2/2, tx 3/3 (the queue counts it was made with), other and combined n/a"
is "$(field rings)" '{"status":"unsupported","error":null}' "veth rings: unsupported, not an error"
is "$(field link.speed link.duplex link.speed_source link.kind)" '25000
"full"
"sysroot"
"veth"' "a port the sysroot describes: its speed from the sysroot (as plan and doctor judge it)"
run ip netns exec "$NS" "$CX5PROF" --sysroot "$FIXTURES/sysroot/cx5-8node" show --json ens1f0
is "$(field link.speed link.duplex link.speed_source)" '10000
"full"
"ethtool"' "a port the sysroot does not describe: veth link settings from ethtool, 10000 Mb/s full"
show_json

# follow an MTU change made behind cx5prof's back
ip -n "$NS" link set ens1f0 mtu 9000
show_json
is "$(field link.mtu)" 9000 "after 'ip link set mtu 9000' show --json reports 9000"
run ip netns exec "$NS" "$CX5PROF" --sysroot "$SR" show ens1f0
is "$(printf '%s\n' "$out" | grep '^  link ')" "  link      down  mtu 9000 (68-65535)  txqueuelen 1000  25000Mb/s full (sysroot)  [veth]" \
	"the human output follows too"

ip -n "$NS" link set ens1f0 mtu 68
show_json
is "$(field link.mtu)" 68 "down to the minimum: 68"

ip -n "$NS" link set ens1f0 mtu 65535
ip -n "$PEER" link set peer0 up
ip -n "$NS" link set ens1f0 up
link_up() { ip -n "$NS" -o link show ens1f0 | grep -q 'state UP'; }
wait_until 60 link_up
show_json
is "$(field link.mtu link.operstate link.admin_up link.carrier)" '65535
"up"
true
true' "up the maximum, and the link up: show follows both"

# the kernel refuses beyond the maximum; show still reports the old value
run ip -n "$NS" link set ens1f0 mtu 65536
ok $((rc == 0)) "ip refuses mtu 65536 on a veth"
show_json
is "$(field link.mtu)" 65535 "a refused change leaves show at 65535"

done_testing
