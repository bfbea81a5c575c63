# cx5json: an Ansible stdout callback for 81-ansible.t. Prints one JSON
# document at the end of the run: {"plays": [{"play": {"name"}, "tasks":
# [{"task": {"name"}, "hosts": {HOST: RESULT}}]}], "stats": {HOST: {...}}},
# the shape of community.general's json callback, which Debian's
# ansible-core does not ship. Skipped tasks and rescued failures included.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = """
    name: cx5json
    type: stdout
    short_description: one JSON document with every task result (tests)
    description: Records each task's per-host result and prints them with the stats at the end.
"""

import json
import time

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "stdout"
    CALLBACK_NAME = "cx5json"

    def __init__(self):
        super(CallbackModule, self).__init__()
        self.plays = []

    def v2_playbook_on_play_start(self, play):
        self.plays.append({"play": {"name": play.get_name()}, "tasks": []})

    def v2_playbook_on_task_start(self, task, is_conditional):
        self.plays[-1]["tasks"].append({"task": {"name": task.get_name(), "started": time.time()}, "hosts": {}})

    def _record(self, result, **extra):
        r = dict(result._result)
        r.update(extra)
        r.pop("invocation", None)
        r["_seconds"] = round(time.time() - self.plays[-1]["tasks"][-1]["task"]["started"], 2)
        self.plays[-1]["tasks"][-1]["hosts"][result._host.get_name()] = r

    def v2_runner_on_ok(self, result):
        self._record(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, failed=True)

    def v2_runner_on_skipped(self, result):
        self._record(result, skipped=True)

    def v2_runner_on_unreachable(self, result):
        self._record(result, unreachable=True)

    def v2_playbook_on_stats(self, stats):
        hosts = sorted(stats.processed.keys())
        out = {"plays": self.plays, "stats": {h: stats.summarize(h) for h in hosts}}
        self._display.display(json.dumps(out, sort_keys=True, indent=1))
