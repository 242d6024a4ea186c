"""The shadow repository of one project: snapshots chained on one ref, in the data folder."""

from __future__ import annotations

import asyncio
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from zengine_jupyter.config import private_dir, write_private
from zengine_jupyter.host._process import RunOptions, open_process, run
from zengine_jupyter.host.checkpoint._count import FileLimit
from zengine_jupyter.host.checkpoint._entries import (
    exclude_text,
    parse_log_entry,
    write_if_changed,
)
from zengine_jupyter.host.checkpoint._expiry import find_moved
from zengine_jupyter.host.checkpoint._git import (
    CHECKPOINT_REF,
    ShadowPaths,
    git_argv,
    git_env,
    project_key,
)
from zengine_jupyter.host.checkpoint._lock import repository_lock
from zengine_jupyter.host.checkpoint._loose import (
    commit_date,
    commit_tree,
    fan_out,
    read_ref,
    write_commit,
    write_ref,
)
from zengine_jupyter.host.checkpoint._pack import store_first
from zengine_jupyter.host.checkpoint._scan import (
    MAX_FILES,
    Scan,
    classify,
    parse_status,
    read_index_count,
)
from zengine_jupyter.protocol import (
    CheckpointError,
    CheckpointInfo,
    CheckpointsOff,
    ProcessError,
)

if TYPE_CHECKING:
    import contextlib

__all__ = ["ShadowRepository", "unsafe_root_reason"]

_STATUS = (
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--no-renames",
    "--ignore-submodules=all",
)
_STATUS_CONFIG = (("status.showUntrackedFiles", "all"), ("status.renames", "false"))
# Highest-precedence attributes: store and restore bytes exactly, whatever .gitattributes says.
_ATTRIBUTES = "* -text !eol -filter -ident -working-tree-encoding\n"
_ALWAYS_EXCLUDED = ("/.z-engine/worktrees/",)


def unsafe_root_reason(root: Path) -> str | None:
    """Why ``root`` must not be checkpointed (a home folder or a filesystem root), else None."""
    if root == Path(root.anchor):
        return f"checkpoints are off: {root} is a filesystem root, not a project folder"
    if root == Path.home().resolve():
        return f"checkpoints are off: {root} is your home folder; open a project folder instead"
    return None


