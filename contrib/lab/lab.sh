#!/usr/bin/env bash
# lab.sh: the cx5prof lab, two network namespaces joined by veth pairs.
#
#   <prefix>-host: one veth per port, named like the ports of a sysroot
#                  fixture (default ens1f0 198.18.0.1/30, ens1f1
#                  198.18.1.1/30, as in tests/fixtures/sysroot/cx5-2port)
#   <prefix>-peer: peer0 198.18.0.2/30, peer1 198.18.1.2/30, ... (port i:
#                  198.18.i.0/30, host .1, peer .2)
#
# The ports are named on the command line, or taken from a sysroot: its
# ConnectX ports (sys/class/net/NAME with a PCI device of vendor 0x15b3),
# so any fixture (cx5-8node: enp216s0f0np0) gets a lab without building
# namespaces by hand. The prefix is $CX5LAB_PREFIX (default cx5lab); tests
# set a unique one so that concurrent runs never collide. Owns: those two
# namespaces and what is inside them. Must never: create or change anything
# outside them (the veths are created inside the namespaces, never in the
# caller's), write to the sysroot, or use anything but `ip`.
#
#   lab.sh up [PORT... | --sysroot DIR]      create what is missing
#                       (idempotent), print each action
#   lab.sh down                              delete both namespaces (and so
#                       every veth), even after a half-failed `up`
#   lab.sh status [PORT... | --sysroot DIR]  print the lab; exit 0 up, 1
#                       partly up, 3 not up
# Exit codes: 0 done, 1 failure, 64 usage, 77 not root.
set -u

PREFIX=${CX5LAB_PREFIX:-cx5lab}
HOST_NS=$PREFIX-host
PEER_NS=$PREFIX-peer
MTU=1500
MAX_PORTS=64
SYSROOT=
NAMES=()
# host-ifname peer-ifname host-address peer-address, one per port (parse_ports)
PORTS=()

say() { printf 'lab %s: %s\n' "$PREFIX" "$*"; }
die() { printf 'lab.sh: %s\n' "$*" >&2; exit 1; }

usage() {
	cat <<EOF
usage: lab.sh up|status [PORT... | --sysroot DIR]
       lab.sh down
  up      create namespaces $HOST_NS and $PEER_NS and one veth pair per
          port: PORT<->peerI, 198.18.I.0/30 for the I-th port (default
          ports ens1f0 ens1f1; --sysroot DIR: the ConnectX ports of DIR)
  down    remove both namespaces and everything in them
  status  show the lab (exit 0 up, 1 partly up, 3 not up)
environment: CX5LAB_PREFIX (default cx5lab)
EOF
}

usage_error() {
	printf 'lab.sh: %s\n' "$*" >&2
	usage >&2
	exit 64
}

# The ConnectX ports of a sysroot: sys/class/net/NAME whose device is a
# Mellanox (0x15b3) PCI function, in name order.
sysroot_ports() {
	local net vendor
	for net in "$1"/sys/class/net/*; do
		vendor=$(cat "$net/device/vendor" 2>/dev/null) || continue
		[ "$vendor" = 0x15b3 ] && printf '%s\n' "${net##*/}"
	done
}

