#!/usr/bin/env bash
# 90-malformed.t: the malformed-input contract of the profile loader.
#
# Every case in tests/malformed/ (listed with its exact error line and exit
# code in tests/malformed/EXPECTED) is run through `validate`, and, with
# root and network namespaces, through `plan` and `apply --check` in the
# transaction lab (txn-lib.sh: namespaces, veths, a private sysroot copy, a
# temp --db). Each must print exactly "cx5prof: error: <line>" on stderr,
# nothing on stdout, exit with the listed code, and leave the host as it
# was: sysroot tree identical, kernel MTUs unchanged, database absent or
# unchanged. The malformed campaign files of tests/malformed/campaign/ go
# through `campaign --check` and `campaign` the same way. Cases too large to commit (1 MiB + 1, 64 MiB, 500 000-deep
# flow nesting, 600-deep block nesting, 10 001 nodes) and special files (a
# FIFO) are generated here; each is refused with its exact error, under a
# `timeout` that catches a hang (how fast is for `make bench`).
. "$(dirname "$0")/lib.sh"

MALFORMED=$TESTS_DIR/malformed

# Namespaces when we may (like need_root_netns, skipping only that part).
ns=0
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null && ip netns add "cx5probe$$" 2>/dev/null; then
	ip netns del "cx5probe$$"
	ns=1
else
	skip 1 "plan, apply --check and campaign of each case in the lab: needs root and network namespaces"
fi
if [ "$ns" = 1 ]; then
	. "$(dirname "$0")/txn-lib.sh"
	txn_setup 90
else
	WORK=$(mktemp -d /tmp/cx5t-malformed.XXXXXX)
	trap 'rm -rf "$WORK"' EXIT
	DB=$WORK/history.db
fi
db_state() { if [ -e "$DB" ]; then sha256sum <"$DB"; else echo absent; fi; }
db_before=$(db_state)

# ok_todo COND NAME REASON: a known bug: reported as TAP TODO, never fails.
ok_todo() {
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_tap_n - $2 # TODO $3"
	else
		echo "not ok $_tap_n - $2 # TODO $3"
	fi
}

# expect_error NAME CODE LINE TODO CMD...: exact stderr line, exit code, empty stdout.
expect_error() {
	local name=$1 code=$2 line=$3 todo=$4 good=1
	shift 4
	run "$@"
	[ "$rc" == "$code" ] && [ "$err" == "cx5prof: error: $line" ] && [ -z "$out" ] && good=0
	if [ -n "$todo" ]; then
		ok_todo "$good" "$name" "${todo#TODO }"
		return
	fi
	ok "$good" "$name"
	if [ "$good" != 0 ]; then
		diag "expected exit $code, stderr: cx5prof: error: $line" "got exit $rc, stderr: $err" "stdout: $out"
	fi
}

# Work on a copy: the cases name their parents relatively, and the
# generated cases go next to them.
cp -a "$MALFORMED" "$WORK/malformed"
cd "$WORK/malformed" || exit 1
cases=$(sed -n 's/^\([^#\t][^\t]*\)\t.*/\1/p' EXPECTED)

# plan and apply --check of every case in the lab's host namespace, in one
# `ip netns exec` (each costs a mount namespace): results in $WORK/ns/.
if [ "$ns" = 1 ]; then
	mkdir -p "$WORK/ns"
	# shellcheck disable=SC2016
	ip netns exec "$HOST_NS" bash -c '
		for c in $1; do
			for v in plan apply; do
				a=; [ $v = apply ] && a=--check
				timeout 120 "$2" --sysroot "$3" --db "$4" $v $a "$c" >"$5/$v-$c.out" 2>"$5/$v-$c.err"
				echo $? >"$5/$v-$c.rc"
			done
		done' cx5 "$cases" "$CX5PROF" "$SR" "$DB" "$WORK/ns"
fi
ns_result() { # ns_result VERB CASE: print rc, stdout and stderr as `run` would set them
	cat "$WORK/ns/$1-$2.out"
	cat "$WORK/ns/$1-$2.err" >&2
	return "$(cat "$WORK/ns/$1-$2.rc")"
}

# ---- the committed corpus
ncases=0
while IFS=$'\t' read -r case code line todo; do
	case $case in '' | '#'*) continue ;; esac
	ncases=$((ncases + 1))
	expect_error "validate $case: exit $code, exact error" "$code" "$line" "$todo" \
		timeout 120 "$CX5PROF" validate "$case"
	if [ "$ns" = 1 ]; then
		expect_error "plan $case: same error" "$code" "$line" "$todo" ns_result plan "$case"
		expect_error "apply --check $case: same error" "$code" "$line" "$todo" ns_result apply "$case"
	fi
done <EXPECTED
[ "$ncases" -ge 50 ]
ok $? "at least 50 malformed profiles (found $ncases)"
is "$(find . -maxdepth 1 -name '*.yaml' | wc -l)" "$ncases" "every tests/malformed/*.yaml has an EXPECTED line"

