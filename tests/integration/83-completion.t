#!/usr/bin/env bash
# 83-completion.t: contrib/completion/cx5prof.bash, sourced in a fresh bash
# (no bash-completion package, no extglob) and called like readline does,
# with COMP_WORDS/COMP_CWORD set: verbs and options (read from the binary's
# --help), option values, profile files, interface names (from --sysroot).
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/cx5t-compl.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/profiles/sub" "$T/empty"
touch "$T/profiles/a.yaml" "$T/profiles/b.yml" "$T/profiles/notes.txt"
SR=$TOP/tests/fixtures/sysroot/cx5-2port

# comp WORD...: the sorted completions of the last word (cwd $T).
comp() {
	(cd "$T" && bash --norc --noprofile -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_cx5prof
		printf "%s\n" "${COMPREPLY[@]}" | sort | paste -sd" "' \
		_ "$TOP/contrib/completion/cx5prof.bash" "$@")
}

verbs=$("$CX5PROF" --help | awk '/^Verbs:/ {v=1; next} /^$/ {v=0} v && NF {print $1}' | sort | paste -sd' ')
is "$verbs" "analyze apply bench campaign commit compare counters doctor export help history mirror plan report rollback serve show snapshot tune validate verify" \
	"the binary lists the verbs"
is "$(comp "$CX5PROF" "")" "$verbs" "first word: every verb"
is "$(comp "$CX5PROF" ap)" "apply" "'ap': apply"
is "$(comp "$CX5PROF" --sysroot "$SR" --json ro)" "rollback" "after global options: still the verb"
is "$(comp "$CX5PROF" --)" "--db --help --json --sysroot --verbose --version" "'--': the global options the usage lists"
is "$(comp "$CX5PROF" apply --c)" "--check --confirm" "apply --c: its options"
is "$(comp "$CX5PROF" verify --no)" "--no-bench" "verify --no: --no-bench"
is "$(comp "$CX5PROF" plan --r)" "--runtime-only" "plan --r: --runtime-only"
is "$(comp "$CX5PROF" verify --pe)" "--peer" "verify --pe: --peer"
is "$(comp "$CX5PROF" history --)" "--db --format --help --json --limit --sysroot --verbose" "history --: its options"
is "$(comp "$CX5PROF" history --format "")" "prometheus text" "history --format: the formats"
is "$(comp "$CX5PROF" history "")" "show" "history: the show subcommand"
is "$(comp "$CX5PROF" history show "")" "run txn" "history show: a run or a transaction"
is "$(comp "$CX5PROF" help pl)" "plan" "help VERB"
is "$(comp "$CX5PROF" apply profiles/)" "profiles/a.yaml profiles/b.yml profiles/sub" "apply: profile files and directories only"
is "$(comp "$CX5PROF" --db x.db plan "")" "empty profiles" "plan: directories from the cwd"
is "$(comp "$CX5PROF" validate profiles/a)" "profiles/a.yaml" "validate: a profile"
is "$(comp "$CX5PROF" campaign profiles/a)" "profiles/a.yaml" "campaign: a campaign file"
is "$(comp "$CX5PROF" campaign x.yaml --keep "")" "best first last none" "campaign --keep: its values"
is "$(comp "$CX5PROF" campaign --k)" "--keep" "campaign --k: --keep"
is "$(comp "$CX5PROF" campaign --)" "--ablate --allow-ssh-commands --budget --check --db --duration --help --json --keep --min-effect --min-effect-loss --order --peer --repeat --report --seed --sysroot --verbose" "campaign --: its options"
is "$(comp "$CX5PROF" campaign --repeat "")" "auto" "campaign --repeat: auto (or a number)"
is "$(comp "$CX5PROF" tune profiles/a)" "profiles/a.yaml" "tune: a profile"
is "$(comp "$CX5PROF" tune --dr)" "--dry-run" "tune --dr: --dry-run"
is "$(comp "$CX5PROF" tune x.yaml --goal-mbps "")" "" "tune --goal-mbps: a value the user types"
is "$(comp "$CX5PROF" tune x.yaml --keep --dr)" "--dry-run" "tune --keep: a flag, no value offered after it"
is "$(comp "$CX5PROF" campaign --ablate profiles/a)" "profiles/a.yaml" "campaign --ablate: a profile"
is "$(comp "$CX5PROF" rollback --)" "--abandon --allow-ssh-commands --db --force --help --json --origin --reason --sysroot --verbose" "rollback --: --abandon and --reason too"
is "$(comp "$CX5PROF" verify --b)" "--bench-anyway" "verify --b: --bench-anyway"
is "$(comp "$CX5PROF" validate --f)" "--flatten" "validate --f: --flatten"
is "$(comp "$CX5PROF" bench --s)" "--send-buffer --socket-buffer --streams --sysroot" "bench --s: its long options"
is "$(comp "$CX5PROF" --sysroot "$SR" show "")" "ens1f0 ens1f1 lo" "show: interfaces of the --sysroot"
is "$(comp "$CX5PROF" --sysroot "$SR" show ens1f0 ens)" "ens1f0 ens1f1" "show: more interfaces"
is "$(comp "$CX5PROF" show "")" "$(ls /sys/class/net | sort | paste -sd' ')" "show: interfaces of this host"
is "$(comp "$CX5PROF" --sysroot emp)" "empty" "--sysroot: directories"
is "$(comp "$CX5PROF" apply --confirm "")" "" "--confirm: a number, nothing offered"
is "$(comp "$CX5PROF" commit "")" "" "commit: no arguments"
is "$(comp "$CX5PROF" snapshot "")" "empty profiles" "snapshot: a directory"
is "$(comp "$CX5PROF" snapshot --tar pro)" "profiles" "snapshot --tar: a file name"
is "$(comp /nonexistent/cx5prof "")" "" "no binary: no verbs, no error"

# An option's value is not an argument (history --limit 5 offered nothing).
is "$(comp "$CX5PROF" history --limit 5 "")" "show" "history --limit 5: still the show subcommand"
is "$(comp "$CX5PROF" history --format text "")" "show" "history --format text: still the show subcommand"
# Run and transaction ids, from the --db on the line.
. "$TESTS_DIR/helpers/taotoken.sh"
if runs=$(tt_test_runs); then
	"$runs" --make-db "$T/h.db"
	is "$(comp "$CX5PROF" --db "$T/h.db" history show "")" "1 2 3 run txn" "history show: the run ids, or run and txn"
	is "$(comp "$CX5PROF" --db "$T/h.db" history --limit 5 show "")" "1 2 3 run txn" "history --limit 5 show: the run ids"
	is "$(comp "$CX5PROF" --db "$T/h.db" history show run "")" "1 2 3" "history show run: the run ids"
	is "$(comp "$CX5PROF" --db "$T/h.db" history show txn "")" "1" "history show txn: the transaction ids"
	is "$(comp "$CX5PROF" history --db "$T/h.db" show 2 "")" "" "history show RUN: one run only"
	is "$(comp "$CX5PROF" --db "$T/h.db" compare 1 "")" "1 2 3" "compare: run ids, for each argument"
	is "$(comp "$CX5PROF" --db "$T/h.db" compare --campaign "")" "" "compare --campaign: campaign ids (this history has none)"
	is "$(comp "$CX5PROF" --db "$T/h.db" report 2 "")" "1 2 3" "report: run ids, for each argument"
	is "$(comp "$CX5PROF" --db "$T/h.db" export "")" "1 2 3" "export: a run id"
	is "$(comp "$CX5PROF" --db "$T/h.db" analyze --timeout 9 "")" "1 2 3" "analyze --timeout 9: a run id"
	is "$(comp "$CX5PROF" --db "$T/h.db" rollback "")" "1" "rollback: the apply transaction ids"
	is "$(comp "$CX5PROF" --db "$T/none.db" rollback "")" "" "rollback, no database: nothing, no error"
	[ ! -e "$T/none.db" ]
	ok $? "completing ids creates no database"
else
	skip 13 "build/tests/unit/test_runs missing: run 'make units' first"
fi
done_testing
