#!/bin/sh
# verdict-sim.sh: campaigns simulated through the real verdict code
# (tests/unit/test_verdict_sim.c --table): false-difference and
# false-equivalence rates, power and rounds per group for each noise
# model, with a fixed seed. docs/campaigns.md shows this table.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
exec "${BUILDDIR:-$here/build}/tests/unit/test_verdict_sim" --table "${CAMPAIGNS:-4000}"
