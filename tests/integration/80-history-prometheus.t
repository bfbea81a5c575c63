#!/usr/bin/env bash
# 80-history-prometheus.t: `history --format prometheus` on a real SQLite
# file holding the seed's three rounds (made by `test_runs --make-db`).
# Exact text, parsed by the Prometheus text-format parser of Debian's
# python3-prometheus-client, plus a strict line grammar check (exposition
# format 0.0.4); usage errors; the database unchanged.
. "$(dirname "$0")/lib.sh"

. "$TESTS_DIR/helpers/taotoken.sh"

MAKEDB=$(tt_test_runs) || skip_all "build/tests/unit/test_runs missing: run 'make units' first"
T=$(mktemp -d /tmp/cx5t-prom-XXXXXX)
trap 'rm -rf "$T"' EXIT
DB=$T/history.db
"$MAKEDB" --make-db "$DB" >/dev/null || { echo "Bail out! test_runs --make-db failed"; exit 1; }
before=$(sha256sum "$DB" | cut -d' ' -f1)

run "$CX5PROF" --db "$DB" history --format prometheus
is "$rc" 0 "history --format prometheus: exit 0"
is "$err" "" "nothing on stderr"
is "$out" '# HELP cx5prof_run_timestamp_seconds End of the newest cx5prof benchmark run, Unix time.
# TYPE cx5prof_run_timestamp_seconds gauge
cx5prof_run_timestamp_seconds{interface="ens1f0",profile="baseline"} 1764680410
cx5prof_run_timestamp_seconds{interface="ens1f0",profile="mtu-jumbo"} 1764681010
cx5prof_run_timestamp_seconds{interface="ens1f0",profile="udp-jumbo"} 1764681610
# HELP cx5prof_run_id History id of the newest run (cx5prof history show ID).
# TYPE cx5prof_run_id gauge
cx5prof_run_id{interface="ens1f0",profile="baseline"} 1
cx5prof_run_id{interface="ens1f0",profile="mtu-jumbo"} 2
cx5prof_run_id{interface="ens1f0",profile="udp-jumbo"} 3
# HELP cx5prof_run_receive_bits_per_second Receiver throughput of the newest run.
# TYPE cx5prof_run_receive_bits_per_second gauge
cx5prof_run_receive_bits_per_second{interface="ens1f0",profile="baseline"} 3278600000
cx5prof_run_receive_bits_per_second{interface="ens1f0",profile="mtu-jumbo"} 7742800000
cx5prof_run_receive_bits_per_second{interface="ens1f0",profile="udp-jumbo"} 23802200000
# HELP cx5prof_run_send_bits_per_second Sender throughput of the newest run.
# TYPE cx5prof_run_send_bits_per_second gauge
cx5prof_run_send_bits_per_second{interface="ens1f0",profile="baseline"} 9180200000
cx5prof_run_send_bits_per_second{interface="ens1f0",profile="mtu-jumbo"} 9180400000
cx5prof_run_send_bits_per_second{interface="ens1f0",profile="udp-jumbo"} 23808000000
# HELP cx5prof_run_loss_ratio Datagrams lost / sent in the newest run (0..1; NaN: nothing was sent).
# TYPE cx5prof_run_loss_ratio gauge
cx5prof_run_loss_ratio{interface="ens1f0",profile="baseline"} 0.6429
cx5prof_run_loss_ratio{interface="ens1f0",profile="mtu-jumbo"} 0.1566
cx5prof_run_loss_ratio{interface="ens1f0",profile="udp-jumbo"} 0.0002
# HELP cx5prof_run_lost_datagrams Datagrams sent but not received in the newest run.
# TYPE cx5prof_run_lost_datagrams gauge
cx5prof_run_lost_datagrams{interface="ens1f0",profile="baseline"} 922222
cx5prof_run_lost_datagrams{interface="ens1f0",profile="mtu-jumbo"} 224724
cx5prof_run_lost_datagrams{interface="ens1f0",profile="udp-jumbo"} 900
# HELP cx5prof_run_passed 1 if every threshold of the newest run held, else 0.
# TYPE cx5prof_run_passed gauge
cx5prof_run_passed{interface="ens1f0",profile="baseline"} 0
cx5prof_run_passed{interface="ens1f0",profile="mtu-jumbo"} 0
cx5prof_run_passed{interface="ens1f0",profile="udp-jumbo"} 1' "exact exposition text: newest run per interface/profile"
printf '%s\n' "$out" >"$T/cx5prof.prom"

# The real parser (python3-prometheus-client, installed by contrib/install-deps.sh).
parsed=$(/usr/bin/python3 "$TESTS_DIR/integration/prom-check.py" "$T/cx5prof.prom" 2>&1)
ok $? "prom-check.py: parser and grammar accept it"
is "$(printf '%s\n' "$parsed" | head -n 3)" 'cx5prof_run_timestamp_seconds gauge 3
cx5prof_run_id gauge 3
cx5prof_run_receive_bits_per_second gauge 3' "parser: families, types and sample counts"
is "$(printf '%s\n' "$parsed" | grep '^sample cx5prof_run_passed')" \
	'sample cx5prof_run_passed {"interface": "ens1f0", "profile": "baseline"} 0.0
sample cx5prof_run_passed {"interface": "ens1f0", "profile": "mtu-jumbo"} 0.0
sample cx5prof_run_passed {"interface": "ens1f0", "profile": "udp-jumbo"} 1.0' "parser: pass/fail per profile"

# The grammar checker is not a rubber stamp: broken text is refused.
printf 'cx5prof_run_id{interface="ens1f0} 1\n' >"$T/bad.prom"
/usr/bin/python3 "$TESTS_DIR/integration/prom-check.py" "$T/bad.prom" >/dev/null 2>&1
is "$?" 1 "prom-check.py refuses an unterminated label value"

# No database yet (a host that never ran verify): exit 66, nothing on
# stdout, so a textfile-collector job keeps the previous file.
run "$CX5PROF" --db "$T/none.db" history --format prometheus
is "$rc" 66 "no database yet: exit 66 (not found)"
is "$out" "" "no database yet: nothing on stdout"

run "$CX5PROF" --db "$DB" --json history --format prometheus
is "$rc" 64 "--json with --format prometheus: exit 64"
is "$err" "cx5prof: error: history: --format prometheus lists the newest runs; it takes no 'show' and no --json" \
	"--json with --format prometheus: the message"
run "$CX5PROF" --db "$DB" history --format prometheus show 1
is "$rc" 64 "history show with --format prometheus: exit 64"
run "$CX5PROF" --db "$DB" history --format openmetrics
is "$rc" 64 "unknown format: exit 64"
is "$err" "cx5prof: error: --format: 'openmetrics' is not a format (text, prometheus)" "unknown format: the message"
run "$CX5PROF" --db "$DB" history --format text --limit 1
is "$out" "2025-12-02 13:20:00  run 3     netperf  udp-jumbo ens1f0 mtu 9000 msg 8000: 23802.2 Mbps, loss 0.02%, pass" \
	"--format text is the default listing"

is "$(sha256sum "$DB" | cut -d' ' -f1)" "$before" "database unchanged"
done_testing
