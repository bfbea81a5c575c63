#!/usr/bin/env bash
# 33-doctor-kmsg.t: doctor's kernel-log check reads the kernel ring buffer,
# as `dmesg | grep mlx5` does: /dev/kmsg (here the sysroot's dev/kmsg, a
# file of kmsg records), before the log files under /var/log, which it reads
# only when there is no ring buffer. The host's own ring buffer and journal
# are never read while --sysroot is set; without it, the live /dev/kmsg is
# read (never written) to its end without blocking.
. "$(dirname "$0")/lib.sh"

WORK=$(mktemp -d /tmp/cx5t-doctor-kmsg.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cxs() { local sr=$1; shift; "$CX5PROF" --sysroot "$sr" "$@"; }
klog() { printf '%s\n' "$out" | sed -n '/ kernel-log /{p;n;/^    *fix: /p}'; }

copy_sysroot cx5-2port "$WORK/sr"
run cxs "$WORK/sr" doctor
is "$(klog)" "SKIP  host            kernel-log  no kernel ring buffer (/dev/kmsg) and no kernel log file (/var/log/kern.log, /var/log/dmesg, /var/log/messages)" \
	"nothing to read: skipped, naming every source (no journalctl under a sysroot)"

mkdir -p "$WORK/sr/dev" "$WORK/sr/var/log"
cat >"$WORK/sr/dev/kmsg" <<'KMSG'
6,812,1000000,-;mlx5_core 0000:af:00.0: firmware version: 16.29.1030
 SUBSYSTEM=pci
 DEVICE=+pci:0000:af:00.0
3,813,4711123456,-;mlx5_core 0000:af:00.0: wait_func:1133:(pid 97972): ENABLE_HCA(0x104) timeout. Will cause a leak of a command resource
3,814,4712000001,-;mlx5_core 0000:af:00.1: probe_one:1686:(pid 97972): mlx5_init_one failed with error code -110
KMSG
printf 'Dec  2 10:00:01 host kernel: mlx5_core 0000:af:00.0: Port module event: module 0, Cable plugged\n' >"$WORK/sr/var/log/kern.log"
run cxs "$WORK/sr" doctor
is "$rc" 5 "timeouts in the ring buffer: exit 5"
is "$(klog)" "FAIL  host            kernel-log  2 mlx5 firmware command timeouts in the kernel ring buffer (/dev/kmsg), first: mlx5_core 0000:af:00.0: wait_func:1133:(pid 97972): ENABLE_HCA(0x104) timeout. Will cause a leak of a command resource
                                  fix: the firmware command interface is stuck: update the NIC firmware and the driver; a reboot or \`mlxfwreset\` recovers it" \
	"timeouts in the ring buffer: found there, not in a quiet kern.log, the record header dropped"
run cxs "$WORK/sr" --json doctor
is "$(printf '%s' "$out" | jq -c '.checks[] | select(.check == "kernel-log") | {status, detail}')" \
	'{"status":"fail","detail":"2 mlx5 firmware command timeouts in the kernel ring buffer (/dev/kmsg), first: mlx5_core 0000:af:00.0: wait_func:1133:(pid 97972): ENABLE_HCA(0x104) timeout. Will cause a leak of a command resource"}' \
	"--json: the same verdict"

printf '6,900,5000000,-;mlx5_core 0000:af:00.0: Link up\n' >"$WORK/sr/dev/kmsg"
run cxs "$WORK/sr" doctor
is "$(klog)" "PASS  host            kernel-log  no mlx5 firmware command timeouts in the kernel ring buffer (/dev/kmsg)" \
	"a quiet ring buffer: pass"

rm "$WORK/sr/dev/kmsg"
run cxs "$WORK/sr" doctor
is "$(klog)" "PASS  host            kernel-log  no mlx5 firmware command timeouts in /var/log/kern.log" \
	"no ring buffer: the log file is read"

# ---- the live host's /dev/kmsg (a character device): read to its end
# without blocking. Only read; what it holds is this machine's, so only the
# source and the bounded time are checked.
if [ "$(id -u)" = 0 ] && [ -r /dev/kmsg ]; then
	run timeout 120 "$CX5PROF" doctor
	[ "$rc" != 124 ]
	ok $? "live /dev/kmsg: read to its end, doctor does not block"
	printf '%s\n' "$out" | grep -Eq '^(PASS|FAIL)  host +kernel-log  .*in the kernel ring buffer \(/dev/kmsg\)'
	ok $? "live /dev/kmsg: the verdict names the ring buffer"
else
	skip 2 "live /dev/kmsg: needs root and a readable /dev/kmsg"
fi

done_testing
