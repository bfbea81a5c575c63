#!/usr/bin/env bash
# 161-sysroot-not-regular.t: every read through the sysroot opens without
# blocking and reads only a regular file. A FIFO (tar carries them) in
# place of a snapshot's marker or of a /proc or /sys file is refused with
# "not a regular file", never waited on (show blocked forever); a
# directory in place of a file reads as "Is a directory", a file in place
# of a directory lists nothing. Each run is bounded by `timeout` so this
# test cannot hang: 124 would be the hang.
. "$(dirname "$0")/lib.sh"
need_tool jq
need_tool timeout
TMP=$(mktemp -d /tmp/cx5t-sysfifo.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
NOTREG="not a regular file (a FIFO, socket or device)"
bounded() { run timeout 60 "$@"; }

# ---- a snapshot whose marker is a FIFO: refused as a bad snapshot (65)
SNAP=$TMP/snap
mkdir "$SNAP" && tar -C "$SNAP" -xzf "$FIXTURES/snapshot/cx5-2port-veth.tar.gz"
rm "$SNAP/cx5prof-snapshot.json" && mkfifo "$SNAP/cx5prof-snapshot.json"
bounded "$CX5PROF" --sysroot "$SNAP" show
is "$rc|$out|$err" "65||cx5prof: error: --sysroot $SNAP: cx5prof-snapshot.json: $NOTREG" \
	"a FIFO as cx5prof-snapshot.json: show refuses it (exit 65), does not block"
bounded "$CX5PROF" --sysroot "$SNAP" plan "$TESTS_DIR/profiles/good/minimal.yaml"
is "$rc|$err" "65|cx5prof: error: --sysroot $SNAP: cx5prof-snapshot.json: $NOTREG" \
	"plan: the same refusal"
rm "$SNAP/cx5prof-snapshot.json" && mkdir "$SNAP/cx5prof-snapshot.json"
bounded "$CX5PROF" --sysroot "$SNAP" show
is "$rc|$err" "65|cx5prof: error: --sysroot $SNAP: cx5prof-snapshot.json: Is a directory" \
	"a directory as cx5prof-snapshot.json: refused (exit 65)"

# ---- a sysroot whose /proc/interrupts is a FIFO: the IRQs cannot be read
SR=$TMP/sysroot
copy_sysroot cx5-2port "$SR"
rm "$SR/proc/interrupts" && mkfifo "$SR/proc/interrupts"
bounded "$CX5PROF" --sysroot "$SR" show ens1f0
is "$rc|$(grep '^  irqs' <<<"$out")" "0|  irqs      $NOTREG" \
	"a FIFO as /proc/interrupts: show says so on the IRQ line, does not block"
bounded "$CX5PROF" --sysroot "$SR" --json show ens1f0
is "$rc|$(jq -r '.interfaces[0].irqs_error' <<<"$out")" "0|$NOTREG" "--json: irqs_error says so"

# ---- a sysctl file that is a FIFO, and one that is a directory
rm "$SR/proc/interrupts" && cp "$FIXTURES/sysroot/cx5-2port/proc/interrupts" "$SR/proc/interrupts"
rm "$SR/proc/sys/net/core/rmem_max" && mkfifo "$SR/proc/sys/net/core/rmem_max"
rm "$SR/proc/sys/net/core/wmem_max" && mkdir "$SR/proc/sys/net/core/wmem_max"
bounded "$CX5PROF" --sysroot "$SR" show ens1f0
is "$rc|$(grep -E '^  net.core.[rw]mem_max ' <<<"$out")" \
	"0|  net.core.rmem_max            - ($NOTREG)
  net.core.wmem_max            - (Is a directory)" \
	"a FIFO and a directory in place of sysctl files: each named as what it is"

# ---- a file where a directory is expected: nothing listed, no block
rm -r "$SR/sys/class/net" && mkfifo "$SR/sys/class/net"
bounded "$CX5PROF" --sysroot "$SR" show ens1f0
is "$rc|$err" "66|cx5prof: error: show: no interface 'ens1f0' in this network namespace nor under the sysroot $SR; run 'cx5prof show' for the list" \
	"a FIFO as /sys/class/net: no port under the sysroot (exit 66), no block"

# ---- taking a snapshot of a sysroot with a FIFO: noted, not copied, no block
SR2=$TMP/sysroot2
copy_sysroot cx5-2port "$SR2"
rm "$SR2/proc/interrupts" && mkfifo "$SR2/proc/interrupts"
bounded "$CX5PROF" --sysroot "$SR2" snapshot "$TMP/out"
is "$rc|$(jq -c '.unreadable' "$TMP/out/cx5prof-snapshot.json")" \
	"0|[{\"path\":\"/proc/interrupts\",\"error\":\"$NOTREG\"}]" \
	"snapshot of a sysroot with a FIFO: the FIFO is noted as not read, the rest copied"
[ ! -p "$TMP/out/proc/interrupts" ]
ok $? "no FIFO in the snapshot"
done_testing
