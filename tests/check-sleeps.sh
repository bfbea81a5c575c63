#!/bin/sh
# check-sleeps.sh: `make lint-tests`. A test waits for an event (lib.sh's
# wait_until, a test pause, a file the program writes), never for a guessed
# time, and a bound that only catches a hang is generous (a busy 2-core
# machine). Every file of tests/integration/ (its subfolders too) and of
# tests/helpers/ - the tests, their libraries, the scripts they write - is
# read for:
# - `sleep N` or `sleep "$x"` (and Python `time.sleep`);
# - `timeout N` below 60 s, and Python `settimeout(N)` / `timeout=N` below
#   30 s: a hang guard that short is a window under load;
# each must be listed in tests/integration/sleeps.allow with the reason it
# is not a synchronisation. A line of the allow-list that matches nothing
# is stale and fails too.
cd "$(dirname "$0")" || exit 2
allow=integration/sleeps.allow
grep -rnE --include='*.t' --include='*.sh' --include='*.py' \
	'(^|[^[:alnum:]_.])sleep[[:space:]]+["'"'"'$0-9.]|time\.sleep\(|(^|[^[:alnum:]_.-])timeout[[:space:]]|settimeout\(|timeout=[0-9]' \
	integration helpers 2>/dev/null |
	awk -v allow="$allow" '
	# the number that ends the text matched last (RSTART, RLENGTH)
	function tail_number(   s) {
		s = substr(line, RSTART, RLENGTH)
		sub(/.*[^0-9.]/, "", s)
		return s + 0
	}
	function flagged() {
		if (line ~ /(^|[^[:alnum:]_.])sleep[[:space:]]+["'"'"'$0-9.]|time\.sleep\(/)
			return "sleep as a synchronisation: wait for an event (wait_until, a test pause)"
		if (match(line, /(^|[^[:alnum:]_.-])timeout([[:space:]]+-[ks][[:space:]]*[0-9.]+[smh]?)*[[:space:]]+["'"'"']?[0-9.]+/) && tail_number() < 60)
			return "a timeout below 60 s: a window on a busy machine; give it a generous bound"
		if (match(line, /settimeout\([0-9.]+|timeout=[0-9.]+/) && tail_number() < 30)
			return "a socket timeout below 30 s: a window on a busy machine; give it a generous bound"
		return ""
	}
	BEGIN {
		FS = "\n"
		while ((getline l < allow) > 0) {
			if (l ~ /^[[:space:]]*(#|$)/)
				continue
			n = split(l, f, / \| /)
			if (n != 3 || f[3] == "") {
				printf "%s: malformed line (want FILE | TEXT | WHY): %s\n", allow, l
				bad = 1
				continue
			}
			k++; file[k] = f[1]; text[k] = f[2]; used[k] = 0
		}
	}
	{
		split($0, p, ":")
		where = p[1] ":" p[2]
		line = substr($0, length(where) + 2)
		why = flagged()
		if (why == "")
			next
		ok = 0
		for (i = 1; i <= k; i++)
			if (file[i] == p[1] && index(line, text[i])) { ok = 1; used[i]++ }
		if (!ok) {
			printf "tests/%s: %s, or list it in tests/%s with why\n    %s\n", where, why, allow, line
			bad = 1
		}
	}
	END {
		for (i = 1; i <= k; i++)
			if (!used[i]) {
				printf "%s: stale entry, matches nothing: %s | %s\n", allow, file[i], text[i]
				bad = 1
			}
		if (!bad)
			printf "lint-tests: ok (%d allowed sleeps and short timeouts)\n", k
		exit bad
	}'
