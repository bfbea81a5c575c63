#!/bin/sh
# Install the Debian packages that building and testing cx5prof need.
# Idempotent: installs only what is missing, and says nothing when all is there.
# Runs as root (CI and lab machines); prints what a non-root user should run.
#
# On an EL host (RHEL, Rocky, Alma, CentOS Stream 9: /etc/os-release's ID
# or ID_LIKE names rhel, centos or fedora) it installs the build
# dependencies of contrib/rpm/cx5prof.spec with dnf instead (CRB enabled
# for libcmocka-devel where the dnf config-manager plugin is there), and
# no test tools: the tests are run on Debian (docs/HACKING.md).
#
# netperf (the benchmark of the comparison rounds) is in Debian's non-free
# component. When no configured source offers it, this enables non-free for
# it as an operator would: one deb822 file for the release's suite, and an
# apt pin that lets only netperf come from there.
set -eu

# The EL names of the spec's BuildRequires, and what rpmbuild needs.
EL_PKGS="gcc make pkgconf-pkg-config libyaml-devel libnl3-devel libcurl-devel sqlite-devel
json-c-devel systemd-rpm-macros rpm-build libcmocka-devel"

el_family() {
	[ -r /etc/os-release ] || return 1
	# shellcheck disable=SC1091
	. /etc/os-release
	case " ${ID:-} ${ID_LIKE:-} " in
	*" rhel "* | *" centos "* | *" fedora "*) return 0 ;;
	esac
	return 1
}

if el_family; then
	# shellcheck disable=SC2086
	missing=$(for p in $EL_PKGS; do rpm -q "$p" >/dev/null 2>&1 || printf ' %s' "$p"; done)
	[ -z "$missing" ] && exit 0
	if [ "$(id -u)" != 0 ]; then
		echo "install-deps: missing packages:$missing" >&2
		echo "install-deps: run as root: dnf install$missing" >&2
		exit 1
	fi
	echo "install-deps: installing (dnf):$missing" >&2
	case " $missing " in
	*" libcmocka-devel "*) dnf -y -q config-manager --set-enabled crb >/dev/null 2>&1 || true ;;
	esac
	# shellcheck disable=SC2086
	exec dnf -y -q install $missing
fi

NONFREE_SOURCES=/etc/apt/sources.list.d/cx5prof-non-free.sources
NONFREE_PIN=/etc/apt/preferences.d/cx5prof-non-free

PKGS="build-essential pkg-config clang libclang-rt-14-dev
libyaml-dev libnl-3-dev libnl-route-3-dev libnl-genl-3-dev libcurl4-openssl-dev libsqlite3-dev
libjson-c-dev libcmocka-dev
iproute2 iputils-ping ethtool iperf3 netperf sqlite3 perl python3 python3-yaml python3-jsonschema
procps time jq strace util-linux openssh-client openssh-server openssl
ansible-core python3-prometheus-client systemd groff-base man-db chromium stress-ng
debhelper fakeroot rpm"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$missing" >&2
	echo "install-deps: run as root: apt-get install$missing" >&2
	exit 1
fi
echo "install-deps: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=300 update -qq >/dev/null

# The archive this machine already uses for the release's main component
# (deb822 .sources first, then one-line sources.list), so that a local
# mirror is kept.
debian_uri() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$1" '
			function found() { return u != "" && s ~ ("(^| )" suite "( |$)") && c ~ /(^| )main( |$)/ }
			/^$/ { if (found()) { print u; exit } u = s = c = "" }
			/^URIs:/ { u = $2 }
			/^Suites:/ { $1 = ""; s = $0 }
			/^Components:/ { $1 = ""; c = $0 }
			END { if (found()) print u }' "$f"
	done | head -n 1 | grep . && return
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk -v suite="$1" '$1 == "deb" && $3 == suite { for (i = 4; i <= NF; i++) if ($i == "main") { print $2; exit } }' |
		head -n 1
}

has_candidate() {
	apt-cache policy "$1" 2>/dev/null | grep -q '^  Candidate: [^(]'
}

case " $missing " in
*" netperf "*)
	if ! has_candidate netperf && [ ! -e "$NONFREE_SOURCES" ]; then
		. /etc/os-release
		uri=$(debian_uri "$VERSION_CODENAME")
		[ -n "$uri" ] || {
			echo "install-deps: no configured Debian source for $VERSION_CODENAME to add non-free to" >&2
			exit 1
		}
		echo "install-deps: enabling Debian non-free for netperf ($NONFREE_SOURCES, from $uri)" >&2
		cat >"$NONFREE_SOURCES" <<EOF
# Added by cx5prof contrib/install-deps.sh: netperf is in non-free.
Types: deb
URIs: $uri
Suites: $VERSION_CODENAME $VERSION_CODENAME-updates
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
		cat >"$NONFREE_PIN" <<EOF
# Added by cx5prof contrib/install-deps.sh: from non-free, netperf only.
Package: *
Pin: release c=non-free
Pin-Priority: -1

Package: netperf
Pin: release c=non-free
Pin-Priority: 500
EOF
		apt-get -o DPkg::Lock::Timeout=300 update -qq >/dev/null
	fi
	has_candidate netperf || {
		echo "install-deps: no apt source offers netperf (Debian non-free)" >&2
		exit 1
	}
	;;
esac
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends $missing >/dev/null
case " $missing " in
*" netperf "*) apt-cache policy netperf | grep -q '^  Installed: [^(]' || {
	echo "install-deps: netperf did not install" >&2
	exit 1
} ;;
esac
