#!/bin/sh
# check-sleeps.sh: `make lint-tests`. A test waits for an event (lib.sh's
# wait_until, a test pause, a file the program writes), never for a guessed
# time: every `sleep N` (and Python `time.sleep`) in tests/integration/ -
# the tests, their libraries and the scripts they write - must be listed in
# tests/integration/sleeps.allow with the reason it is not a
# synchronisation. A line of the allow-list that matches nothing is stale
# and fails too.
cd "$(dirname "$0")/integration" || exit 2
allow=sleeps.allow
grep -nE '(^|[^[:alnum:]_.])sleep[[:space:]]+[0-9$]|time\.sleep\(' -- *.t *.sh *.py 2>/dev/null |
	awk -v allow="$allow" '
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
		ok = 0
		for (i = 1; i <= k; i++)
			if (file[i] == p[1] && index(line, text[i])) { ok = 1; used[i]++ }
		if (!ok) {
			printf "tests/integration/%s: sleep as a synchronisation: wait for an event (wait_until, a test pause), or list it in %s with why\n    %s\n", where, allow, line
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
			printf "lint-tests: ok (%d allowed sleeps)\n", k
		exit bad
	}'
