#!/usr/bin/python3
"""sysroot_facts.py: what `cx5prof show` must state about a sysroot, computed
here from the sysroot's files with no code of cx5prof, and checked against
the committed golden files (tests/expected/show-FIXTURE.{json,txt}), which
the code under test wrote (CX5PROF_REGEN). A golden file regenerated from a
wrong cx5prof fails here.

Facts: per port of the sysroot's sys/class/net (not lo, not virtual): the
PCI function, IDs, model (a table of our own), NUMA node and local CPUs,
driver, RDMA device and firmware, PCIe speed and width (degraded or not),
the MSI IRQs, and for each of them its /proc/interrupts row (name, total,
per-CPU counts), kind and queue, affinity and effective affinity, and
whether its effective CPUs are off the port's node; the link speed and
duplex the sysroot gives a port present in the namespace. Host-wide: the
managed sysctls and the irqbalance process.

Usage: sysroot_facts.py SYSROOT GOLDEN.json GOLDEN.txt
Prints one line per fact that a golden file contradicts or misses, then
"checked N facts"; exits 1 when any fact failed.
"""
import json
import os
import re
import sys

MODELS = {("0x15b3", "0x1017"): "ConnectX-5", ("0x15b3", "0x1019"): "ConnectX-5 Ex"}
SYSCTLS = ["net/core/rmem_max", "net/core/wmem_max", "net/core/rmem_default", "net/core/wmem_default",
           "net/core/netdev_max_backlog", "net/core/netdev_budget", "net/core/netdev_budget_usecs",
           "net/core/busy_read", "net/core/busy_poll", "net/ipv4/udp_mem", "net/ipv4/udp_rmem_min",
           "net/ipv4/ipfrag_high_thresh"]


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def cpus(text):
    out = set()
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.update(range(int(a), int(b) + 1))
        elif part:
            out.add(int(part))
    return out


def interrupts(sr):
    """{irq: (name, [count per cpu])} from proc/interrupts (numbered rows)."""
    rows = {}
    with open(os.path.join(sr, "proc/interrupts")) as f:
        ncpu = len(f.readline().split())
        for line in f:
            m = re.match(r"\s*(\d+):\s+(.*)$", line)
            if not m:
                continue
            fields = m.group(2).split()
            counts = [int(x) for x in fields[:ncpu]]
            rows[int(m.group(1))] = (fields[-1], counts)
    return rows


def irq_facts(sr, port, irq, rows, local):
    name, counts = rows[irq]
    # a completion queue: mlx5_compN@pci:BDF, or PORT-N (older mlx5)
    m = re.match(r"mlx5_comp(\d+)@", name) or re.fullmatch(re.escape(port) + r"-(\d+)", name)
    kind = "completion" if m else ("async" if "async" in name else "control")
    aff = read(os.path.join(sr, "proc/irq/%d/smp_affinity_list" % irq))
    eff = read(os.path.join(sr, "proc/irq/%d/effective_affinity_list" % irq))
    return {
        "irq": irq, "name": name, "kind": kind, "queue": int(m.group(1)) if m else None,
        "affinity": aff, "effective": eff,
        "off_node": None if local is None else eff is not None and not cpus(eff) <= local,
        "total": sum(counts), "counts": {str(c): n for c, n in enumerate(counts) if n},
    }


def port_facts(sr, name, rows):
    net = os.path.join(sr, "sys/class/net", name)
    dev = os.path.join(net, "device")
    if not os.path.isdir(dev):
        return None
    vendor, device = read(os.path.join(dev, "vendor")), read(os.path.join(dev, "device"))
    local_list = read(os.path.join(dev, "local_cpulist"))
    numa = int(read(os.path.join(dev, "numa_node"), "-1"))
    # off-node means something only where the port has a node
    local = cpus(local_list) if local_list and numa >= 0 else None
    ib = sorted(os.listdir(os.path.join(dev, "infiniband"))) if os.path.isdir(os.path.join(dev, "infiniband")) else []
    driver = os.path.basename(os.readlink(os.path.join(dev, "driver"))) if os.path.islink(os.path.join(dev, "driver")) else None
    speed, max_speed = read(os.path.join(dev, "current_link_speed")), read(os.path.join(dev, "max_link_speed"))
    width, max_width = read(os.path.join(dev, "current_link_width")), read(os.path.join(dev, "max_link_width"))
    msi = sorted(int(x) for x in os.listdir(os.path.join(dev, "msi_irqs"))) if os.path.isdir(os.path.join(dev, "msi_irqs")) else []
    irqs = [irq_facts(sr, name, i, rows, local) for i in msi if i in rows]
    irqs.sort(key=lambda x: (x["queue"] is None, x["queue"] if x["queue"] is not None else x["irq"]))
    f = {
        "model": MODELS.get((vendor, device)),
        "mellanox": vendor == "0x15b3",
        "device.pci": os.path.basename(os.path.realpath(dev)),
        "device.vendor": vendor, "device.device": device,
        "device.numa_node": numa if numa >= 0 else None,
        "device.local_cpulist": local_list,
        "device.driver": driver,
        "device.driver_version": read(os.path.join(sr, "sys/module", driver, "version")) if driver else None,
        "device.ib_device": ib[0] if ib else None,
        "device.firmware": read(os.path.join(dev, "infiniband", ib[0], "fw_ver")) if ib else None,
        "device.msi_irqs": msi,
        "irqs": irqs,
    }
    if speed:
        f.update({"device.pcie.speed": speed, "device.pcie.max_speed": max_speed,
                  "device.pcie.width": int(width), "device.pcie.max_width": int(max_width),
                  "device.pcie.degraded": int(width) < int(max_width) or speed != max_speed})
    f["sysroot.speed"] = read(os.path.join(net, "speed"))
    f["sysroot.duplex"] = read(os.path.join(net, "duplex"))
    return f


