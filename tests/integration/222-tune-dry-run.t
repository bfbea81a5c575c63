#!/usr/bin/env bash
# 222-tune-dry-run.t: `tune --dry-run` on the cx5-2port sysroot (its
# governor set to powersave, as many distributions boot) lists the IRQ,
# XPS and governor candidates with their evidence, runs no benchmark and
# changes nothing (diff -r). It runs in an empty network namespace of its
# own (unshare -n): doctor's probes of the peer reach nothing. Bad options
# are usage errors naming the value.
. "$(dirname "$0")/lib.sh"
need_root_netns
WORK=$(mktemp -d /tmp/cx5t-tunedry.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
copy_sysroot cx5-2port "$WORK/sr"
for f in "$WORK"/sr/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor; do printf 'powersave\n' >"$f"; done
cp -a "$WORK/sr" "$WORK/before"
dry() { run unshare -n "$CX5PROF" --sysroot "$WORK/sr" --db "$WORK/h.db" "$@"; }

dry tune --dry-run "$TOP/profiles/mtu-jumbo.yaml"
is "$rc" 0 "--dry-run: exit 0"
for line in \
	'candidate   irq        irq.policy: numa-local <- doctor: ens1f[01]: 16 of 16 completion IRQs misplaced' \
	'candidate   xps        link.xps: auto <- doctor: ens1f[01]: 16 of 16 transmit queues send from other CPUs' \
	'candidate   cpufreq    host.cpufreq.governor: performance <- doctor: host: the NIC-local CPUs 8-15,24-31 run the powersave governor' \
	'after the baseline rounds, the loss ledger decides: rcvbuf sndbuf txqueuelen backlog budget rings cqe reasm' \
	'estimate    at most [0-9]+ s'; do
	printf '%s\n' "$out" | grep -qE "^$line"
	ok $? "--dry-run lists: ${line%% <-*}"
done
is "$(printf '%s\n' "$out" | grep -c '^candidate')" 3 "--dry-run: three candidates, no more"
diff -r --no-dereference "$WORK/sr" "$WORK/before" >/dev/null
ok $? "--dry-run: the sysroot is unchanged"
[ ! -e "$WORK/h.db" ]
ok $? "--dry-run: no history written"

dry --json tune --dry-run "$TOP/profiles/mtu-jumbo.yaml"
printf '%s' "$out" >"$WORK/dry.json"
run python3 -c 'import json, sys, jsonschema
d = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
print(d["dry_run"], [c["family"] for c in d["candidates"]], d["peer_tunable"])' "$WORK/dry.json" "$TOP/schemas/tune.schema.json"
is "$rc/$out" "0/True ['irq', 'xps', 'cpufreq'] False" "--json: valid against schemas/tune.schema.json"

dry tune --dry-run --only irq,xps "$TOP/profiles/mtu-jumbo.yaml"
is "$rc/$(printf '%s\n' "$out" | grep -c '^candidate')" "0/2" "--only irq,xps: two candidates"
dry tune --dry-run --skip cpufreq "$TOP/profiles/mtu-jumbo.yaml"
is "$rc/$(printf '%s\n' "$out" | grep -c '^candidate')" "0/2" "--skip cpufreq: two candidates"
dry tune --dry-run --only irq,turbo "$TOP/profiles/mtu-jumbo.yaml"
is "$rc/$err" "64/cx5prof: error: tune: --only: no rule family 'turbo' (see \`cx5prof tune --help\` and docs/tune.md)" \
	"--only with an unknown family: exit 64, naming it"
dry tune --dry-run
is "$rc/$err" "64/cx5prof: error: tune: say where to benchmark: a PROFILE with verify.peer, or --peer ADDR" \
	"no profile and no --peer: exit 64"
dry tune --dry-run --keep "$TOP/profiles/mtu-jumbo.yaml"
is "$rc" 64 "--dry-run with --keep: exit 64"
dry tune --goal-mbps lots "$TOP/profiles/mtu-jumbo.yaml"
is "$rc/$err" "64/cx5prof: error: tune: --goal-mbps takes a number from 0.001 to 1e+07, not 'lots'" \
	"--goal-mbps with a bad value: exit 64"

done_testing
