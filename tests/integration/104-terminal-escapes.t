#!/usr/bin/env bash
# 104-terminal-escapes.t: no control character from a file, a profile or a
# peer reaches the operator's terminal.
#
# A profile's description `\e]0;PWNED\a\e[2J` (set the terminal's title,
# clear the screen) is printed with every control character but newline
# and tab as `?`: in the campaign verdict (a real campaign in the lab:
# builtin runner, serve in the peer namespace) and in log lines that quote
# a file name; `validate --json` keeps the text (escaped by JSON).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
need_root_netns
vsetup v104 cx5-2port
ESC=$(printf '\033]0;PWNED\a\033[2J')
SHOWN='?]0;PWNED??[2J'
has_controls() { LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$@"; }

timeout -k 1 900 ip netns exec "$PEER_NS" "$CX5PROF" serve --bind 198.18.0.2 2>"$WORK/serve.log" &
V_PIDS="$V_PIDS $!"
wait_listen 12866 || { echo "Bail out! serve did not start"; exit 1; }

# esc must clearly help, or the verdict names no group (it names one only
# when the figures say so, and a busy machine's noise swamps a small
# effect): the path is shaped to a packet rate (tbf mpu 9000, as in the
# campaign tests, campaign-lib.sh), so esc's MTU 9000 carries several
# times what base's 1500 does with 8000-byte datagrams; 5 rounds each.
ip -n "$PEER_NS" link set peer0 mtu 9000
ip netns exec "$HOST_NS" tc qdisc add dev ens1f0 root tbf rate 200mbit burst 64kb latency 20ms mpu 9000
printf 'version: 1\nname: base\nlink:\n  mtu: 1500\n' >"$WORK/base.yaml"
printf 'version: 1\nname: esc\ndescription: "%s"\nlink:\n  mtu: 9000\n' '\e]0;PWNED\a\e[2J' >"$WORK/esc.yaml"
printf 'version: 1\nname: esc-campaign\ngroups:\n  - base.yaml\n  - esc.yaml\nverify:\n  peer: 198.18.0.2\n  runner: builtin\n  duration: 1\n  message_size: 8000\nrepeat: 5\n' \
	>"$WORK/campaign.yaml"

# ---- the campaign verdict
cx campaign "$WORK/campaign.yaml" >"$WORK/out" 2>"$WORK/err"
is "$?" 0 "the campaign ran"
grep -qF "verdict     esc ($SHOWN) +" "$WORK/out"
ok $? "the verdict names the group with its description, controls as ?"
diag "$(grep "^verdict" "$WORK/out")"
has_controls "$WORK/out" "$WORK/err"
ok $((!$?)) "no control character on stdout or stderr"

# ---- JSON carries the text as written
run cx --json validate "$WORK/esc.yaml"
is "$(printf '%s' "$out" | jq -r '.. | .description? // empty' | head -n1)" "$ESC" \
	"validate --json: the description as written (JSON escapes it)"

# ---- a log line quoting a file name
bad="$WORK/x$(printf '\033[2J\a').yaml"
printf 'version: 1\nname: x\nlink:\n  mtu: nine\n' >"$bad"
run cx validate "$bad"
printf '%s\n' "$err" >"$WORK/logline"
has_controls "$WORK/logline"
ok $((!$?)) "an error quoting a file name holds no control character"
grep -qF "x?[2J?.yaml" "$WORK/logline"
ok $? "the file name is shown with its controls as ?: $(head -n1 "$WORK/logline")"
done_testing
