"""A real IPython kernel driven through jupyter_client, for end-to-end tests."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jupyter_client.manager import KernelManager

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping
    from pathlib import Path

__all__ = [
    "WIDGET_MIME",
    "ExecResult",
    "KernelHarness",
    "agent_kernel",
    "events_of",
    "execute_notebook",
    "has_event",
    "json_of_cell",
    "opened_state",
    "running_kernel",
    "turn_events",
    "widget_id",
]

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


@dataclass
class ExecResult:
    """What one ``execute`` request produced on iopub, and its reply."""

    status: str
    outputs: list[dict[str, Any]] = field(default_factory=list)
    comm_msgs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def text(self) -> str:
        """All plain-text output: streams, display data, results and tracebacks."""
        parts: list[str] = []
        for out in self.outputs:
            content = out["content"]
            if out["msg_type"] == "stream":
                parts.append(content["text"])
            elif out["msg_type"] in ("display_data", "execute_result", "update_display_data"):
                parts.append(content["data"].get("text/plain", ""))
            elif out["msg_type"] == "error":
                parts.append("\n".join(content["traceback"]))
        return "".join(parts)

    def mime(self, mimetype: str) -> list[str]:
        return [
            out["content"]["data"][mimetype]
            for out in self.outputs
            if out["msg_type"] in ("display_data", "execute_result")
            and mimetype in out["content"]["data"]
        ]


class KernelHarness:
    """One running kernel and its blocking client."""

    def __init__(self, manager: KernelManager) -> None:
        self.manager = manager
        self.client = manager.client()
        self._stash: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        """Every iopub message read from the kernel, in order (to search them all)."""
        """iopub messages read while waiting for something else (a turn's widget messages
        that arrive while another cell runs)."""

    def execute(self, code: str, timeout: float = 60.0) -> ExecResult:
        """Run ``code`` and collect its iopub output until the kernel is idle again."""
        msg_id = self.client.execute(code, store_history=False)
        return self._collect(msg_id, timeout)

    def send_comm(
        self, msg_type: str, content: Mapping[str, Any], subshell_id: str | None = None
    ) -> str:
        """Send ``comm_open`` / ``comm_msg`` / ``comm_close`` as a frontend would (on a kernel
        subshell when ``subshell_id`` is given, as JupyterLab 4.6 sends widget messages)."""
        msg = self.client.session.msg(msg_type, dict(content))
        if subshell_id is not None:
            msg["header"]["subshell_id"] = subshell_id
        self.client.shell_channel.send(msg)
        return str(msg["header"]["msg_id"])

    def create_subshell(self, timeout: float = 10.0) -> str:
        """A new kernel subshell (its own thread and loop in ipykernel >= 7); returns its id."""
        msg = self.client.session.msg("create_subshell_request", {})
        self.client.control_channel.send(msg)
        deadline = time.monotonic() + timeout
        while True:
            reply = self.client.control_channel.get_msg(
                timeout=max(0.1, deadline - time.monotonic())
            )
            if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                return str(reply["content"]["subshell_id"])

    def comm_messages(self, comm_id: str, timeout: float = 10.0, count: int = 1) -> list[Any]:
        """Wait for ``count`` messages the kernel sends on ``comm_id``."""
        found: list[Any] = []
        deadline = time.monotonic() + timeout
        kept: list[dict[str, Any]] = []
        try:
            while len(found) < count:
                msg = self._next_iopub(deadline, f"only {len(found)} of {count} comm messages")
                if msg["msg_type"] == "comm_msg" and msg["content"]["comm_id"] == comm_id:
                    found.append(msg["content"]["data"])
                else:
                    kept.append(msg)
        finally:
            self._stash[:0] = kept
        return found

    def widget_messages(
        self, model_id: str, until: Callable[[dict[str, Any]], bool], timeout: float = 30.0
    ) -> list[dict[str, Any]]:
        """The custom messages a widget sends, up to and including the first ``until`` accepts;
        messages of other comms are kept for later calls."""
        found: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        kept: list[dict[str, Any]] = []
        try:
            while True:
                msg = self._next_iopub(deadline, f"widget {model_id} sent {len(found)} messages")
                content = msg["content"]
                data = content.get("data", {}) if msg["msg_type"] == "comm_msg" else {}
                if content.get("comm_id") != model_id or data.get("method") != "custom":
                    kept.append(msg)
                    continue
                found.append(data["content"])
                if until(data["content"]):
                    return found
        finally:
            self._stash[:0] = kept

    def send_widget_message(
        self, model_id: str, content: Mapping[str, Any], subshell_id: str | None = None
    ) -> str:
        """A widget's custom message, as the frontend's ``model.send(content)`` sends it."""
        data = {"method": "custom", "content": dict(content)}
        return self.send_comm("comm_msg", {"comm_id": model_id, "data": data}, subshell_id)

    def _next_iopub(self, deadline: float, what: str) -> dict[str, Any]:
        if self._stash:
            return self._stash.pop(0)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"{what} before the deadline")
            try:
                msg: dict[str, Any] = self.client.get_iopub_msg(timeout=remaining)
            except queue.Empty:
                continue
            self.received.append(msg)
            return msg

    def _collect(self, msg_id: str, timeout: float) -> ExecResult:
        deadline = time.monotonic() + timeout
        result = ExecResult(status="unknown")
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"kernel did not finish executing within {timeout} s")
            msg = self.client.get_iopub_msg(timeout=remaining)
            self.received.append(msg)
            if msg["parent_header"].get("msg_id") != msg_id:
                self._stash.append(msg)
                continue
            kind = msg["msg_type"]
            if kind == "status" and msg["content"]["execution_state"] == "idle":
                break
            if kind.startswith("comm_"):
                result.comm_msgs.append(msg)
                self._stash.append(msg)  # a widget's messages stay readable by widget_messages
            elif kind not in ("status", "execute_input"):
                result.outputs.append(msg)
        while True:  # skip replies to earlier requests (kernel_info from wait_for_ready)
            reply = self.client.get_shell_msg(timeout=max(1.0, deadline - time.monotonic()))
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        result.status = reply["content"]["status"]
        return result


@contextlib.contextmanager
def running_kernel(
    cwd: Path, env: Mapping[str, str] | None = None, startup_timeout: float = 60.0
) -> Iterator[KernelHarness]:
    """Start a real ``python3`` kernel (this interpreter) in ``cwd``; shut it down afterwards."""
    manager = KernelManager(kernel_name="python3")
    kernel_env = {**os.environ, **(env or {})}
    manager.start_kernel(cwd=str(cwd), env=kernel_env)
    harness = KernelHarness(manager)
    try:
        harness.client.start_channels()
        harness.client.wait_for_ready(timeout=startup_timeout)
        yield harness
    finally:
        harness.client.stop_channels()
        manager.shutdown_kernel(now=True)
        manager.cleanup_resources()


@contextlib.contextmanager
def agent_kernel(project: Path) -> Iterator[KernelHarness]:
    """A kernel in ``project`` as a notebook there (``analysis.ipynb``) would run it, with a
    test API key and ``%load_ext zengine`` done."""
    env = {"JPY_SESSION_NAME": str(project / "analysis.ipynb"), "ANTHROPIC_API_KEY": "test-key"}
    with running_kernel(project, env=env) as harness:
        loaded = harness.execute("%load_ext zengine")
        assert loaded.status == "ok", loaded.text
        yield harness


def widget_id(result: ExecResult) -> str:
    """The model id (= comm id) of the one widget a cell displayed."""
    views = [
        out["content"]["data"][WIDGET_MIME]["model_id"]
        for out in result.outputs
        if out["msg_type"] == "display_data" and WIDGET_MIME in out["content"]["data"]
    ]
    if len(views) != 1:
        raise AssertionError(f"expected one widget, got {len(views)}: {result.text[:500]}")
    return str(views[0])


def events_of(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events inside a turn widget's ``events`` messages, in order."""
    return [e for m in messages if m.get("kind") == "events" for e in m["events"]]


