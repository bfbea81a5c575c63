#!/bin/sh
# skips.sh LOG: the count of skips a test run recorded (one line each in
# LOG, "TEST: reason", written by tests/integration/lib.sh and
# tests/unit/unit.c) and their reasons; under CX5PROF_REQUIRE_PRIVILEGED=1
# each is a failure, marked "[refused: ...]", listed apart so the end of
# the run names what is missing.
log=$1
[ -s "$log" ] || { echo "skips: 0"; exit 0; }
n=$(grep -vc '\[refused: ' "$log")
echo "skips: $n"
grep -v '\[refused: ' "$log" | sed 's/^/  skipped: /'
r=$(grep -c '\[refused: ' "$log")
[ "$r" = 0 ] || { echo "skips refused (each a failure): $r"; grep '\[refused: ' "$log" | sed 's/ \[refused: [^]]*\]$//; s/^/  cannot run: /'; }
exit 0