# ---- malformed campaign files (tests/malformed/campaign/EXPECTED): the
# same loader rules through `campaign --check`, and `campaign` itself in the
# lab's host namespace, which must stop before touching anything
(
	cd campaign || exit 1
	ccases=$(sed -n 's/^\([^#\t][^\t]*\)\t.*/\1/p' EXPECTED)
	if [ "$ns" = 1 ]; then
		# shellcheck disable=SC2016
		ip netns exec "$HOST_NS" bash -c '
			for c in $1; do
				timeout 120 "$2" --sysroot "$3" --db "$4" campaign "$c" >"$5/campaign-$c.out" 2>"$5/campaign-$c.err"
				echo $? >"$5/campaign-$c.rc"
			done' cx5 "$ccases" "$CX5PROF" "$SR" "$DB" "$WORK/ns"
	fi
	while IFS=$'\t' read -r case code line; do
		case $case in '' | '#'*) continue ;; esac
		expect_error "campaign --check $case: exit $code, exact error" "$code" "$line" "" \
			timeout 120 "$CX5PROF" campaign --check "$case"
		[ "$ns" = 1 ] && expect_error "campaign $case: same error, nothing run" "$code" "$line" "" \
			ns_result campaign "$case"
	done <EXPECTED
	is "$(find . -maxdepth 1 -name '*.yaml' | wc -l)" "$(grep -c '^[^#]' EXPECTED)" \
		"every tests/malformed/campaign/*.yaml has an EXPECTED line"
	echo "$_tap_n $_tap_failed" >"$WORK/campaign-tap"
)
read -r _tap_n _tap_failed <"$WORK/campaign-tap"

# ---- resource bounds, generated at test time
H='version: 1
name: bad
'
# bounded CASE CODE LINE [TODO]: validate refuses it exactly; a hang is
# caught by the timeout (exit 124).
bounded() {
	expect_error "bound: validate $1: exit $2, exact error" "$2" "$3" "${4:-}" timeout 60 "$CX5PROF" validate "$1"
}

{ printf '%s' "$H"; printf 'description: "'; head -c $((1024 * 1024)) /dev/zero | tr '\0' x; printf '"\n'; } >big-1MiB.yaml
is "$(stat -c %s big-1MiB.yaml)" 1048613 "generated big-1MiB.yaml is just over the 1 MiB limit"
bounded big-1MiB.yaml 65 "big-1MiB.yaml: file is larger than 1048576 bytes"

yes 'x: [1, 2, 3]' | head -c $((64 * 1024 * 1024)) >huge-64MiB.yaml
bounded huge-64MiB.yaml 65 "huge-64MiB.yaml: file is larger than 1048576 bytes"

{ printf '%sx: ' "$H"; head -c 500000 /dev/zero | tr '\0' '['; printf '\n'; } >deep-flow.yaml
bounded deep-flow.yaml 65 "deep-flow.yaml:3:35: nesting deeper than 32 levels"

{ printf '%s' "$H"; for ((i = 0; i < 600; i++)); do printf "%$((2 * i))sk$i:\n" ''; done; printf '%1200sv: 1\n' ''; } >deep-block.yaml
bounded deep-block.yaml 65 "deep-block.yaml:35:65: nesting deeper than 32 levels"

{ printf '%sx: [' "$H"; for ((i = 0; i < 10001; i++)); do printf '1, '; done; printf '1]\n'; } >many-nodes.yaml
bounded many-nodes.yaml 65 "many-nodes.yaml:3:29984: too many YAML nodes (more than 10000)"

bounded alias-billion-laughs.yaml 65 "alias-billion-laughs.yaml:3:14: anchors and aliases are not supported"

# ---- files that are not profiles
expect_error "validate a missing file: exit 66" 66 "no-such-profile.yaml: cannot read: No such file or directory" "" \
	"$CX5PROF" validate no-such-profile.yaml
expect_error "validate a directory: exit 1" 1 ".: cannot read: Is a directory" "" "$CX5PROF" validate .
mkfifo fifo-parent.inc fifo.yaml
printf '%sextends: fifo-parent.inc\n' "$H" >extends-fifo.yaml
expect_error "validate a profile extending a FIFO: rejected, no hang" 65 \
	'extends-fifo.yaml:3:10: extends: cannot read "fifo-parent.inc": not a regular file' "" \
	timeout 120 "$CX5PROF" validate extends-fifo.yaml
expect_error "validate a FIFO: rejected, no hang" 65 "fifo.yaml: cannot read: not a regular file" "" \
	timeout 120 "$CX5PROF" validate fifo.yaml

# ---- nothing on the host changed
if [ "$ns" = 1 ]; then
	host_as_before
	ok $? "host unchanged: sysroot tree identical, kernel MTUs and show --json as before"
fi
is "$(db_state)" "$db_before" "history database unchanged (or still absent)"

# ---- the fuzz dictionary knows every profile key (tests/fuzz/fuzz_profile.dict)
missing=
for k in $(grep -oE '(STR|UINT|SIZE|PERCENT|ENUM|SECTION)\("[a-z_.]+"|\.name = "[a-z_.]+"|\{ "net\.core\.[a-z_]+"' \
	"$TOP/engine/profile.c" | grep -oE '"[^"]+"' | tr -d '"' | sort -u); do
	grep -qF "\"$k: \"" "$TOP/tests/fuzz/fuzz_profile.dict" || missing="$missing $k"
done
is "$missing" "" "tests/fuzz/fuzz_profile.dict has every key of engine/profile.c"

done_testing
