# browser-lib.sh: a real browser for the report tests (120-129), sourced
# after lib.sh and verify-lib.sh.
#
# Headless Chromium (Debian `chromium`, contrib/install-deps.sh) runs in a
# network namespace of its own (`unshare -n`: no network at all) with a
# fresh profile under $WORK, bounded by `timeout`. Only the browser
# processes of this test are ever stopped: by PID, after checking that
# /proc/PID/cmdline names this test's profile directory.
#
#   browser_need             skip the test without chromium
#   browser_probe PAGE WIDTH OUT
#                            a copy of PAGE with tests/helpers/report_probe.js
#                            appended, loaded at WIDTH px: the probe's verdict
#                            ("PROBE PASS ..." or "PROBE FAIL" and the faults)
#                            into OUT; returns 0 when the browser ran
#   browser_screenshot PAGE WIDTH HEIGHT PNG
#   browser_cleanup          stop what is left of this test's browsers

BROWSER=${CX5PROF_CHROMIUM:-chromium}
BROWSER_N=0

browser_need() {
	need_tool "$BROWSER"
	need_tool unshare
	need_python_module html.parser xml.etree.ElementTree
}

# The flags of every run: no GPU, no QUIC, no first-run, no background
# traffic, no updates, no sync; a profile of its own.
browser_run() { # browser_run ARGS...: stdout is the browser's
	BROWSER_N=$((BROWSER_N + 1))
	local profile=$WORK/chromium-profile-$BROWSER_N
	mkdir -p "$profile"
	timeout -k 5 120 unshare -n "$BROWSER" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" "$@" 2>"$WORK/chromium-$BROWSER_N.err"
}

browser_probe() { # browser_probe PAGE WIDTH OUT
	local copy=$WORK/probe-$2.html
	cp "$1" "$copy" || return 1
	{ printf '<script>\n'; cat "$TESTS_DIR/helpers/report_probe.js"; printf '</script>\n'; } >>"$copy"
	browser_run --window-size="$2,1000" --dump-dom "file://$copy" >"$WORK/dom-$2.html" || return 1
	sed -n '/<pre id="probe-verdict">/,/<\/pre>/p' "$WORK/dom-$2.html" |
		sed -e 's/<pre id="probe-verdict">//' -e 's#</pre>.*##' >"$3"
	[ -s "$3" ]
}

browser_screenshot() { # browser_screenshot PAGE WIDTH HEIGHT PNG
	browser_run --window-size="$2,$3" --hide-scrollbars --screenshot="$4" "file://$1" >/dev/null
}

browser_cleanup() {
	local p
	for p in /proc/[0-9]*; do
		tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -qF -- "--user-data-dir=$WORK/chromium-profile-" &&
			kill -KILL "${p#/proc/}" 2>/dev/null
	done
	return 0
}
