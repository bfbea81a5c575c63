#!/usr/bin/env bash
# 192-deb-package.t: `make deb` builds a .deb with debhelper (once, -j2,
# in a temporary directory) and dpkg installs it on this machine: the
# binary answers --version, `man -w` finds the page, the systemd units, the
# udev rule, the profiles, the schemas, the completion and the firewalld
# services are where systemd, udev, bash-completion and firewalld look, and
# installing enabled, started or applied nothing (no unit link under
# /etc/systemd, the sysctls as before). A reinstall (the upgrade path of
# the maintainer scripts) and a purge keep the history in /var/lib/cx5prof;
# CX5PROF_PURGE_HISTORY=yes with the purge removes it. The fleet playbook
# installs the same .deb (cx5prof_package, --tags cx5prof_install, on this
# machine through a local connection) and nothing else. At the end the
# package and every file it had are gone. A machine where cx5prof is
# already installed is left alone (the test does not run).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (dpkg -i)"
need_tool dpkg-buildpackage "Debian package dpkg-dev; contrib/install-deps.sh installs it"
need_tool dh "Debian package debhelper; contrib/install-deps.sh installs it"
need_tool ansible-playbook "contrib/install-deps.sh installs ansible-core"
if dpkg-query -W -f='${Status}' cx5prof 2>/dev/null | grep -q ' installed$'; then
	skip_all "cx5prof is installed on this machine already: not changed by a test"
fi
HIST=/var/lib/cx5prof
[ -e "$HIST" ] && skip_all "$HIST exists: the history of this machine is not touched by a test"

W=$(mktemp -d /tmp/cx5t-deb.XXXXXX)
cleanup() {
	if dpkg-query -W -f='${Status}' cx5prof 2>/dev/null | grep -q 'installed'; then
		CX5PROF_PURGE_HISTORY=yes dpkg --purge cx5prof >/dev/null 2>&1
	fi
	rm -rf "$HIST" "$W"
	[ -n "${DEB:-}" ] && rm -f "/var/tmp/${DEB##*/}"
}
trap cleanup EXIT

units_linked() { find /etc/systemd -name 'cx5prof*' 2>/dev/null | sort; }
sysctls() { cat /proc/sys/net/core/rmem_max /proc/sys/net/core/wmem_max /proc/sys/net/core/netdev_max_backlog; }
SYSCTLS_BEFORE=$(sysctls)
LINKS_BEFORE=$(units_linked)

make -C "$TOP" --no-print-directory deb PKG_BUILDDIR="$W/pkg" PKG_JOBS=2 >"$W/build.log" 2>&1
ok $? "make deb" || diag "$(tail -20 "$W/build.log")"
DEB=$(ls "$W"/pkg/deb/cx5prof_*_*.deb 2>/dev/null | head -n 1)
ok "$([ -f "$DEB" ] && echo 0 || echo 1)" "make deb built ${DEB##*/}"
[ -f "$DEB" ] || { echo "Bail out! make deb built no package"; exit 1; }
is "$(dpkg-deb -f "$DEB" Package Version | tr '\n' ' ')" \
	"Package: cx5prof Version: $(sed -n 's/^#define CX5PROF_VERSION "\(.*\)"$/\1/p' "$TOP/engine/base/version.h") " \
	"the package's name and version (engine/base/version.h)"
is "$(dpkg-deb -I "$DEB" | grep -cE '^ +[0-9]+ bytes, +[0-9]+ lines +\*? *(postinst|preinst)')" 0 \
	"no postinst or preinst: installing runs nothing"

run dpkg -i "$DEB"
is "$rc" 0 "dpkg -i" || diag "$err"
is "$(/usr/sbin/cx5prof --version)" "cx5prof $(dpkg-deb -f "$DEB" Version)" "cx5prof --version"
is "$(command -v cx5prof)" /usr/sbin/cx5prof "cx5prof is in PATH"
is "$(man -w cx5prof)" /usr/share/man/man8/cx5prof.8.gz "man -w cx5prof"

UNITDIR=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
UDEVDIR=$(pkg-config --variable=udevdir udev 2>/dev/null || echo /lib/udev)
for f in "$UNITDIR/cx5prof-apply@.service" "$UNITDIR/cx5prof-reapply.service" "$UDEVDIR/rules.d/90-cx5prof.rules" \
	/usr/share/bash-completion/completions/cx5prof /usr/share/cx5prof/profiles/udp-jumbo.yaml \
	/usr/share/cx5prof/schemas/profile.schema.json /usr/lib/firewalld/services/cx5prof-serve.xml \
	/usr/lib/firewalld/services/cx5prof-netserver.xml; do
	[ -f "$f" ] && dpkg -S "$f" >/dev/null 2>&1
	ok $? "installed and owned by the package: $f"
done
is "$(grep '^ExecStart=' "$UNITDIR/cx5prof-apply@.service")" \
	"ExecStart=/usr/sbin/cx5prof apply --runtime-only /etc/cx5prof/profiles/%i.yaml" "the unit runs the packaged binary"