parse_ports() {
	local i name seen=" "

	while [ $# -gt 0 ]; do
		case $1 in
		--sysroot)
			[ $# -ge 2 ] || usage_error "--sysroot needs a directory"
			SYSROOT=$2
			shift 2
			;;
		-*) usage_error "unknown option '$1'" ;;
		*)
			NAMES+=("$1")
			shift
			;;
		esac
	done
	if [ -n "$SYSROOT" ]; then
		[ ${#NAMES[@]} = 0 ] || usage_error "name the ports or give --sysroot, not both"
		[ -d "$SYSROOT/sys/class/net" ] ||
			die "--sysroot $SYSROOT: no sys/class/net in it (is it a cx5prof sysroot?)"
		mapfile -t NAMES < <(sysroot_ports "$SYSROOT")
		[ ${#NAMES[@]} -gt 0 ] ||
			die "--sysroot $SYSROOT: no ConnectX port (sys/class/net/*/device/vendor 0x15b3)"
	fi
	[ ${#NAMES[@]} -gt 0 ] || NAMES=(ens1f0 ens1f1)
	[ ${#NAMES[@]} -le $MAX_PORTS ] || usage_error "at most $MAX_PORTS ports"
	for i in "${!NAMES[@]}"; do
		name=${NAMES[$i]}
		[[ $name =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$ ]] ||
			usage_error "\"$name\" is not an interface name (letters, digits, _ . -; at most 15)"
		[[ $name != peer* ]] || usage_error "\"$name\": peer* names are the peer side's"
		[[ $seen != *" $name "* ]] || usage_error "port \"$name\" named twice"
		seen+="$name "
		PORTS+=("$name peer$i 198.18.$i.1/30 198.18.$i.2/30")
	done
}

# Run one `ip` command; on failure say what failed and how to clean up.
do_ip() {
	local err
	if ! err=$(ip "$@" 2>&1 >/dev/null); then
		printf 'lab.sh: ip %s: %s\n' "$*" "${err:-failed}" >&2
		printf 'lab.sh: the lab is half up; run "lab.sh down" to remove it\n' >&2
		exit 1
	fi
}

ns_exists() { [ -e "/run/netns/$1" ] || ip netns list 2>/dev/null | cut -d" " -f1 | grep -qxF -- "$1"; }
link_exists() { ip -n "$1" link show dev "$2" >/dev/null 2>&1; }
link_is_veth() { ip -n "$1" -d -o link show dev "$2" 2>/dev/null | grep -q ' veth '; }
link_is_up() { ip -n "$1" -o link show dev "$2" 2>/dev/null | grep -q '[<,]UP[,>]'; }
has_addr() { ip -n "$1" -o addr show dev "$2" 2>/dev/null | grep -q " inet ${3} "; }
link_mtu() {
	local line
	line=$(ip -n "$1" -o link show dev "$2" 2>/dev/null) || return 1
	[[ $line =~ \ mtu\ ([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
}

check_prefix() {
	[[ $PREFIX =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$ ]] ||
		die "CX5LAB_PREFIX \"$PREFIX\" is not a valid name (letters, digits, _ . -; at most 40)"
	command -v ip >/dev/null || die "ip (iproute2) is not installed"
	if [ "$(id -u)" != 0 ]; then
		printf 'lab.sh: run as root (network namespaces need CAP_SYS_ADMIN)\n' >&2
		exit 77
	fi
}

lab_up() {
	local changed=0 ns port host peer haddr paddr

	for ns in "$HOST_NS" "$PEER_NS"; do
		if ! ns_exists "$ns"; then
			do_ip netns add "$ns"
			say "created namespace $ns"
			changed=1
		fi
		if ! link_is_up "$ns" lo; then
			do_ip -n "$ns" link set dev lo up
			say "set lo up in $ns"
			changed=1
		fi
	done
	for port in "${PORTS[@]}"; do
		read -r host peer haddr paddr <<<"$port"
		if link_exists "$HOST_NS" "$host" && ! link_is_veth "$HOST_NS" "$host"; then
			die "$host in $HOST_NS is not a veth made by lab.sh; run \"lab.sh down\" and \"lab.sh up\""
		fi
		if ! link_exists "$HOST_NS" "$host"; then
			if link_exists "$PEER_NS" "$peer"; then
				do_ip -n "$PEER_NS" link del dev "$peer"
				say "removed stale $peer from $PEER_NS"
			fi
			do_ip -n "$HOST_NS" link add "$host" mtu "$MTU" type veth \
				peer name "$peer" mtu "$MTU" netns "$PEER_NS"
			say "created veth $HOST_NS/$host <-> $PEER_NS/$peer (mtu $MTU)"
			changed=1
		fi
		if ! link_exists "$PEER_NS" "$peer"; then
			die "$peer is missing from $PEER_NS while $host exists; run \"lab.sh down\" and \"lab.sh up\""
		fi
		for side in "$HOST_NS $host $haddr" "$PEER_NS $peer $paddr"; do
			read -r ns dev addr <<<"$side"
			if ! has_addr "$ns" "$dev" "$addr"; then
				do_ip -n "$ns" addr add "$addr" dev "$dev"
				say "added $addr to $ns/$dev"
				changed=1
			fi
			if ! link_is_up "$ns" "$dev"; then
				do_ip -n "$ns" link set dev "$dev" up
				say "set $ns/$dev up"
				changed=1
			fi
		done
	done
	if [ "$changed" = 0 ]; then
		say "already up (namespaces $HOST_NS, $PEER_NS)"
	elif [ -n "$SYSROOT" ]; then
		say "up: ip netns exec $HOST_NS cx5prof --sysroot $SYSROOT <command>"
	else
		say "up: ip netns exec $HOST_NS <command>"
	fi
}

lab_down() {
	local ns pids removed=0

	for ns in "$HOST_NS" "$PEER_NS"; do
		ns_exists "$ns" || continue
		pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
		do_ip netns del "$ns"
		say "deleted namespace $ns"
		removed=1
		if [ -n "$pids" ]; then
			say "warning: processes still run in $ns: ${pids% } (the namespace lives until they exit)"
		fi
	done
	[ "$removed" = 1 ] || say "not up (nothing to remove)"
	return 0
}

lab_status() {
	local have=0 want=0 port host peer haddr paddr ns dev addr state mtu

	for ns in "$HOST_NS" "$PEER_NS"; do
		want=$((want + 1))
		if ns_exists "$ns"; then
			have=$((have + 1))
		else
			echo "$ns: missing"
		fi
	done
	for port in "${PORTS[@]}"; do
		read -r host peer haddr paddr <<<"$port"
		for side in "$HOST_NS $host $haddr" "$PEER_NS $peer $paddr"; do
			read -r ns dev addr <<<"$side"
			want=$((want + 1))
			ns_exists "$ns" || continue
			if ! link_exists "$ns" "$dev"; then
				printf '%-24s %-8s missing\n' "$ns" "$dev"
				continue
			fi
			state=down
			link_is_up "$ns" "$dev" && state=up
			mtu=$(link_mtu "$ns" "$dev")
			has_addr "$ns" "$dev" "$addr" || addr="(no $addr)"
			printf '%-24s %-8s %-4s mtu %-6s %s\n' "$ns" "$dev" "$state" "$mtu" "$addr"
			[ "$state" = up ] && [[ $addr != \(* ]] && have=$((have + 1))
		done
	done
	if [ "$have" = "$want" ]; then
		say "up"
		return 0
	elif [ "$have" = 0 ]; then
		say "not up"
		return 3
	fi
	say "partly up (run \"lab.sh down\", then \"lab.sh up\")"
	return 1
}

verb=${1:-}
[ $# -gt 0 ] && shift
case "$verb" in
up) parse_ports "$@"; check_prefix; lab_up ;;
down) [ $# = 0 ] || usage_error "down takes no arguments"; check_prefix; lab_down ;;
status) parse_ports "$@"; check_prefix; lab_status; exit $? ;;
-h | --help | help) usage ;;
*)
	usage >&2
	exit 64
	;;
esac
