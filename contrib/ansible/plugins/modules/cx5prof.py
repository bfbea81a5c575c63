#!/usr/bin/python3
# cx5prof Ansible module: drives the cx5prof binary on the managed host
# through its --json contract (schemas/plan.schema.json,
# schemas/verify.schema.json) and its exit codes (cx5prof(8), EXIT STATUS).
#
# Owns: the mapping of Ansible's desired state, check mode and diff mode onto
# cx5prof verbs, and of their outcome onto changed/failed. Must never: change
# the host itself (only cx5prof does), or parse cx5prof's human output.
# SPDX-License-Identifier: MIT

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: cx5prof
short_description: Apply, verify, commit or roll back a cx5prof NIC profile
description:
  - Runs the C(cx5prof) binary on the managed host with C(--json) and maps
    its result onto Ansible. C(cx5prof) makes Mellanox ConnectX-5 NICs reach
    full UDP throughput; it applies a YAML profile as one transaction with an
    undo log, verifies it with a benchmark, and rolls back.
  - I(state=applied) runs C(cx5prof apply PROFILE) (C(plan PROFILE) in check
    mode). C(changed) is what cx5prof reports, false when the host is already
    in the profile's state.
  - I(state=verified) runs C(cx5prof verify [PROFILE]) and fails on drift
    (exit 3) or a failed threshold (exit 4); the figures are returned either
    way. It never changes the host, so C(changed) is always false.
  - A failed I(state=applied) or I(state=rolled_back) that left a change
    on the host (exit 7) reports C(changed); exit 6 (every change undone),
    8 (locked) and 9 (an open transaction) do not.
  - I(state=rolled_back) runs C(cx5prof rollback [TXN]). In check mode it
    names the transaction the real run would roll back: the given one, else
    the newest apply still in effect (not the newest apply, which may have
    been rolled back already).
  - I(state=committed) runs C(cx5prof commit), which keeps a transaction applied
    with I(confirm_timeout).
  - I(state=exported) runs C(cx5prof export RUN --dir) into a temporary
    directory on the managed host and returns the bundle's top files
    (C(run.json), C(profile.json), C(command.txt), C(README.md)) as
    C(files), for the controller to keep (C(cx5prof report --hosts) reads
    them); it changes nothing.
  - On a host with no history database yet, I(state=rolled_back) and
    I(state=committed) change nothing and succeed (C(cx5prof) itself exits 66
    there: only apply, verify, bench and campaign create the database).
