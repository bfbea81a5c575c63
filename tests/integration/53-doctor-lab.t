#!/usr/bin/env bash
# 53-doctor-lab.t: doctor's network checks across the lab's veth pair:
# the peer's benchmark port (nothing listening, then a listener), and the
# jumbo path by a DF probe of MTU-28 bytes: passes when both ends carry
# 9000-byte frames, fails with "drops jumbo frames" when the peer side only
# takes 1500, and fails locally when our own MTU is too small.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
need_root_netns
vsetup d53

cat >"$WORK/p.yaml" <<YAML
version: 1
name: lab-doctor
match:
  interfaces: [ens1f0]
link:
  mtu: 9000
verify:
  peer: 198.18.0.2
  runner: [iperf3]
YAML
line() { printf '%s\n' "$out" | grep -E "^[A-Z]{4}  [^ ]+ +$1 "; }

# ---- nothing on the benchmark port
set_mtu 9000 9000
run cx doctor "$WORK/p.yaml"
is "$(line peer-port)" "FAIL  198.18.0.2      peer-port   nothing listens on 198.18.0.2:5201" "no server: peer-port fails"
is "$(line jumbo-path)" "PASS  198.18.0.2      jumbo-path  9000-byte frames with DF set reach 198.18.0.2" "9000 both ends: jumbo path passes"
is "$(line counters)" "SKIP  ens1f0          counters    the driver reports none of the watched drop counters" \
	"veth: no mlx5 drop counters"
is "$rc" 5 "a failed check: exit 5"
# idle-drops reads the lab's real counters: the namespace's UDP and IP,
# the veth's device and qdisc stay still while nothing runs. softnet_stat
# is host-wide (every namespace reads the same), so other load on the
# machine may move it: then it is the only counter named, as host-wide.
idle=$(line idle-drops)
case "$idle" in
"PASS  ens1f0          idle-drops  no kernel drop counter rose in 1000 ms (UDP, IP, receive backlog, qdisc, device)" | \
	"WARN  ens1f0          idle-drops  kernel drop counters rising while idle: softnet.dropped +"*" (a CPU's receive backlog was full (host-wide))")
	ok 0 "idle: no drop counter of the namespace or the veth rose" ;;
*)
	ok 1 "idle: no drop counter of the namespace or the veth rose"
	diag "$idle"
	;;
esac

# ---- a listener on the port
tcp_listener 5201
run cx doctor "$WORK/p.yaml"
is "$(line peer-port)" "PASS  198.18.0.2      peer-port   198.18.0.2:5201 accepts connections" "listener: peer-port passes"
stop_servers

# ---- a hop that drops jumbo frames (the peer side takes 1500 only)
set_mtu 9000 1500
run cx doctor "$WORK/p.yaml"
is "$(line jumbo-path)" "FAIL  198.18.0.2      jumbo-path  198.18.0.2 answers small pings but not 8972-byte ones with DF set: a switch in between (or the peer) drops jumbo frames" \
	"peer at 1500: the jumbo path fails"

# ---- our own MTU below the profile's
set_mtu 1500 1500
run cx doctor "$WORK/p.yaml"
is "$(line jumbo-path)" "FAIL  198.18.0.2      jumbo-path  the route to 198.18.0.2 has MTU 1500, smaller than 9000" \
	"local MTU 1500: refused locally"

done_testing
