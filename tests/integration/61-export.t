#!/usr/bin/env bash
# 61-export.t: `cx5prof export RUN --dir D`: a self-contained bundle
# (README, run.json, command.txt, profile.json, every artifact), refusing a
# non-empty directory, and never holding the key.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
tt_setup

run "$CX5PROF" --db "$DB" export 3 --dir "$TT/bundle"
is "$rc" 0 "export 3: exit 0"
is "$out" "exported run 3 to $TT/bundle" "export 3: one line on stdout"
is "$(cd "$TT/bundle" && find . -type f | sort)" "./README.md
./artifacts/command
./artifacts/counters_after
./artifacts/counters_before
./artifacts/ethtool_i
./artifacts/interrupts_after
./artifacts/interrupts_before
./artifacts/irq_map
./artifacts/runner_output
./command.txt
./profile.json
./run.json" "export: the bundle's files"
is "$(cat "$TT/bundle/command.txt")" "netperf -H 198.18.0.2 -t UDP_STREAM -l 10 -- -m 8000 -s 4M -S 4M" "export: command.txt"
is "$(cat "$TT/bundle/profile.json")" '{"version":1,"name":"udp-jumbo","interfaces":{"ens1f0":{"mtu":9000}}}' \
	"export: profile.json is the applied transaction's effective profile"
is "$(cat "$TT/bundle/artifacts/counters_after")" "rx_discards_phy: 0" "export: artifacts verbatim"
is "$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["id"], d["parameters"]["mtu"], d["parameters"]["irq_map"], d["results"]["recv_mbps"])' "$TT/bundle/run.json")" \
	"3 9000 mlx5_comp0-7 -> 8-15 23802.2" "export: run.json"
grep -q '^- `artifacts/interrupts_before`: /proc/interrupts before the run$' "$TT/bundle/README.md"
ok $? "export: README lists and explains the artifacts"
grep -q '^2. Run the command in `command.txt` against the same peer.$' "$TT/bundle/README.md"
ok $? "export: README says how to reproduce"
is "$(stat -c %a "$TT/bundle/run.json")" 644 "export: files are plain 0644 files"

run "$CX5PROF" --db "$DB" export 1 --dir "$TT/bundle"
is "$rc" 73 "export into a non-empty directory: refused, exit 73 (cannot create)"
is "$err" "cx5prof: error: export: directory $TT/bundle is not empty: choose a new or empty directory" \
	"export into a non-empty directory: message"
mkdir "$TT/empty"
run "$CX5PROF" --db "$DB" export 1 --dir "$TT/empty" --json
is "$rc" 0 "export into an existing empty directory"
is "$out" "{
  \"run\": 1,
  \"dir\": \"$TT/empty\",
  \"artifacts\": 8
}" "export --json"
[ ! -e "$TT/empty/profile.json" ]
ok $? "export of a run without a transaction has no profile.json"

run "$CX5PROF" --db "$DB" export 7 --dir "$TT/b7"
is "$rc" 66 "export of a missing run: not found"
[ ! -e "$TT/b7" ]
ok $? "export of a missing run creates nothing"
run "$CX5PROF" --db "$DB" export 1
is "$rc" 64 "export without --dir: usage"

# the mirror and analyze store replies in the database; the key must not
# reach any bundle exported afterwards
"$CX5PROF" --db "$DB" mirror >/dev/null 2>&1
"$CX5PROF" --db "$DB" analyze 3 >/dev/null 2>&1
run "$CX5PROF" --db "$DB" export 3 --dir "$TT/after"
is "$rc" 0 "export after mirror and analyze"
[ -f "$TT/after/artifacts/analysis.json" ]
ok $? "export carries the stored analysis"
grep -rqF "$KEY" "$TT/bundle" "$TT/empty" "$TT/after"
ok $((!$?)) "no bundle contains the key"
done_testing
