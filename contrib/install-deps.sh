#!/bin/sh
# Install the Debian packages that building and testing cx5prof need.
# Idempotent: installs only what is missing, and says nothing when all is there.
# Runs as root (CI and lab machines); prints what a non-root user should run.
#
# netperf (the benchmark of the comparison rounds) is in Debian's non-free
# component. When no configured source offers it, this enables non-free for
# it as an operator would: one deb822 file for the release's suite, and an
# apt pin that lets only netperf come from there.
set -eu

NONFREE_SOURCES=/etc/apt/sources.list.d/cx5prof-non-free.sources
NONFREE_PIN=/etc/apt/preferences.d/cx5prof-non-free

PKGS="build-essential pkg-config clang libclang-rt-14-dev
libyaml-dev libnl-3-dev libnl-route-3-dev libnl-genl-3-dev libcurl4-openssl-dev libsqlite3-dev
libjson-c-dev libcmocka-dev
iproute2 iputils-ping ethtool iperf3 netperf sqlite3 perl python3 python3-yaml python3-jsonschema
procps time jq strace util-linux openssh-client openssh-server
ansible-core python3-prometheus-client systemd"

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
apt-get update -qq >/dev/null

has_candidate() {
	apt-cache policy "$1" 2>/dev/null | grep -q '^  Candidate: [^(]'
}

case " $missing " in
*" netperf "*)
	if ! has_candidate netperf && [ ! -e "$NONFREE_SOURCES" ]; then
		. /etc/os-release
		echo "install-deps: enabling Debian non-free for netperf ($NONFREE_SOURCES)" >&2
		cat >"$NONFREE_SOURCES" <<EOF
# Added by cx5prof contrib/install-deps.sh: netperf is in non-free.
Types: deb
URIs: http://deb.debian.org/debian
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
		apt-get update -qq >/dev/null
	fi
	has_candidate netperf || {
		echo "install-deps: no apt source offers netperf (Debian non-free)" >&2
		exit 1
	}
	;;
esac
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
case " $missing " in
*" netperf "*) apt-cache policy netperf | grep -q '^  Installed: [^(]' || {
	echo "install-deps: netperf did not install" >&2
	exit 1
} ;;
esac
