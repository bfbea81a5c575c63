# fleet-lib.sh: a fleet of lab hosts reached over SSH, for the multi-host
# Ansible tests (151-fleet-ansible.t); sourced after lib.sh and
# verify-lib.sh (wait_listen, sshd_start).
#
# Each host hN is a lab of its own (contrib/lab/lab.sh with the prefix
# cx5t-fl<PID>-hN: a host namespace with ens1f0/ens1f1 and a peer
# namespace serving iperf3 on 198.18.0.2), its own sysroot copy
# ($W/hN/sysroot), history database ($W/hN/history.db) and an sshd
# inside the host namespace on 198.19.N.2:22 (its own host key, the
# test's client key, a private /run). The controller is one more
# namespace ($CTL) with a veth to each host (198.19.N.1/30); Ansible runs
# there, so nothing outside the test's namespaces is touched.
#
#   fleet_host N [PORT...]   bring host hN up (default ports ens1f0 ens1f1)
#   fleet_down               stop what the test started (by PID) and delete
#                            every namespace
#   $W/ssh_config            the client's configuration (key, known hosts)
#   fleet_inventory HOSTS... the inventory of those hosts ($W/inventory.yml)
#   mtu_of N                 ens1f0's MTU on hN ("-" without ens1f0)

FLEET=cx5t-fl$$
CTL=$FLEET-ctl
LAB=$TOP/contrib/lab/lab.sh
FLEET_PIDS=
FLEET_HOSTS=


fleet_down() {
	local entry n
	for entry in $FLEET_PIDS; do stop_pid "${entry%%:*}" "${entry#*:}"; done
	FLEET_PIDS=
	for n in $FLEET_HOSTS; do CX5LAB_PREFIX=$FLEET-h$n "$LAB" down >/dev/null 2>&1; done
	ip netns del "$CTL" 2>/dev/null
	return 0
}

fleet_setup() {
	W=$(mktemp -d /tmp/cx5t-fleet.XXXXXX)
	mkdir -p "$W/home" "$W/tmp" "$W/collections/ansible_collections/cx5prof"
	ln -s "$TOP/contrib/ansible" "$W/collections/ansible_collections/cx5prof/fleet"
	ip netns add "$CTL" && ip -n "$CTL" link set lo up || { echo "Bail out! cannot make the controller's namespace"; exit 1; }
	ssh-keygen -q -t ed25519 -N '' -C cx5t-fleet-client -f "$W/id"
	cp "$W/id.pub" "$W/authorized_keys"
	: >"$W/known_hosts"
	cat >"$W/ssh_config" <<EOF
Host 198.19.*
  User root
  IdentityFile $W/id
  IdentitiesOnly yes
  UserKnownHostsFile $W/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  ControlMaster no
  ConnectTimeout 60
EOF
}

fleet_host() { # fleet_host N [PORT...]
	local n=$1 ns=$FLEET-h$1-host peer=$FLEET-h$1-peer d=$W/h$1
	shift
	FLEET_HOSTS="$FLEET_HOSTS $n"
	mkdir -p "$d"
	copy_sysroot cx5-2port "$d/sysroot"
	CX5LAB_PREFIX=$FLEET-h$n "$LAB" up "$@" >/dev/null || { echo "Bail out! lab.sh up failed for h$n"; exit 1; }
	# Jumbo frames need both ends of the veth at MTU 9000 (the peer's own
	# profile, in a real fleet).
	ip -n "$peer" link set dev peer0 mtu 9000 2>/dev/null
	ip -n "$CTL" link add "m$n" type veth peer name mgmt0 netns "$ns" &&
		ip -n "$CTL" addr add "198.19.$n.1/30" dev "m$n" && ip -n "$CTL" link set "m$n" up &&
		ip -n "$ns" addr add "198.19.$n.2/30" dev mgmt0 && ip -n "$ns" link set mgmt0 up ||
		{ echo "Bail out! cannot link h$n to the controller"; exit 1; }
	timeout -k 1 900 ip netns exec "$peer" iperf3 -s -B 198.18.0.2 >/dev/null 2>&1 &
	FLEET_PIDS="$FLEET_PIDS $!:iperf3"
	ssh-keygen -q -t ed25519 -N '' -C "cx5t-fleet-h$n" -f "$d/hostkey"
	echo "198.19.$n.2 $(cut -d' ' -f1,2 "$d/hostkey.pub")" >>"$W/known_hosts"
	sshd_start "$ns" "198.19.$n.2" 22 "$d" "$W/authorized_keys" 900 /run/sshd /run/lock
	FLEET_PIDS="$FLEET_PIDS $SSHD_PID:$d/sshd_config"
	sshd_wait "$ns" 22 "$d"
}

fleet_inventory() { # fleet_inventory N...
	local n
	{
		echo "all:"
		echo "  children:"
		echo "    cx5_hosts:"
		echo "      vars:"
		echo "        ansible_user: root"
		echo "        ansible_ssh_common_args: -F $W/ssh_config"
		echo "        ansible_python_interpreter: /usr/bin/python3"
		echo "        cx5prof_binary: $CX5PROF"
		echo "        cx5prof_profile: $W/lab-udp.yaml"
		echo "        cx5prof_peer: 198.18.0.2"
		echo "        cx5prof_confirm_timeout: 60"
		echo "      hosts:"
		for n in "$@"; do
			echo "        h$n:"
			echo "          ansible_host: 198.19.$n.2"
			echo "          cx5prof_sysroot: $W/h$n/sysroot"
			echo "          cx5prof_db: $W/h$n/history.db"
		done
	} >"$W/inventory.yml"
}

mtu_of() { ip -n "$FLEET-h$1-host" -o link show dev ens1f0 2>/dev/null | sed -E 's/.* mtu ([0-9]+) .*/\1/' | grep . || echo -; }