def has_event(kind: str) -> Callable[[dict[str, Any]], bool]:
    """For ``widget_messages(until=...)``: a message carrying an event of ``kind``."""
    return lambda msg: any(e["kind"] == kind for e in msg.get("events", ()))


def turn_events(kernel: KernelHarness, cell: str, timeout: float = 30.0) -> list[dict[str, Any]]:
    """Run an ``%%agent`` ``cell`` (it must not raise); its widget's events up to the turn's
    result."""
    result = kernel.execute(cell)
    assert result.status == "ok", result.text
    assert "Traceback" not in result.text
    return events_of(kernel.widget_messages(widget_id(result), has_event("turn_result"), timeout))


def json_of_cell(kernel: KernelHarness, code: str) -> dict[str, Any]:
    """Run ``code`` (it must succeed); the JSON object its last output line prints."""
    result = kernel.execute(code)
    assert result.status == "ok", result.text
    return dict(json.loads(result.text.strip().splitlines()[-1]))


def opened_state(result: ExecResult, model_id: str) -> dict[str, Any]:
    """The state a widget was opened with (its ``comm_open`` message)."""
    for msg in result.comm_msgs:
        if msg["msg_type"] == "comm_open" and msg["content"]["comm_id"] == model_id:
            state: dict[str, Any] = msg["content"]["data"]["state"]
            return state
    raise AssertionError(f"no comm_open for {model_id}")


def execute_notebook(
    nb: Any, cwd: Path, log: Path, env: Mapping[str, str] | None = None, timeout_s: int = 120
) -> None:
    """Run notebook ``nb`` (an nbformat node, outputs filled in place) top to bottom with
    nbclient in a real kernel started in ``cwd`` (no frontend: ``%%agent`` cells block and
    approvals go by policy); the kernel's stderr goes to ``log``. Raises on a failing cell."""
    from nbclient import NotebookClient

    manager = KernelManager(kernel_name="python3")
    with log.open("w") as stderr:
        manager.start_kernel(cwd=str(cwd), env={**os.environ, **(env or {})}, stderr=stderr)
        client = NotebookClient(nb, km=manager, timeout=timeout_s)
        try:
            client.execute()
        finally:
            if client.kc is not None:  # nbclient leaves a client it did not start open
                client.kc.stop_channels()
            manager.shutdown_kernel(now=True)
            manager.cleanup_resources()