def get(doc, dotted):
    for k in dotted.split("."):
        if not isinstance(doc, dict) or k not in doc:
            return "<absent>"
        doc = doc[k]
    return doc


def main():
    sr, gj, gt = sys.argv[1:4]
    golden = json.load(open(gj))
    text = open(gt).read()
    rows = interrupts(sr)
    bad, n = [], 0

    def check(ok, what):
        nonlocal n
        n += 1
        if not ok:
            bad.append(what)

    by_name = {i["name"]: i for i in golden["interfaces"]}
    blocks = {}
    for b in re.split(r"\n(?=\S)", text):
        blocks[b.split(None, 1)[0]] = b
    ports = [p for p in sorted(os.listdir(os.path.join(sr, "sys/class/net")))
             if p != "lo" and "/virtual/" not in os.path.realpath(os.path.join(sr, "sys/class/net", p))]
    check(len(ports) > 0, "the sysroot has ports")
    for p in ports:
        facts = port_facts(sr, p, rows)
        if facts is None:
            continue
        g = by_name.get(p)
        check(g is not None, "%s: listed in %s" % (p, os.path.basename(gj)))
        if g is None:
            continue
        for k, v in facts.items():
            if k in ("irqs", "sysroot.speed", "sysroot.duplex"):
                continue
            check(get(g, k) == v, "%s: %s is %r in the golden JSON, the sysroot says %r" % (p, k, get(g, k), v))
        check(len(g.get("irqs") or []) == len(facts["irqs"]),
              "%s: %d IRQs in the golden JSON, the sysroot has %d" % (p, len(g.get("irqs") or []), len(facts["irqs"])))
        for want, got in zip(facts["irqs"], g.get("irqs") or []):
            for k, v in want.items():
                check(got.get(k) == v, "%s: IRQ %d: %s is %r in the golden JSON, the sysroot says %r"
                      % (p, want["irq"], k, got.get(k), v))
        if g.get("present") and g.get("link") and facts["sysroot.speed"]:
            check(g["link"].get("speed") == int(facts["sysroot.speed"]) and
                  g["link"].get("duplex") == facts["sysroot.duplex"] and g["link"].get("speed_source") == "sysroot",
                  "%s: link speed/duplex/source %r/%r/%r, the sysroot says %s/%s" % (
                      p, g["link"].get("speed"), g["link"].get("duplex"), g["link"].get("speed_source"),
                      facts["sysroot.speed"], facts["sysroot.duplex"]))
        # The human output states the same facts.
        b = blocks.get(p, "")
        check(bool(b), "%s: has a block in %s" % (p, os.path.basename(gt)))
        ids = "%s:%s" % (facts["device.vendor"][2:], facts["device.device"][2:])
        head = "%s%s  %s  pci %s  numa %s  cpus %s" % (
            p, "" if g.get("present") else "  [not in this network namespace]",
            "%s %s" % (facts["model"], ids) if facts["model"] else
            ("%s" if facts["mellanox"] else "[not Mellanox] %s") % ids,
            facts["device.pci"], "none" if facts["device.numa_node"] is None else facts["device.numa_node"],
            facts["device.local_cpulist"])
        check(b.startswith(head + "\n"), "%s: text header is not %r" % (p, head))
        drv = " ".join(x for x in (facts["device.driver"], facts["device.driver_version"]) if x)
        check(re.search(r"^  driver +%s +firmware %s$" % (re.escape(drv), re.escape(facts["device.firmware"] or "-")),
                        b, re.M) is not None,
              "%s: text names driver %s and firmware %s" % (p, drv, facts["device.firmware"]))
        for irq in facts["irqs"]:
            per_cpu = " ".join("%s:%d" % (c, v) for c, v in irq["counts"].items())
            numa = "off-node +" if irq["off_node"] else ""
            row = r"^ +%s +%d +%s +%s +%s%d +%s +%s$" % (
                irq["queue"] if irq["queue"] is not None else "-", irq["irq"], re.escape(irq["affinity"]),
                re.escape(irq["effective"]), numa, irq["total"], re.escape(per_cpu), re.escape(irq["name"]))
            check(re.search(row, b, re.M) is not None, "%s: text has no row for IRQ %d (%s)" % (p, irq["irq"], irq["name"]))

    for s in SYSCTLS:
        key = "net." + s[4:].replace("/", ".") if s.startswith("net/") else s
        raw = read(os.path.join(sr, "proc/sys", s))
        want = [int(x) for x in raw.split()] if s.endswith("udp_mem") else int(raw)
        check(golden["sysctl"].get(key) == want, "sysctl %s is %r in the golden JSON, the sysroot says %r"
              % (key, golden["sysctl"].get(key), want))
        shown = " ".join(map(str, want)) if isinstance(want, list) else str(want)
        check(re.search(r"^  %s +%s$" % (re.escape(key), re.escape(shown)), text, re.M) is not None,
              "sysctl %s: the text does not show %s" % (key, shown))

    pids = sorted(int(d) for d in os.listdir(os.path.join(sr, "proc"))
                  if d.isdigit() and read(os.path.join(sr, "proc", d, "comm")) == "irqbalance")
    ib = golden["irqbalance"]
    check(ib.get("running") == bool(pids) and ib.get("pid") == (pids[0] if pids else None),
          "irqbalance running/pid %r/%r in the golden JSON, the sysroot's processes say %r" % (
              ib.get("running"), ib.get("pid"), pids))
    if pids:
        check("irqbalance  running (pid %d)" % pids[0] in text, "the text says irqbalance runs as pid %d" % pids[0])

    for b in bad:
        print(b)
    print("checked %d facts" % n)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