version_added: "0.1.0"
author: cx5prof authors
options:
  state:
    description: What the host should be.
    type: str
    choices: [applied, verified, rolled_back, committed, exported]
    default: applied
  profile:
    description:
      - Path of the profile on the managed host (absolute, or relative to
        the module's working directory). Required for I(state=applied);
        I(state=verified) without it checks the last applied profile.
    type: path
  confirm_timeout:
    description:
      - With I(state=applied), C(apply --confirm SECONDS) - a detached
        watchdog rolls the change back unless I(state=committed) follows in
        time (use it when a change could cut the controller off the host).
    type: int
  runtime_only:
    description:
      - With I(state=applied), C(apply --runtime-only) - do not enable the
        profile's boot-time unit C(cx5prof-apply@NAME.service), so the
        change lasts until the next reboot. By default a profile applied
        from C(/etc/cx5prof/profiles/NAME.yaml) persists (docs/fleet.md,
        "Reboots and hotplug").
    type: bool
    default: false
  peer:
    description:
      - With I(state=verified), C(verify --peer ADDR) - benchmark against
        this address or host name instead of the profile's C(verify.peer),
        so one profile serves many hosts, each with its own peer.
    type: str
  no_bench:
    description: With I(state=verified), check the state only (C(verify --no-bench)).
    type: bool
    default: false
  bundle:
    description:
      - With I(state=verified), also export the verify run (as I(state=exported)
        does) and return its files as C(files), whether the verify passed or
        not: one task where two would cost a second round trip per host.
    type: bool
    default: false
  txn:
    description: With I(state=rolled_back), the transaction to roll back (default the last apply).
    type: int
  run:
    description: With I(state=exported), the run to export (a verify's C(run_id)).
    type: int
  binary:
    description: The cx5prof binary (a name looked up in PATH, or a path).
    type: str
    default: cx5prof
  sysroot:
    description: C(--sysroot DIR) - read /proc and /sys under DIR (labs and tests).
    type: path
  db:
    description: C(--db PATH) - the history database (default the binary's, /var/lib/cx5prof/history.db).
    type: path
notes:
  - Supports check mode (I(state=applied) runs C(plan); the other states
    report what they would do and change nothing) and diff mode
    (C(diff.before)/C(diff.after) are the plan's object -> key -> value maps).
  - Needs root on the managed host (C(become)), like cx5prof itself.
"""

EXAMPLES = r"""
- name: Apply the UDP profile, rolled back unless committed within 5 minutes
  cx5prof.fleet.cx5prof:
    state: applied
    profile: /etc/cx5prof/profiles/udp-jumbo.yaml
    confirm_timeout: 300
  register: cx5_apply

- name: Verify against this host's peer
  cx5prof.fleet.cx5prof:
    state: verified
    profile: /etc/cx5prof/profiles/udp-jumbo.yaml
    peer: "{{ cx5prof_peer }}"
  register: cx5_verify

- name: Keep it
  cx5prof.fleet.cx5prof:
    state: committed
  when: cx5_apply is changed

- name: Undo exactly that transaction
  cx5prof.fleet.cx5prof:
    state: rolled_back
    txn: "{{ cx5_apply.txn }}"
"""

RETURN = r"""
exit_code:
  description:
    - cx5prof's exit code (cx5prof(8), EXIT STATUS). Not called C(rc), since
      Ansible fails every result with a non-zero C(rc), and C(plan) says
      "changes pending" with 2.
  returned: always
  type: int
msg:
  description: cx5prof's one-line summary, or its error messages on failure.
  returned: always
  type: str
changes:
  description: Every change (plan/apply, in apply order) or restore (rollback), as in schemas/plan.schema.json.
  returned: state is applied or rolled_back
  type: list
txn:
  description: The transaction applied, committed or rolled back.
  returned: when cx5prof reports one
  type: int
pending_confirm:
  description: The apply waits for I(state=committed) before its confirm timeout.
  returned: state is applied
  type: bool
persistent:
  description: The profile survives a reboot (its boot-time unit is, or with this apply will be, enabled).
  returned: state is applied
  type: bool
boot_unit:
  description: The unit that re-applies the profile at boot, or null when the apply is runtime only.
  returned: state is applied
  type: str
problems:
  description: Why the profile cannot be applied (nothing was changed).
  returned: when there are any
  type: list
result:
  description: verify's verdict, pass, recorded (no thresholds set), drift, fail or error.
  returned: state is verified
  type: str
throughput_mbps:
  description: Receive throughput of the benchmark, 10^6 bit/s (null when not measured).
  returned: state is verified
  type: float
send_mbps:
  description: Send throughput of the benchmark, 10^6 bit/s.
  returned: state is verified
  type: float
loss_percent:
  description: Datagrams lost, percent.
  returned: state is verified
  type: float
run_id:
  description: The verification run in the history (cx5prof history show RUN).
  returned: state is verified
  type: int
verify:
  description: The whole C(verify --json) document (schemas/verify.schema.json).
  returned: state is verified
  type: dict
files:
  description: The exported bundle's top files by name (run.json, profile.json when the run's transaction has one, command.txt, README.md), as text.
  returned: state is exported, or verified with bundle when a run was recorded
  type: dict
"""

import json
import os
import shutil
import tempfile

from ansible.module_utils.basic import AnsibleModule

# cx5prof(8), EXIT STATUS (engine/base/exitcode.h): never renumbered.
EXIT_OK = 0
EXIT_CHANGES = 2
EXIT_DRIFT = 3
EXIT_BENCH_FAIL = 4
EXIT_ROLLED_BACK = 6
EXIT_ROLLBACK_FAILED = 7
EXIT_NOT_FOUND = 66
ERROR_PREFIX = "cx5prof: error: "


class Cx5prof(object):
    def __init__(self, module):
        self.module = module
        p = module.params
        binary = p["binary"]
        if os.sep not in binary:
            binary = module.get_bin_path(binary, required=True)
        self.base = [binary]
        if p["sysroot"]:
            self.base += ["--sysroot", p["sysroot"]]
        if p["db"]:
            self.base += ["--db", p["db"]]
        self.base.append("--json")

    def run(self, *args):
        """Run one verb; returns (rc, document or {}, stderr)."""
        cmd = self.base + list(args)
        rc, out, err = self.module.run_command(cmd, check_rc=False)
        doc = {}
        if out.strip():
            try:
                doc = json.loads(out)
            except ValueError:
                self.module.fail_json(msg="cx5prof printed something that is not JSON", exit_code=rc, cmd=cmd,
                                      stdout=out, stderr=err)
        return rc, doc, err, cmd

    def fail(self, rc, doc, err, cmd, **extra):
        """Fail with the engine's own words: its error lines, else its msg."""
        errors = [l[len(ERROR_PREFIX):] if l.startswith(ERROR_PREFIX) else l
                  for l in err.splitlines() if l.startswith(ERROR_PREFIX)]
        msg = "; ".join(errors) or doc.get("msg") or "cx5prof exited with %d" % rc
        # Exit 7: a change is left on the host (the engine's "changed"
        # says so); any other failure left it as it was.
        changed = bool(doc.get("changed")) and rc in (EXIT_OK, EXIT_ROLLBACK_FAILED)
        result = dict(exit_code=rc, cmd=cmd, stderr=err, changed=changed)
        for k in ("changes", "problems", "txn"):
            if k in doc:
                result[k] = doc[k]
        result.update(extra)
        self.module.fail_json(msg=msg, **result)


def plan_result(module, rc, doc, changed):
    for w in doc.get("warnings", []):
        module.warn(w)
    result = dict(changed=changed, exit_code=rc, msg=doc.get("msg", ""), changes=doc.get("changes", []),
                  persistent=bool(doc.get("persistent")), boot_unit=doc.get("boot_unit"))
    if doc.get("problems"):
        result["problems"] = doc["problems"]
    if module._diff and "diff" in doc:
        result["diff"] = dict(before=doc["diff"]["before"], after=doc["diff"]["after"])
    return result


def do_applied(module, cx):
    p = module.params
    if not p["profile"]:
        module.fail_json(msg="state=applied needs profile")
    extra = ["--runtime-only"] if p["runtime_only"] else []
    if module.check_mode:
        rc, doc, err, cmd = cx.run("plan", p["profile"], *extra)
        if rc not in (EXIT_OK, EXIT_CHANGES):
            cx.fail(rc, doc, err, cmd)
        result = plan_result(module, rc, doc, rc == EXIT_CHANGES)
        result["pending_confirm"] = False
        return result
    args = ["apply", p["profile"]] + extra
    if p["confirm_timeout"]:
        args += ["--confirm", str(p["confirm_timeout"])]
    rc, doc, err, cmd = cx.run(*args)
    if rc != EXIT_OK or doc.get("failed"):
        cx.fail(rc, doc, err, cmd)
    changed = bool(doc.get("changed"))
    result = plan_result(module, rc, doc, changed)
    if "txn" in doc:
        result["txn"] = doc["txn"]
    result["pending_confirm"] = changed and bool(p["confirm_timeout"])
    return result


def verify_figures(doc):
    b = doc.get("benchmark") or {}
    return dict(
        result=doc.get("result"),
        run_id=doc.get("run_id"),
        throughput_mbps=b.get("recv_mbps"),
        send_mbps=b.get("send_mbps"),
        loss_percent=b.get("loss_percent"),
        runner=b.get("runner"),
        drifts=(doc.get("state") or {}).get("drifts", []),
        thresholds=doc.get("thresholds", []),
        verify=doc,
    )


def do_verified(module, cx):
    p = module.params
    args = ["verify"]
    if p["profile"]:
        args.append(p["profile"])
    if p["no_bench"]:
        args.append("--no-bench")
    if p["peer"]:
        args += ["--peer", p["peer"]]
    rc, doc, err, cmd = cx.run(*args)
    figures = verify_figures(doc)
    if p["bundle"] and doc.get("run_id"):
        # The bundle is a copy for the controller: failing to make it
        # says so and does not turn the verify's own answer around.
        files, failure = export_files(cx, doc["run_id"])
        if failure:
            module.warn("cannot export run %s: %s" % (doc["run_id"], failure[2].strip() or failure[0]))
        else:
            figures["files"] = files
    if rc != EXIT_OK:
        if rc == EXIT_BENCH_FAIL and not err.strip():
            failed = [t for t in doc.get("thresholds", []) if t.get("status") == "fail"]
            err = "".join("%s%s %s %s %s %s (measured %s)\n" % (
                ERROR_PREFIX, t["label"], "below" if t["op"] == ">=" else "above",
                t["op"], t["limit"], t["unit"], t["value"]) for t in failed)
        cx.fail(rc, doc, err, cmd, **figures)
    figures.update(changed=False, exit_code=rc, msg="verify: %s" % doc.get("result", "pass"))
    return figures


def do_rolled_back(module, cx):
    p = module.params
    if module.check_mode:
        return preview_from_history(cx, p["txn"], ("committed", "pending_confirm", "open", "rollback_failed"),
                                    "rolled back")
    args = ["rollback"]
    if p["txn"]:
        args.append(str(p["txn"]))
    rc, doc, err, cmd = cx.run(*args)
    if no_history(rc, doc):
        return dict(changed=False, exit_code=EXIT_OK, msg="nothing to roll back (no history yet)")
    if rc != EXIT_OK:
        cx.fail(rc, doc, err, cmd)
    result = dict(changed=bool(doc.get("changed")), exit_code=rc, msg=doc.get("msg", ""), changes=doc.get("changes", []))
    if "txn" in doc:
        result["txn"] = doc["txn"]
    return result


def do_committed(module, cx):
    if module.check_mode:
        return preview_from_history(cx, None, ("pending_confirm",), "committed")
    rc, doc, err, cmd = cx.run("commit")
    if no_history(rc, doc):
        return dict(changed=False, exit_code=EXIT_OK, msg="nothing to commit (no history yet)")
    if rc != EXIT_OK:
        cx.fail(rc, doc, err, cmd)
    result = dict(changed=bool(doc.get("changed")), exit_code=rc, msg=doc.get("msg", ""))
    if "txn" in doc:
        result["txn"] = doc["txn"]
    return result


def no_history(rc, doc):
    """cx5prof's exit 66 for a database that does not exist (or holds none)."""
    return rc == EXIT_NOT_FOUND and doc.get("msg", "").startswith(("no history database at ", "no history in "))


def preview_from_history(cx, txn, statuses, verb):
    """Check mode for rollback/commit: read the history, change nothing.

    The target is the one the real verb picks: the given transaction, else
    the newest apply in one of `statuses` (cx5prof rollback skips applies
    already rolled back)."""
    rc, doc, err, cmd = cx.run("history", "--limit", "0")
    if no_history(rc, doc):
        return dict(changed=False, exit_code=0, msg="nothing would be %s (no history yet)" % verb)
    if rc != EXIT_OK:
        cx.fail(rc, doc, err, cmd)
    applies = [e for e in doc.get("history", []) if e.get("type") == "transaction" and e.get("kind") == "apply"]
    if txn:
        applies = [e for e in applies if e.get("id") == txn]
    else:
        applies = [e for e in applies if e.get("status") in statuses]
    target = applies[0] if applies else None
    if target and target.get("status") in statuses:
        return dict(changed=True, exit_code=0, txn=target["id"], msg="transaction %d would be %s" % (target["id"], verb))
    return dict(changed=False, exit_code=0, msg="nothing would be %s" % verb)


BUNDLE_FILES = ("run.json", "profile.json", "command.txt", "README.md")


def export_files(cx, run):
    """export RUN into a temporary directory: (its top files by name, None),
    or (None, (rc, doc, err, cmd)) of the failed export."""
    tmp = tempfile.mkdtemp(prefix="cx5prof-export.")
    try:
        bundle = os.path.join(tmp, "bundle")
        rc, doc, err, cmd = cx.run("export", str(run), "--dir", bundle)
        if rc != EXIT_OK:
            return None, (rc, doc, err, cmd)
        files = {}
        for name in BUNDLE_FILES:
            path = os.path.join(bundle, name)
            if os.path.exists(path):
                with open(path) as f:
                    files[name] = f.read()
        return files, None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def do_exported(module, cx):
    run = module.params["run"]
    files, failure = export_files(cx, run)
    if failure:
        cx.fail(*failure)
    return dict(changed=False, exit_code=EXIT_OK, msg="exported run %d" % run, files=files)


STATES = {
    "applied": do_applied,
    "verified": do_verified,
    "rolled_back": do_rolled_back,
    "committed": do_committed,
    "exported": do_exported,
}


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type="str", default="applied", choices=list(STATES)),
            profile=dict(type="path"),
            confirm_timeout=dict(type="int"),
            runtime_only=dict(type="bool", default=False),
            peer=dict(type="str"),
            no_bench=dict(type="bool", default=False),
            bundle=dict(type="bool", default=False),
            txn=dict(type="int"),
            run=dict(type="int"),
            binary=dict(type="str", default="cx5prof"),
            sysroot=dict(type="path"),
            db=dict(type="path"),
        ),
        required_if=[("state", "applied", ("profile",)), ("state", "exported", ("run",))],
        supports_check_mode=True,
    )
    p = module.params
    if p["confirm_timeout"] is not None and (p["state"] != "applied" or p["confirm_timeout"] <= 0):
        module.fail_json(msg="confirm_timeout is a positive number of seconds, with state=applied only")
    if p["runtime_only"] and p["state"] != "applied":
        module.fail_json(msg="runtime_only goes with state=applied only")
    if p["peer"] is not None and p["state"] != "verified":
        module.fail_json(msg="peer goes with state=verified only")
    if p["bundle"] and p["state"] != "verified":
        module.fail_json(msg="bundle goes with state=verified only")
    cx = Cx5prof(module)
    module.exit_json(**STATES[p["state"]](module, cx))


if __name__ == "__main__":
    main()
