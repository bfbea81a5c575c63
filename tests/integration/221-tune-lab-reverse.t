#!/usr/bin/env bash
# 221-tune-lab-reverse.t: 220-tune-lab.t with the candidates tried in
# reverse order (the lightest first, equal weights in reverse rule order)
# and xps and cpufreq skipped (the IRQ map, the lightest left, comes first):
# the rules decide by evidence, not by position, so the same changes are
# kept and reverted.
CX5PROF_TEST_TUNE_ORDER=reverse exec "$(dirname "$0")/220-tune-lab.t"
