"""The first thing a user feels: from submitting an ``%%agent`` cell in a fresh kernel (a project
of 1,000 files, no chat yet) to the provider receiving the request; and the same for the second
turn of that chat, after 10 files changed.

Baseline, measured in the same run in a fresh kernel of its own: the work that cannot be avoided,
done bare by a cell: a first git snapshot of the project (``add -A``, ``write-tree``,
``commit-tree`` with its own GIT_DIR and GIT_INDEX_FILE) plus one httpx POST of a request to the
same provider; for the second turn, the incremental snapshot after the same 10 changes plus one
POST. Both start from ``%load_ext zengine`` done (its cost is the load_ext row) and end when the
provider has the request's body (``ReceivedRequest.at``, this process's clock).

Issue 25: at most 1.2x, both turns.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import tempfile
import time
from pathlib import Path

from benchmarks._harness import Benchmark
from benchmarks._runs import Runs
from benchmarks.bench_checkpoint import _RAW, _generate
from zengine_jupyter.testing import Reply, provider_in_thread
from zengine_jupyter.testing.kernel import has_event, running_kernel, widget_id

FILES = 1_000
_BARE = """
import subprocess, httpx
subprocess.run(["bash", {script!r}, {git_dir!r}, {project!r}], check=True)
httpx.post({url!r}, json={{"model": "claude-sonnet-4-6", "max_tokens": 100, "stream": True,
           "messages": [{{"role": "user", "content": {prompt!r}}}]}},
           headers={{"anthropic-version": "2023-06-01", "x-api-key": "k"}}, timeout=30)
"""


class _Rig:
    def __init__(self) -> None:
        self.stack = contextlib.ExitStack()
        self.tmp = Path(self.stack.enter_context(tempfile.TemporaryDirectory()))
        # as an installed package runs: compiled modules are kept (here out of the tree)
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(self.tmp / "pycache")
        os.environ["ZENGINE_HOME"] = str(self.tmp / "home")
        os.environ.setdefault("ANTHROPIC_API_KEY", "bench-key")
        self.server = self.stack.enter_context(provider_in_thread())
        (self.tmp / "home").mkdir()
        (self.tmp / "home/settings.toml").write_text(
            f'[provider]\nkind = "anthropic"\nbase_url = "{self.server.base_url}"\n'
            '[model]\nmain = "claude-sonnet-4-6"\n'
        )
        self.project = self.tmp / "project"
        self.project.mkdir()
        _generate(self.project, FILES)
        self.script = self.tmp / "raw.sh"
        self.script.write_text(_RAW)
        self.runs = 0
        atexit.register(self.stack.close)

    def _touch_ten(self) -> None:
        self.runs += 1
        for i in range(10):
            with (self.project / f"pkg{i}" / f"mod{i % 13}" / f"f{i}.py").open("a") as fh:
                fh.write(f"# edit {self.runs}\n")

    def _until_request(self, start: float, count: int) -> float:
        deadline = time.monotonic() + 120
        while len(self.server.requests) <= count:
            if time.monotonic() > deadline:
                raise RuntimeError("the provider never received the request")
            time.sleep(0.0005)
        return self.server.requests[count].at - start

    def ours(self) -> dict[str, float]:
        """Both turns of one new chat in a fresh kernel."""
        times: dict[str, float] = {}
        self.runs += 1
        home = self.tmp / f"home-{self.runs}"  # no chat, no checkpoints yet
        home.mkdir()
        (home / "settings.toml").write_text((self.tmp / "home/settings.toml").read_text())
        env = {"JPY_SESSION_NAME": str(self.project / "analysis.ipynb"), "ZENGINE_HOME": str(home)}
        with running_kernel(self.project, env=env) as kernel:
            kernel.execute("%load_ext zengine")
            for turn in ("first", "second"):
                if turn == "second":
                    self._touch_ten()
                self.server.add(Reply(text=("done",)))
                count = len(self.server.requests)
                start = time.perf_counter()
                msg_id = kernel.client.execute(f"%%agent\n{turn} turn\n", store_history=False)
                times[turn] = self._until_request(start, count)
                cell = kernel._collect(msg_id, 120)
                kernel.widget_messages(widget_id(cell), has_event("turn_result"), timeout=120)
        return times

    def bare(self) -> dict[str, float]:
        """The same two steps done bare by cells of a fresh kernel."""
        times: dict[str, float] = {}
        self.runs += 1
        git_dir = self.tmp / f"raw-{self.runs}"
        with running_kernel(self.project) as kernel:
            kernel.execute("%load_ext zengine")
            for turn in ("first", "second"):
                if turn == "second":
                    self._touch_ten()
                self.server.add(Reply(text=("done",)))
                count = len(self.server.requests)
                code = _BARE.format(script=str(self.script), git_dir=str(git_dir),
                                    project=str(self.project), prompt=f"{turn} turn",
                                    url=f"{self.server.base_url}/v1/messages")  # fmt: skip
                start = time.perf_counter()
                msg_id = kernel.client.execute(code, store_history=False)
                times[turn] = self._until_request(start, count)
                done = kernel._collect(msg_id, 120)
                if done.status != "ok":
                    raise RuntimeError(f"the bare cell failed: {done.text}")
        return times


_rig: list[_Rig] = []


def _get() -> _Rig:
    if not _rig:
        _rig.append(_Rig())
    return _rig[0]


def benchmarks() -> list[Benchmark]:
    os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")
    ours, bare = Runs(lambda: _get().ours()), Runs(lambda: _get().bare())
    return [
        Benchmark(
            "first %%agent turn, fresh kernel, 1,000 files: cell to request vs git snapshot + POST",
            ours.sample("first"), bare.sample("first"), repeat=5, max_ratio=1.2,
        ),
        Benchmark(
            "second %%agent turn after 10 changes: cell to request vs incremental snapshot + POST",
            ours.sample("second"), bare.sample("second"), repeat=5, max_ratio=1.2,
        ),
    ]  # fmt: skip
