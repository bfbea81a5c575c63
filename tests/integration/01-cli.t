#!/usr/bin/env bash
# The command layer: verb table, usage, global options, exit codes.
. "$(dirname "$0")/lib.sh"

run "$CX5PROF" --version
is "$rc $out" "0 cx5prof 0.1.0" "--version"

run "$CX5PROF"
is "$rc" 64 "no verb: exit 64 (usage)"
is "$(printf '%s\n' "$err" | head -n 1)" "Usage: cx5prof [--sysroot DIR] [--db PATH] [--json] [-v] VERB [ARGS]" \
	"no verb: usage on stderr"

run "$CX5PROF" --help
is "$rc" 0 "--help: exit 0"
verbs=$(printf '%s\n' "$out" | awk '/^Verbs:/ {v=1; next} /^$/ {v=0} v {print $1}' | tr '\n' ' ')
is "$verbs" "help show counters validate plan apply rollback commit verify doctor snapshot serve bench campaign tune report history compare export mirror analyze " \
	"--help lists every verb, in the order an operator uses them"

run "$CX5PROF" valdate x.yaml
is "$rc" 64 "unknown verb: exit 64"
is "$err" "cx5prof: error: unknown verb 'valdate' (did you mean 'validate'?)
Run 'cx5prof --help' for the list of verbs." "unknown verb: suggestion"

run "$CX5PROF" frobnicate
is "$err" "cx5prof: error: unknown verb 'frobnicate'
Run 'cx5prof --help' for the list of verbs." "unknown verb without a close match"

run "$CX5PROF" show --bogus
is "$rc $err" "64 cx5prof: error: show: unknown option '--bogus'
Run 'cx5prof show --help' for its options." "unknown verb option: exit 64 and the verb's help hint"

run "$CX5PROF" show --sysroot
is "$rc $err" "64 cx5prof: error: show: option '--sysroot' needs a value
Run 'cx5prof show --help' for its options." "verb option without its value"

run "$CX5PROF" --db
is "$rc $(printf '%s\n' "$err" | head -n 1)" "64 cx5prof: error: option '--db' needs a value" \
	"global option without its value"

run "$CX5PROF" --bogus show
is "$rc $(printf '%s\n' "$err" | head -n 1)" "64 cx5prof: error: unknown option '--bogus'" "unknown global option"

run "$CX5PROF" --sysroot /nonexistent/cx5 show
is "$rc $err" "66 cx5prof: error: cannot use sysroot '/nonexistent/cx5': No such file or directory" \
	"a sysroot that does not exist: exit 66 (not found), nothing read"
run "$CX5PROF" --sysroot "$0" show
is "$rc $err" "64 cx5prof: error: cannot use sysroot '$0': Not a directory" \
	"a sysroot that is a file: exit 64 (usage)"

for v in show counters validate plan apply rollback commit verify doctor snapshot serve bench history compare export mirror analyze; do
	run "$CX5PROF" "$v" --help
	first=$(printf '%s\n' "$out" | head -n 1)
	case $first in
	"Usage: cx5prof $v "*) r=0 ;;
	*) r=1 ;;
	esac
	ok $(( rc == 0 ? r : 1 )) "$v --help: exit 0, usage line first"
	run "$CX5PROF" help "$v"
	is "$rc $(printf '%s\n' "$out" | head -n 1)" "0 $first" "help $v = $v --help"
done

run "$CX5PROF" help nosuchverb
is "$rc $err" "64 cx5prof: error: help: unknown verb 'nosuchverb'" "help of an unknown verb"

run "$CX5PROF" apply
is "$rc $err" "64 cx5prof: error: apply: expected one PROFILE" "apply without a profile"

done_testing
