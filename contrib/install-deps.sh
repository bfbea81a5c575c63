#!/bin/sh
# Install the Debian packages that building and testing cx5prof need.
# Idempotent: installs only what is missing, and says nothing when all is there.
# Runs as root (CI and lab machines); prints what a non-root user should run.
set -eu

PKGS="build-essential pkg-config clang libclang-rt-14-dev
libyaml-dev libnl-3-dev libnl-route-3-dev libnl-genl-3-dev libcurl4-openssl-dev libsqlite3-dev
libjson-c-dev libcmocka-dev
iproute2 iputils-ping ethtool iperf3 sqlite3 perl python3 python3-yaml python3-jsonschema
procps time jq openssh-client openssh-server
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
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
