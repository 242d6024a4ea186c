"""A child process that runs one turn, saying when a tool starts, so a test can SIGKILL it
in the middle of a tool call: ``python -m zengine_jupyter.testing.session_child PROJECT PROMPT``.

It prints ``SESSION <id>`` first and ``STARTED <call id>`` when a tool call starts.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
from zengine_jupyter.protocol import ToolCallStarted


async def _main(project: Path, prompt: str) -> None:
    session = await Session.open(
        SessionOptions(project=project, approvals=FixedApprovals(allow=True))
    )
    sys.stdout.write(f"SESSION {session.id}\n")
    sys.stdout.flush()
    events = session.subscribe()

    async def watch() -> None:
        async for event in events:
            if isinstance(event, ToolCallStarted):
                sys.stdout.write(f"STARTED {event.call_id}\n")
                sys.stdout.flush()

    watcher = asyncio.create_task(watch())
    try:
        await session.submit(prompt)
    finally:
        await session.aclose()
        await watcher


if __name__ == "__main__":
    asyncio.run(_main(Path(sys.argv[1]), sys.argv[2]))
