#!/usr/bin/env bash
# 162-xps-unreadable.t: a transmit queue's xps_cpus that holds no CPU mask
# (empty, or garbage) is a plan problem that says what the file holds; only
# a missing xps_cpus is blamed on a kernel without CONFIG_XPS. Read from a
# snapshot of a real host (its links are recorded: no namespace needed).
. "$(dirname "$0")/lib.sh"
TMP=$(mktemp -d /tmp/cx5t-xpsbad.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
SNAP=$TMP/snap
mkdir "$SNAP" && tar -C "$SNAP" -xzf "$FIXTURES/snapshot/cx5-2port-veth.tar.gz"
F=/sys/class/net/ens1f0/queues/tx-3/xps_cpus
printf 'version: 1\nname: xps\nmatch:\n  interfaces: [ens1f0]\nlink:\n  xps: "8-15"\n' >"$TMP/xps.yaml"

run "$CX5PROF" --sysroot "$SNAP" plan "$TMP/xps.yaml"
is "$rc|$(grep -c 'xps tx-' <<<"$out")" "2|8" "as taken: 8 queues to change"

: >"$SNAP$F"
run "$CX5PROF" --sysroot "$SNAP" plan "$TMP/xps.yaml"
is "$rc|$err" "1|cx5prof: error: ens1f0: link.xps: $F is empty, not a CPU mask: check the file (of the sysroot)" \
	"an empty xps_cpus: said so (exit 1), not blamed on CONFIG_XPS"

printf 'zz\033[31mq\n' >"$SNAP$F"
run "$CX5PROF" --sysroot "$SNAP" plan "$TMP/xps.yaml"
is "$rc|$err" "1|cx5prof: error: ens1f0: link.xps: $F holds \"zz?[31mq\", not a CPU mask: check the file (of the sysroot)" \
	"garbage in xps_cpus: what was read is shown (control characters as ?)"

rm "$SNAP$F"
run "$CX5PROF" --sysroot "$SNAP" plan "$TMP/xps.yaml"
is "$rc|$err" "69|cx5prof: error: ens1f0: link.xps: the kernel has no XPS (no xps_cpus): remove link.xps (a kernel without CONFIG_XPS has no xps_cpus)" \
	"no xps_cpus at all: the kernel has no XPS (exit 69)"
done_testing
