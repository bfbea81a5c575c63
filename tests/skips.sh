#!/bin/sh
# skips.sh LOG: the count of skips a test run recorded (one line each in
# LOG, "TEST: reason", written by tests/integration/lib.sh and
# tests/unit/unit.c), and the reasons.
log=$1
n=0
[ -s "$log" ] && n=$(wc -l <"$log")
echo "skips: $n"
[ "$n" = 0 ] || sed 's/^/  skipped: /' "$log"
exit 0
