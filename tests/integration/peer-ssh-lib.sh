# peer-ssh-lib.sh: the peer host reached through OpenSSH, for the tests
# that tune both ends (74-peer-ssh.t, 75-campaign-peer.t); sourced after
# lib.sh and verify-lib.sh, once vsetup has made the lab. An sshd started
# inside the peer namespace on 198.18.0.2:2222 (its own config, host key
# and authorized_keys; a private mount of /run for its privilege
# separation directory), a client key and known_hosts made for the test,
# and a forced command that runs the peer's cx5prof on its own sysroot
# copy and history.
#
#   peer_ssh_setup          the above; the peer's port renamed ens1f0 (so
#                           one profile matches both ends), both at MTU 1500
#   $PSR $PDB               the peer's sysroot copy and history
#   $WORK/ssh_config        the client config naming the key and known_hosts
#   client_config FILE PORT KNOWN_HOSTS   another client config
#   mtu_of NS / mtus        "mtu N" of ens1f0 in NS / on both ends
#   hcx ARGS...             cx with HOME=$WORK (no ~/.ssh of the operator)
#   peer_txns               the peer's transactions, "kind:status ..."
#   touch $WORK/kill-after-apply   the peer's session dies after its apply,
#                           its answer lost
#   touch $WORK/hang-before-apply  the peer's apply touches
#                           $WORK/peer-started, then waits (at most 60 s)
#                           for $WORK/peer-release and touches
#                           $WORK/peer-finished, changing nothing
#   touch $WORK/hold-apply  the peer's apply touches $WORK/peer-started,
#                           waits (at most 60 s) for $WORK/peer-release, then
#                           applies for real (also when this host's ssh is
#                           gone by then) and touches $WORK/peer-finished
#   touch $WORK/pause-peer-watchdog  the peer's --confirm watchdog is held
#                           at its start (CX5PROF_TEST_PAUSE) until
#                           pause_release $WORK/peer-watchdog.fifo
#   echo FP >$WORK/peer-failpoint  the peer's apply runs with
#                           CX5PROF_FAILPOINT=FP (its rollback without)
#   touch $WORK/motd        the peer's login prints a line to stdout first
#                           (a .bashrc or motd), then runs cx5prof
#   touch $WORK/hang-rollback  the peer's rollback touches
#                           $WORK/rollback-started, then waits (at most
#                           60 s) for $WORK/rollback-release and touches
#                           $WORK/rollback-finished, changing nothing
#   PEER_SSHD_SECONDS       how long sshd runs (default 900; stopped at the
#                           end anyway)

mtu_of() { ip -n "$1" -o link show ens1f0 2>/dev/null | grep -o 'mtu [0-9]*'; }
mtus() { echo "$(mtu_of "$HOST_NS") $(mtu_of "$PEER_NS")"; }
hcx() { HOME=$WORK cx "$@"; }
peer_txns() { sqlite3 "$PDB" "SELECT group_concat(kind || ':' || status, ' ') FROM transactions" 2>/dev/null; }

client_config() { # client_config FILE PORT KNOWN_HOSTS
	cat >"$1" <<EOF
Host 198.18.0.2
  Port $2
  User root
  IdentityFile $WORK/id
  IdentitiesOnly yes
  UserKnownHostsFile $3
  GlobalKnownHostsFile /dev/null
  ConnectTimeout 60
EOF
}

peer_ssh_setup() {
	[ -x /usr/sbin/sshd ] || skip_all "needs /usr/sbin/sshd (openssh-server; contrib/install-deps.sh)"
	ip -n "$PEER_NS" link set peer0 name ens1f0 || { echo "Bail out! cannot rename peer0"; exit 1; }
	ip -n "$HOST_NS" link set ens1f0 mtu 1500 && ip -n "$PEER_NS" link set ens1f0 mtu 1500
	PSR=$WORK/peer-sysroot PDB=$WORK/peer.db
	copy_sysroot cx5-2port "$PSR"
	mkfifo "$WORK/peer-watchdog.fifo"
	ssh-keygen -q -t ed25519 -N '' -C cx5t-client -f "$WORK/id"
	ssh-keygen -q -t ed25519 -N '' -C cx5t-host -f "$WORK/hostkey"
	cat >"$WORK/peer-cx5prof" <<EOF
#!/bin/sh
# The peer's cx5prof: its own sysroot copy and history. The first word of
# the command is the profile's peer.command, replaced by the binary here.
set -f
set -- \$SSH_ORIGINAL_COMMAND
shift
[ ! -e "$WORK/motd" ] || echo "Welcome to the peer (a login that prints)"
if [ "\$1" = rollback ] && [ -e "$WORK/hang-rollback" ]; then
	touch "$WORK/rollback-started"
	i=0 # a peer that hangs in its rollback: this host is interrupted meanwhile
	while [ ! -e "$WORK/rollback-release" ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
	touch "$WORK/rollback-finished"
	exit 0
fi
if [ "\$1" = apply ] && [ -e "$WORK/hang-before-apply" ]; then
	touch "$WORK/peer-started"
	i=0 # a slow peer: this host is interrupted meanwhile
	while [ ! -e "$WORK/peer-release" ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
	touch "$WORK/peer-finished"
	exit 0
fi
[ -e "$WORK/pause-peer-watchdog" ] && export CX5PROF_TEST_PAUSE=watchdog:$WORK/peer-watchdog.fifo
[ "\$1" = apply ] && [ -e "$WORK/peer-failpoint" ] && export CX5PROF_FAILPOINT="\$(cat "$WORK/peer-failpoint")"
if [ "\$1" = apply ] && [ -e "$WORK/hold-apply" ]; then
	touch "$WORK/peer-started"
	i=0 # this host is signalled while the peer applies
	while [ ! -e "$WORK/peer-release" ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
	"$CX5PROF" --sysroot "$PSR" --db "$PDB" "\$@"
	rc=\$?
	touch "$WORK/peer-finished"
	exit \$rc
fi
if [ "\$1" = apply ] && [ -e "$WORK/kill-after-apply" ]; then
	"$CX5PROF" --sysroot "$PSR" --db "$PDB" "\$@" >/dev/null
	kill -9 "\$PPID" # the ssh session dies before its answer, and before anything is committed
fi
exec "$CX5PROF" --sysroot "$PSR" --db "$PDB" "\$@"
EOF
	chmod 755 "$WORK/peer-cx5prof"
	echo "command=\"$WORK/peer-cx5prof\",no-pty,no-port-forwarding,no-agent-forwarding $(cat "$WORK/id.pub")" >"$WORK/authorized_keys"
	echo "[198.18.0.2]:2222 $(cut -d' ' -f1,2 "$WORK/hostkey.pub")" >"$WORK/known_hosts"
	client_config "$WORK/ssh_config" 2222 "$WORK/known_hosts"
	sshd_start "$PEER_NS" 198.18.0.2 2222 "$WORK" "$WORK/authorized_keys" "${PEER_SSHD_SECONDS:-900}" /run/sshd
	V_PIDS="$V_PIDS $SSHD_PID"
	sshd_wait "$PEER_NS" 2222 "$WORK"
}