class ShadowRepository:
    """Snapshots of ``root`` kept in ``data_dir/checkpoints/<key>/``; the user's .git is never
    written. Calls on one project are serialised by a file lock across processes."""

    def __init__(self, root: Path, data_dir: Path, *, git: str = "git") -> None:
        self.root = root.resolve()
        self.paths = ShadowPaths(data_dir / "checkpoints" / project_key(self.root), self.root)
        self._git_program = git
        self._env = git_env(self.paths)
        self.last_steps: dict[str, float] = {}
        self.file_limit = FileLimit(MAX_FILES)
        """How long each step of the last snapshot took (for ``benchmarks/``)."""

    @property
    def git_program(self) -> str:
        return self._git_program

    @property
    def env(self) -> dict[str, str]:
        """The environment of every shadow git call."""
        return self._env

    # ------------------------------------------------------------------ git plumbing
    async def git(
        self,
        *args: str,
        stdin: bytes | None = None,
        config: tuple[tuple[str, str], ...] = (),
        check: bool = True,
        env: dict[str, str] | None = None,
    ) -> bytes:
        argv = git_argv(self.paths, *args, extra_config=config, git=self._git_program)
        options = RunOptions(cwd=self.root, env=env or self._env, stdin=stdin, timeout_s=600)
        try:
            done = await run(argv, options)
        except ProcessError as exc:
            raise CheckpointError(f"git {args[0]} failed for {self.root}: {exc}") from exc
        if check and not done.ok:
            err = done.stderr.decode("utf-8", "replace").strip()
            raise CheckpointError(
                f"git {args[0]} failed in the checkpoint repository of {self.root}: {err}",
                hint=f"the shadow repository is {self.paths.git_dir}; removing it resets "
                "checkpoints for this project (your files are not affected)",
            )
        return done.stdout

    async def _ensure_initialised(self) -> None:
        git_dir = self.paths.git_dir
        if not (git_dir / "HEAD").exists():
            private_dir(git_dir)
            no_work_tree = {k: v for k, v in self._env.items() if k != "GIT_WORK_TREE"}
            # --shared=0600: git makes its files 0600 and folders 0700 whatever the umask
            await self.git(
                "init", "--quiet", "--bare", "--shared=0600", str(git_dir), env=no_work_tree
            )
            await self.git("config", "core.bare", "false")
            await self.git("symbolic-ref", "HEAD", CHECKPOINT_REF)
            private_dir(git_dir / "info")
            write_private(git_dir / "info" / "attributes", _ATTRIBUTES)
            # which project this is, for `zengine checkpoints gc` over every repository
            write_private(git_dir / "zengine-project", str(self.root))
        if not (git_dir / "objects" / "ff").is_dir():  # new, or after retention's gc
            await asyncio.to_thread(fan_out, git_dir)  # 256 mkdirs: not on the event loop
        self._write_if_changed(self.paths.exclude_file, self._exclude_text())

    def _exclude_text(self) -> str:
        return exclude_text(self.root, _ALWAYS_EXCLUDED)

    @staticmethod
    def _write_if_changed(path: Path, text: str) -> None:
        write_if_changed(path, text)

    # ------------------------------------------------------------------ snapshot
    async def snapshot(self, message: str) -> CheckpointInfo | CheckpointsOff:
        """Store the project's files now. Unchanged files cost only a stat."""
        reason = unsafe_root_reason(self.root)
        if reason is not None:
            return CheckpointsOff(reason=reason, kind="unsafe_root")
        async with repository_lock(self.paths.lock_file):
            return await self.snapshot_locked(message)

    async def snapshot_locked(self, message: str) -> CheckpointInfo | CheckpointsOff:
        """:meth:`snapshot` for a caller that already holds :attr:`lock`."""
        self.last_steps = {}
        started = time.perf_counter()
        if read_index_count(self.paths.index_file) == 0:
            # nothing stored yet: count (and stop) before git walks it all, once per chat
            over = await asyncio.to_thread(self.file_limit.over, self.root, self._exclude_text())
            self.last_steps["count"] = time.perf_counter() - started
            scan = None if over else await self._scan_initialised()
        else:
            scan = await self._scan_initialised()
        self.last_steps["scan"] = time.perf_counter() - started
        if scan is None:
            return CheckpointsOff(
                kind="too_many_files",
                reason=f"checkpoints are off: {self.root} has more than "
                f"{MAX_FILES:,} files (not counting ignored ones); add big folders "
                "to .gitignore to turn them back on",
            )
        return await self._commit(scan, message)

    async def _scan_initialised(self) -> Scan | None:
        await self._ensure_initialised()
        return await self._scan()

    def lock(self) -> contextlib.AbstractAsyncContextManager[None]:
        """The repository's inter-process lock (restore holds it across snapshot and writes)."""
        return repository_lock(self.paths.lock_file)

    async def _scan(self) -> Scan | None:
        """Status of the work tree against the shadow index; None past MAX_FILES files."""
        stored = read_index_count(self.paths.index_file)
        budget, look = MAX_FILES - stored, stored > 0
        scan = Scan()
        argv = git_argv(self.paths, *_STATUS, extra_config=_STATUS_CONFIG, git=self._git_program)
        async with open_process(argv, RunOptions(cwd=self.root, env=self._env)) as proc:
            assert proc.stdout is not None
            pending = b""
            while chunk := await proc.stdout.read(1 << 16):
                head, _, pending = (pending + chunk).rpartition(b"\0")
                classify(parse_status(head), self.root, scan, look=look)
                if scan.untracked > budget:
                    return None
            classify(parse_status(pending), self.root, scan, look=look)
            if await proc.wait() != 0:
                raise CheckpointError(f"git status failed in {self.root}")
        return None if scan.untracked > budget else scan

    async def _commit(self, scan: Scan, message: str) -> CheckpointInfo:
        started = time.perf_counter()
        scan.not_stored.sort(key=lambda n: n.path)  # one order, whichever step found them
        tree: str | None = None
        if read_index_count(self.paths.index_file) == 0 and scan.update:
            # the first snapshot (or the first after an empty one): one pack with its trees,
            # our own index
            stored = await store_first(self, scan.update)
            scan.not_stored = sorted([*scan.not_stored, *stored.not_stored], key=lambda n: n.path)
            self.last_steps.update(stored.steps)
            tree = stored.tree
        else:
            await self._update_index(scan)
            self.last_steps["update-index"] = time.perf_counter() - started
        if tree is None:
            started = time.perf_counter()
            tree = (await self.git("write-tree")).decode().strip()
            self.last_steps["write-tree"] = time.perf_counter() - started
        started = time.perf_counter()
        head = await self._read_head()  # under the lock: another process may have moved it
        if head is not None and head[1] == tree:
            previous = await self.get(head[0])
            if previous.not_stored == scan.not_stored:
                return previous
        now = datetime.now(UTC).replace(microsecond=0)
        count = read_index_count(self.paths.index_file)
        body = {
            "file_count": count,
            "not_stored": [n.model_dump(exclude_none=True) for n in scan.not_stored],
        }
        text = f"{message.strip() or 'checkpoint'}\n\nzengine: {json.dumps(body)}\n"
        commit_id = await self._write_commit(tree, head[0] if head else None, text, now)
        self.last_steps["commit"] = time.perf_counter() - started
        return CheckpointInfo(
            id=commit_id,
            message=message.strip() or "checkpoint",
            created=now,
            file_count=count,
            not_stored=scan.not_stored,
        )

    async def _update_index(self, scan: Scan) -> None:
        if scan.remove:
            # deleted, behind a folder that became a symlink, or now too large (the file is
            # left alone): dropped from the snapshot first, so a folder replaced by a file
            # (or a symlink) is no conflict for the additions
            await self.git(
                "update-index", "--force-remove", "-z", "--stdin", stdin=_nul_join(scan.remove)
            )
        if scan.update:
            await self.git(
                "update-index", "--add", "--remove", "-z", "--stdin", stdin=_nul_join(scan.update)
            )

    async def _write_commit(self, tree: str, parent: str | None, text: str, now: datetime) -> str:
        """Commit ``tree`` on the checkpoint ref (in Python; git when a date is in a form
        only git parses)."""
        env, stamp = self._env, int(now.timestamp())
        author = commit_date(env, "GIT_AUTHOR_DATE", stamp)
        committer = commit_date(env, "GIT_COMMITTER_DATE", stamp)
        if author is None or committer is None:
            parents = ["-p", parent] if parent else []
            out = await self.git("commit-tree", tree, *parents, "-F", "-", stdin=text.encode())
            commit_id = out.decode().strip()
            await self.git("update-ref", CHECKPOINT_REF, commit_id, *([parent] if parent else []))
            return commit_id
        lines = [f"tree {tree}", *([f"parent {parent}"] if parent else [])]
        lines.append(f"author {env['GIT_AUTHOR_NAME']} <{env['GIT_AUTHOR_EMAIL']}> {author}")
        lines.append(
            f"committer {env['GIT_COMMITTER_NAME']} <{env['GIT_COMMITTER_EMAIL']}> {committer}"
        )
        commit_id = write_commit(self.paths.git_dir, ("\n".join(lines) + "\n\n" + text).encode())
        write_ref(self.paths.git_dir, CHECKPOINT_REF, commit_id)
        return commit_id

    async def _read_head(self) -> tuple[str, str] | None:
        """(commit, tree) of the checkpoint ref, or None before the first snapshot."""
        commit = read_ref(self.paths.git_dir, CHECKPOINT_REF)
        if commit is None:
            return None
        tree = commit_tree(self.paths.git_dir, commit)
        if tree is not None:
            return commit, tree
        out = await self.git(
            "rev-parse", f"{CHECKPOINT_REF}^{{commit}}", f"{CHECKPOINT_REF}^{{tree}}",
            check=False,
        )  # fmt: skip
        lines = out.decode().split()
        if len(lines) != 2 or not all(len(x) == 40 for x in lines):
            return None
        return lines[0], lines[1]

    # ------------------------------------------------------------------ reading
    async def list(self) -> list[CheckpointInfo]:
        """Every snapshot, newest first."""
        if not (self.paths.git_dir / "HEAD").exists():
            return []
        if not (await self.git("rev-parse", "-q", "--verify", CHECKPOINT_REF, check=False)):
            return []
        out = await self.git("log", "--format=%H%x1f%ct%x1f%B%x1e", CHECKPOINT_REF)
        return [
            parse_log_entry(e) for e in out.decode("utf-8", "replace").split("\x1e") if e.strip()
        ]

    async def get(self, checkpoint_id: str) -> CheckpointInfo:
        """One snapshot by id (a full or unique abbreviated commit id)."""
        if not checkpoint_id or not all(c in "0123456789abcdef" for c in checkpoint_id):
            raise CheckpointError(f"{checkpoint_id!r} is not a checkpoint id")
        out = await self.git(
            "log", "-1", "--format=%H%x1f%ct%x1f%B%x1e", f"{checkpoint_id}^{{commit}}", "--",
            check=False,
        )  # fmt: skip
        if not out.strip():
            moved = await find_moved(self, checkpoint_id)  # retention re-created or removed it
            if moved is not None:
                return await self.get(moved)
            raise CheckpointError(
                f"no checkpoint {checkpoint_id} for {self.root}",
                hint="list them with `zengine checkpoints list SESSION`",
            )
        return parse_log_entry(out.decode("utf-8", "replace").split("\x1e")[0])


def _nul_join(paths: list[str]) -> bytes:
    return b"".join(os.fsencode(p) + b"\0" for p in paths)
