#!/usr/bin/env bash
# 191-doctor-firewalld.t: doctor's firewall fix opens the benchmark's
# ports and never says to stop the firewall. On a private copy of the
# cx5-2port fixture with a firewalld process (proc/PID/comm): the fix is
# `firewall-cmd --add-service=` with the services of contrib/firewalld/;
# on the cx5-8node fixture (iptables' filter table, no firewalld) it lists
# the ports. The services themselves are valid firewalld XML that opens
# exactly those ports. No privileges needed.
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d /tmp/cx5t-fwd.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
copy_sysroot cx5-2port "$WORK/sr"
mkdir -p "$WORK/sr/proc/4321"
echo firewalld >"$WORK/sr/proc/4321/comm"

doctor_firewall() { "$CX5PROF" --sysroot "$1" doctor | grep -A1 -E '^[A-Z]+ +host +firewall '; }

is "$(doctor_firewall "$WORK/sr")" "WARN  host            firewall    a packet filter is active (process firewalld): the benchmark's ports may be blocked
                                  fix: open the benchmark's ports, keep firewalld running: firewall-cmd --permanent --add-service=cx5prof-serve --add-service=cx5prof-netserver && firewall-cmd --reload (on both hosts; the services come with the cx5prof packages, contrib/firewalld/); iperf3: --add-port=5201/tcp --add-port=5201/udp" \
	"firewalld: the fix adds cx5prof's services"

is "$(doctor_firewall "$FIXTURES/sysroot/cx5-8node")" "WARN  host            firewall    a packet filter is active (ip_tables: filter): the benchmark's ports may be blocked
                                  fix: open the benchmark's ports from the peer, keep the filter: TCP 12866 (cx5prof serve), TCP 12865 (netserver), TCP and UDP 5201 (iperf3), and UDP 32768-60999 (their data ports, net.ipv4.ip_local_port_range)" \
	"another packet filter: the fix names the ports"

"$CX5PROF" --sysroot "$WORK/sr" doctor --json >"$WORK/d.json"
is "$(jq -r '.checks[] | select(.check == "firewall") | .fix' "$WORK/d.json" | grep -c 'stop\|disable')" 0 \
	"--json: the fix never says to stop or disable the firewall"

# The services: well-formed, and the ports doctor names.
is "$(/usr/bin/python3 - "$TOP/contrib/firewalld" <<'PYEOF'
import sys, xml.etree.ElementTree as ET
for name in ("cx5prof-serve", "cx5prof-netserver"):
    root = ET.parse("%s/%s.xml" % (sys.argv[1], name)).getroot()
    print(name, root.tag, root.find("short") is not None,
          " ".join("%s/%s" % (p.get("port"), p.get("protocol")) for p in root.findall("port")))
PYEOF
)" "cx5prof-serve service True 12866/tcp 32768-60999/udp
cx5prof-netserver service True 12865/tcp 32768-60999/udp" "contrib/firewalld: the services open serve's and netserver's ports"

done_testing
