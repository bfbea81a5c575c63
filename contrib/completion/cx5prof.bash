# bash completion for cx5prof (installed as
# $(PREFIX)/share/bash-completion/completions/cx5prof by `make install`).
#
# Verbs and options are read from cx5prof's own --help output, so the
# completion never drifts from the binary. Profiles complete as *.yaml/*.yml
# files (and directories; campaign files too), interface names (show, counters) from /sys/class/net, or from
# DIR/sys/class/net when the command line has --sysroot DIR. Run ids
# (history show, compare, report, export, analyze), campaign ids (compare
# --campaign) and apply transaction ids (rollback) come from `cx5prof
# history --limit 0` on the line's --db.
# An option's value is never counted as an argument: which options take
# one is read from the verb's --help too.

_cx5prof_verbs()
{
	"${1:-cx5prof}" --help 2>/dev/null | awk '/^Verbs:/ {v=1; next} /^$/ {v=0} v && NF {print $1}'
}

_cx5prof_options()
{
	# $1 binary, $2 verb (empty: global options); only the option lines
	# of the help, not options named in descriptions
	if [ -n "$2" ]; then
		"$1" "$2" --help 2>/dev/null
	else
		"$1" --help 2>/dev/null
	fi | grep -E -- '^ +(-[a-zA-Z], )?--[a-z]' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

_cx5prof_value_options()
{
	# $1 binary, $2 verb: the options whose help line names a value
	# ("--limit N", "-p, --port PORT")
	"$1" ${2:+"$2"} --help 2>/dev/null | grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]* [A-Z]' |
		grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

_cx5prof_ids()
{
	# $1 binary, $2 "run", "campaign", "txn" or "any-txn", $3 db (may be
	# empty): run or campaign ids, the ids of apply transactions, or of
	# every transaction, newest first
	"$1" ${3:+--db "$3"} history --limit 0 2>/dev/null |
		awk -v k="$2" '($3 == k && (k == "run" || k == "campaign" || $5 == "apply")) || (k == "any-txn" && $3 == "txn") {print $4}'
}

_cx5prof_ifnames()
{
	# $1 sysroot (may be empty)
	local d=${1:+$1/}sys/class/net
	[ -n "$1" ] || d=/sys/class/net
	ls "$d" 2>/dev/null
}

_cx5prof_profiles()
{
	compopt -o filenames 2>/dev/null
	# two patterns rather than one extglob: works without `shopt -s extglob`
	COMPREPLY=($(compgen -f -X '!*.yaml' -- "$1") $(compgen -f -X '!*.yml' -- "$1") $(compgen -d -- "$1"))
}

_cx5prof()
{
	local cur prev bin verb sysroot="" db="" valopts="" i nargs=0 args=() campaigns=run
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	bin=${COMP_WORDS[0]}

	case $prev in
	--sysroot|--dir)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	--db|--peer-state|--config|--out)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--profile|--ablate)
		_cx5prof_profiles "$cur"
		return
		;;
	--repeat)
		COMPREPLY=($(compgen -W "auto" -- "$cur"))
		return
		;;
	--format)
		COMPREPLY=($(compgen -W "text prometheus" -- "$cur"))
		return
		;;
	--keep)
		# campaign's --keep takes a value; tune's is a flag
		local w
		for w in "${COMP_WORDS[@]:1:COMP_CWORD-2}"; do
			if [ "$w" = campaign ]; then
				COMPREPLY=($(compgen -W "none first last best" -- "$cur"))
				return
			fi
		done
		;;
	--order)
		COMPREPLY=($(compgen -W "alternate shuffle fixed" -- "$cur"))
		return
		;;
	--report)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	--tar)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--confirm|--limit|--timeout|--port|--bind|--peer|--duration|--streams|--message-size|--reason|--budget|--goal-mbps|--max-loss|--max-rounds|--only|--skip)
		return # a value the user types
		;;
	esac

	# The verb is the first word that is neither an option nor an option's
	# value; the words after it that are neither are its arguments.
	verb=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--sysroot) ((i++)); sysroot=${COMP_WORDS[i]} ;;
		--db) ((i++)); db=${COMP_WORDS[i]} ;;
		--campaign) campaigns=campaign ;;
		-*)
			if [ -n "$verb" ] && [[ " $valopts " == *" ${COMP_WORDS[i]} "* ]]; then
				((i++))
			fi
			;;
		*)
			if [ -z "$verb" ]; then
				verb=${COMP_WORDS[i]}
				valopts=$(_cx5prof_value_options "$bin" "$verb" | tr '\n' ' ')
			else
				args+=("${COMP_WORDS[i]}")
				nargs=$((nargs + 1))
			fi
			;;
		esac
	done

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_cx5prof_options "$bin" "$verb")" -- "$cur"))
		return
	fi
	if [ -z "$verb" ]; then
		COMPREPLY=($(compgen -W "$(_cx5prof_verbs "$bin")" -- "$cur"))
		return
	fi
	case $verb in
	show|counters)
		COMPREPLY=($(compgen -W "$(_cx5prof_ifnames "$sysroot")" -- "$cur"))
		;;
	validate|plan|apply|verify|doctor|campaign|tune)
		_cx5prof_profiles "$cur"
		;;
	history)
		if [ "$nargs" = 0 ]; then
			COMPREPLY=($(compgen -W "show" -- "$cur"))
		elif [ "$nargs" = 1 ] && [ "${args[0]}" = show ]; then
			COMPREPLY=($(compgen -W "run txn $(_cx5prof_ids "$bin" run "$db")" -- "$cur"))
		elif [ "$nargs" = 2 ] && [ "${args[0]}" = show ] && [ "${args[1]}" = run ]; then
			COMPREPLY=($(compgen -W "$(_cx5prof_ids "$bin" run "$db")" -- "$cur"))
		elif [ "$nargs" = 2 ] && [ "${args[0]}" = show ] && [ "${args[1]}" = txn ]; then
			COMPREPLY=($(compgen -W "$(_cx5prof_ids "$bin" any-txn "$db")" -- "$cur"))
		fi
		;;
	compare)
		COMPREPLY=($(compgen -W "$(_cx5prof_ids "$bin" "$campaigns" "$db")" -- "$cur"))
		;;
	report)
		COMPREPLY=($(compgen -W "$(_cx5prof_ids "$bin" run "$db")" -- "$cur"))
		;;
	export|analyze)
		[ "$nargs" = 0 ] && COMPREPLY=($(compgen -W "$(_cx5prof_ids "$bin" run "$db")" -- "$cur"))
		;;
	snapshot)
		compopt -o filenames 2>/dev/null
		[ "$nargs" = 0 ] && COMPREPLY=($(compgen -d -- "$cur"))
		;;
	rollback)
		[ "$nargs" = 0 ] && COMPREPLY=($(compgen -W "$(_cx5prof_ids "$bin" txn "$db")" -- "$cur"))
		;;
	help)
		COMPREPLY=($(compgen -W "$(_cx5prof_verbs "$bin")" -- "$cur"))
		;;
	esac
}
complete -F _cx5prof cx5prof
