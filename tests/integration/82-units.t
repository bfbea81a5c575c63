#!/usr/bin/env bash
# 82-units.t: `make install` puts the boot-time unit, the re-apply unit,
# the udev rule and the completion where systemd, udev and bash-completion
# look; `systemd-analyze verify` accepts the installed units (ExecStart
# rewritten to $(PREFIX)/sbin/cx5prof, which exists; the man page found
# through MANPATH) and refuses a broken copy; the udev rule's shape;
# `make uninstall` removes it all. Installs under a temporary PREFIX only.
. "$(dirname "$0")/lib.sh"
need_tool systemd-analyze "Debian package systemd; contrib/install-deps.sh installs it"
W=$(mktemp -d /tmp/cx5t-units.XXXXXX)
trap 'rm -rf "$W"' EXIT
P=$W/prefix
UNITS=$P/lib/systemd/system

make -C "$TOP" --no-print-directory -s install PREFIX="$P" >"$W/install.log" 2>&1
ok $? "make install PREFIX=$P"
is "$(cd "$P" && find lib share/bash-completion sbin -type f | sort)" "lib/firewalld/services/cx5prof-netserver.xml
lib/firewalld/services/cx5prof-serve.xml
lib/systemd/system/cx5prof-apply@.service
lib/systemd/system/cx5prof-reapply.service
lib/udev/rules.d/90-cx5prof.rules
sbin/cx5prof
share/bash-completion/completions/cx5prof" "installed: units, udev rule, firewalld services, completion, binary"
is "$(grep '^ExecStart=' "$UNITS/cx5prof-apply@.service")" "ExecStart=$P/sbin/cx5prof apply --runtime-only /etc/cx5prof/profiles/%i.yaml" \
	"the unit runs the installed binary"
is "$(grep -c . "$P/share/bash-completion/completions/cx5prof")" "$(grep -c . "$TOP/contrib/completion/cx5prof.bash")" \
	"the completion is installed whole, under the command's name"
is "$(cd "$P/share/doc/cx5prof" && find . -type f | sort)" \
	"$(cd "$TOP" && { printf './%s\n' README.md CHANGELOG.md; find ./docs -type f; } | sort)" \
	"the docs are installed, README and docs/ side by side as in the tree (the links between them hold)"

# An enabled instance is a link to the template, as `systemctl enable` makes.
ln -s cx5prof-apply@.service "$UNITS/cx5prof-apply@udp-jumbo.service"
run env MANPATH="$P/share/man" systemd-analyze verify "$UNITS/cx5prof-apply@udp-jumbo.service" "$UNITS/cx5prof-reapply.service"
is "$rc" 0 "systemd-analyze verify: exit 0"
is "$out$err" "" "systemd-analyze verify: no complaint"

sed "s|^ExecStart=.*|ExecStart=cx5prof-not-installed apply x|" "$UNITS/cx5prof-apply@.service" >"$W/cx5prof-apply@bad.service"
run env MANPATH="$P/share/man" systemd-analyze verify "$W/cx5prof-apply@bad.service"
ok $((rc == 0)) "systemd-analyze verify refuses a unit whose command is missing (exit $rc)"
is "$err" "cx5prof-apply@bad.service: Command cx5prof-not-installed is not executable: No such file or directory" \
	"systemd-analyze verify: its reason"

# What the units promise, read back from the installed files.
prop() { sed -n "s/^$2=//p" "$UNITS/$1"; }
is "$(prop cx5prof-apply@.service Type) $(prop cx5prof-apply@.service RemainAfterExit)" "oneshot yes" \
	"apply@: oneshot, stays active (try-restart re-applies it)"
is "$(prop cx5prof-apply@.service Before)" "network-online.target" "apply@: before network-online.target"
is "$(prop cx5prof-apply@.service WantedBy)" "multi-user.target network-online.target" "apply@: enabled at boot"
is "$(prop cx5prof-reapply.service ExecStart)" "systemctl --no-block try-restart cx5prof-apply@*.service" \
	"reapply: restarts only the active instances"

# The udev rule: one rule, only match/assign pairs, naming the installed unit.
rule=$(grep -v '^#' "$P/lib/udev/rules.d/90-cx5prof.rules" | grep .)
is "$(printf '%s\n' "$rule" | wc -l)" 1 "udev: one rule"
printf '%s\n' "$rule" | tr ',' '\n' | sed 's/^ *//' |
	grep -vxE '[A-Z_]+(\{[A-Za-z_]+\})?(==|!=|\+=|=|:=)"[^"]*"' >"$W/badkeys"
is "$(cat "$W/badkeys")" "" "udev: every field is KEY op \"value\""
for want in 'ACTION=="add"' 'SUBSYSTEM=="net"' 'DRIVERS=="mlx5_core"' 'TAG+="systemd"' \
	'ENV{SYSTEMD_WANTS}+="cx5prof-reapply.service"'; do
	printf '%s\n' "$rule" | grep -qF "$want"
	ok $? "udev: $want"
done
[ -f "$UNITS/cx5prof-reapply.service" ]
ok $? "udev: the unit it wants is installed next to it"

make -C "$TOP" --no-print-directory -s uninstall PREFIX="$P" >>"$W/install.log" 2>&1
ok $? "make uninstall"
is "$(cd "$P" && find . -type f | sort)" "" "make uninstall: nothing left"
done_testing
