#!/usr/bin/python3
"""Benchmark: cost of show, plan, apply and rollback as the IRQ count grows.

For 1, 2, 4 and 8 ConnectX-5 ports of 63 completion queues each (63 to 504
IRQs) on a generated 256-CPU, 8-node host, this creates a namespace whose veth
ports carry the sysroot's interface names, then times each verb (median of
several runs, wall clock) and its peak RSS (from wait4's rusage). Apply and
rollback include the durable (synchronous=FULL) undo log in a fresh SQLite
file. `ip netns exec` is part of every command; its own cost, measured
alone, is subtracted from the times (its RSS is below cx5prof's). Prints a
Markdown table for docs/performance.md. Root and network namespaces are
required; nothing outside the benchmark's own namespaces and temp dirs
changes.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CX5PROF = os.environ.get("CX5PROF", os.path.join(TOP, "cx5prof"))
GEN = os.path.join(TOP, "tests", "fixtures", "gen-sysroot.py")
REPEAT = int(os.environ.get("BENCH_REPEAT", "5"))

PROFILE = """version: 1
name: bench-scale
match:
  pci: ["15b3:1017"]
link:
  mtu: 9000
irq:
  policy: numa-local
  irqbalance: leave
sysctl:
  net.core.rmem_max: ">= 4M"
  net.core.wmem_max: ">= 4M"
"""


def sh(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw)


def timed(argv):
    """Run argv, return (seconds, peak RSS KiB, exit code).

    The peak RSS comes from GNU time (/usr/bin/time -f %M): a child forked
    from this Python process would inherit Python's high-water mark.
    """
    with tempfile.NamedTemporaryFile("r") as rss:
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-q", "-f", "%M", "-o", rss.name] + argv,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        elapsed = time.perf_counter() - t0
        return elapsed, int(rss.read().split()[-1]), p.returncode


def ports_of(sysroot):
    return sorted(n for n in os.listdir(os.path.join(sysroot, "sys/class/net")) if n != "lo")


def main():
    if os.geteuid() != 0:
        print("apply-scale: skipped: needs root (network namespaces)")
        return
    rows = []
    for nports in (1, 2, 4, 8):
        work = tempfile.mkdtemp(prefix="cx5bench.")
        ns, peer = f"cx5b{os.getpid()}h", f"cx5b{os.getpid()}p"
        try:
            pristine = os.path.join(work, "pristine")
            sh("/usr/bin/python3", GEN, "--nodes", "8", "--cpus", "256", "--ports", str(nports),
               "--channels", "63", "--nic-node", "3", pristine)
            sh("ip", "netns", "add", ns)
            sh("ip", "netns", "add", peer)
            for i, name in enumerate(ports_of(pristine)):
                sh("ip", "-n", ns, "link", "add", name, "type", "veth", "peer", "name", f"p{i}",
                   "netns", peer)
                sh("ip", "-n", ns, "link", "set", name, "up")
            prof = os.path.join(work, "bench.yaml")
            with open(prof, "w") as f:
                f.write(PROFILE)
            res = {v: ([], []) for v in ("show", "plan", "apply", "rollback")}
            for k in range(REPEAT):
                # Each round: a fresh sysroot copy and database; apply, then
                # roll back, so every round starts from the same host state.
                sysroot = os.path.join(work, f"sr{k}")
                shutil.copytree(pristine, sysroot, symlinks=True)
                db = os.path.join(work, f"h{k}.db")
                base = ["ip", "netns", "exec", ns, CX5PROF, "--sysroot", sysroot, "--db", db]
                for verb, args in (("show", ["show"]), ("plan", ["plan", prof]),
                                   ("apply", ["apply", prof]), ("rollback", ["rollback"])):
                    t, m, code = timed(base + args)
                    if verb in ("apply", "rollback") and code != 0:
                        sys.exit(f"apply-scale: {verb} exited {code} with {nports} ports")
                    res[verb][0].append(t)
                    res[verb][1].append(m)
            res = {v: (statistics.median(t), max(m)) for v, (t, m) in res.items()}
            t_ns, _, _ = timed(["ip", "netns", "exec", ns, "true"])
            rows.append((nports, nports * 63, res, t_ns))
        finally:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
            subprocess.run(["ip", "netns", "del", peer], capture_output=True)
            shutil.rmtree(work, ignore_errors=True)
    print("| ports | IRQs | show ms | plan ms | apply ms | rollback ms | peak RSS KiB |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for nports, nirq, res, t_ns in rows:
        ms = {v: max(0.0, (res[v][0] - t_ns) * 1000) for v in res}
        peak = max(r[1] for r in res.values())
        print(f"| {nports} | {nirq} | {ms['show']:.1f} | {ms['plan']:.1f} | {ms['apply']:.1f} | "
              f"{ms['rollback']:.1f} | {peak} |")
    print(f"\n(median of {REPEAT} runs; the cost of `ip netns exec` alone, "
          f"{rows[-1][3] * 1000:.1f} ms, is subtracted)")


if __name__ == "__main__":
    main()