cmp -s "$UDEVDIR/rules.d/90-cx5prof.rules" "$TOP/contrib/udev/90-cx5prof.rules"
ok $? "the udev rule is the tree's"
cmp -s /usr/share/bash-completion/completions/cx5prof "$TOP/contrib/completion/cx5prof.bash"
ok $? "the completion is the tree's"
is "$(ls /usr/share/cx5prof/profiles | tr '\n' ' ')" "$(cd "$TOP/profiles" && ls -- *.yaml | tr '\n' ' ')" \
	"every shipped profile"
run /usr/sbin/cx5prof validate /usr/share/cx5prof/profiles/udp-jumbo.yaml
is "$rc:$out" "0:/usr/share/cx5prof/profiles/udp-jumbo.yaml: ok (name udp-jumbo, extends mtu-jumbo.yaml)" \
	"the installed profiles validate (extends resolves next to them)"

is "$(units_linked)" "$LINKS_BEFORE" "no unit enabled (no link under /etc/systemd)"
is "$(systemctl is-enabled cx5prof-apply@udp-jumbo.service cx5prof-reapply.service 2>&1 | tr '\n' ' ')" "disabled static " \
	"systemctl is-enabled: the boot-time apply disabled, the re-apply static (only udev wants it)"
is "$(sysctls)" "$SYSCTLS_BEFORE" "no sysctl changed"
ok "$([ ! -e "$HIST" ] && echo 0 || echo 1)" "installing made no history"

# ---- the history survives an upgrade (a reinstall runs its scripts) and a purge
mkdir -p "$HIST"
/usr/sbin/cx5prof --db "$HIST/history.db" history >/dev/null 2>&1
sqlite3 "$HIST/history.db" "CREATE TABLE IF NOT EXISTS t192 (x); INSERT INTO t192 VALUES ('kept')"
run dpkg -i "$DEB"
is "$rc" 0 "dpkg -i again (upgrade path)"
is "$(sqlite3 "$HIST/history.db" 'SELECT x FROM t192')" kept "upgrade: the history is kept"
is "$(units_linked)" "$LINKS_BEFORE" "upgrade: no unit enabled"

run dpkg --purge cx5prof
is "$rc" 0 "dpkg --purge"
is "$(printf '%s\n' "$err" | grep '^cx5prof:')" \
	"cx5prof: the history in /var/lib/cx5prof is kept (CX5PROF_PURGE_HISTORY=yes with the purge removes it)" \
	"purge: says the history is kept, and how to remove it"
is "$(sqlite3 "$HIST/history.db" 'SELECT x FROM t192')" kept "purge: the history is kept"
ok "$([ ! -e /usr/sbin/cx5prof ] && echo 0 || echo 1)" "purge: the binary is gone"

run dpkg -i "$DEB"
is "$rc" 0 "dpkg -i once more"
run env CX5PROF_PURGE_HISTORY=yes dpkg --purge cx5prof
is "$rc" 0 "CX5PROF_PURGE_HISTORY=yes dpkg --purge"
ok "$([ ! -e "$HIST" ] && echo 0 || echo 1)" "asked: the history is removed"

# ---- the fleet playbook installs from the package (cx5prof_package),
# here on this machine (connection local), and stops there with its tag
mkdir -p "$W/collections/ansible_collections/cx5prof" "$W/ansible-tmp"
ln -s "$TOP/contrib/ansible" "$W/collections/ansible_collections/cx5prof/fleet"
printf 'cx5_hosts:\n  hosts:\n    localhost:\n      ansible_connection: local\n      ansible_python_interpreter: /usr/bin/python3\n' >"$W/inventory.yml"
run env HOME="$W" ANSIBLE_COLLECTIONS_PATH="$W/collections" ANSIBLE_LOCAL_TEMP="$W/ansible-tmp" \
	ANSIBLE_REMOTE_TMP="$W/ansible-tmp" ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
	ansible-playbook -i "$W/inventory.yml" -e cx5prof_package="$DEB" -e cx5prof_profile=unused \
	--tags cx5prof_install "$TOP/contrib/ansible/playbooks/cx5prof-fleet.yml"
is "$rc" 0 "ansible-playbook cx5prof-fleet.yml -e cx5prof_package=DEB --tags cx5prof_install" || diag "$out" "$err"
printf '%s\n' "$out" | grep -q 'Install the .deb'
ok $? "the playbook ran its .deb install task"
is "$(dpkg-query -W -f='${Status} ${Version}' cx5prof 2>/dev/null)" "install ok installed $(dpkg-deb -f "$DEB" Version)" \
	"the playbook installed the package"
printf '%s\n' "$out" | grep -q 'Apply the profile'
ok $((!$?)) "--tags cx5prof_install: nothing applied"
is "$(units_linked)" "$LINKS_BEFORE" "playbook install: no unit enabled"
run dpkg --purge cx5prof
is "$rc" 0 "dpkg --purge after the playbook's install"
rm -f "/var/tmp/${DEB##*/}"

# ---- nothing left behind
is "$(dpkg-query -W -f='${Status}' cx5prof 2>/dev/null)" "" "the package is unknown to dpkg"
left=$(dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ {sub(/^\./, "", $6); print $6}' | while read -r f; do [ -e "$f" ] && echo "$f"; done)
is "$left" "" "no file of the package is left"
is "$(units_linked)" "$LINKS_BEFORE" "no unit link left"
is "$(sysctls)" "$SYSCTLS_BEFORE" "the sysctls as before"
done_testing
