"""A gitignore matcher: ``.gitignore`` files, ``.git/info/exclude`` and the user's global
excludes (``_git_global.py``), as git reads them.

Patterns are translated to regular expressions once per file. A folder's rules are its
own ``.gitignore`` stacked on its parents' (deeper files win; inside a file the last
matching line wins; ``info/exclude`` counts as the least specific). Matching a name costs
one regex call per ``.gitignore`` in scope, so a walk pays little for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zengine_jupyter.host._git_global import global_excludes_text

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "FolderMatcher",
    "IgnoreFile",
    "IgnoreRules",
    "compile_gitignore",
    "translate_pattern",
]


def translate_pattern(glob: str) -> str:
    """The regex body for a gitignore glob (no leading ``!`` or trailing ``/``)."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "*":
            if glob.startswith("**", i):
                before_ok = i == 0 or glob[i - 1] == "/"
                after = glob[i + 2 : i + 3]
                if before_ok and after == "/":
                    out.append("(?:.*/)?")
                    i += 3
                    continue
                if before_ok and after == "":
                    out.append(".*")
                    i += 2
                    continue
                out.append("[^/]*")
                i += 2
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = glob.find("]", i + 2 if glob[i + 1 : i + 2] in ("!", "^") else i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = glob[i + 1 : j]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class _Rule:
    regex: str
    """The whole pattern, matched against a path relative to the file's folder."""
    negated: bool
    dir_only: bool
    name: str
    """The last segment's regex, matched against an entry's name."""
    glob: str
    """The last segment as written (for the literal / ``*suffix`` fast path)."""
    folder: re.Pattern[str] | None
    """Which folders (relative to the file's folder: "" for itself, else ``a/b/``) the name
    part applies in; None: every folder (a pattern without a slash)."""


def _folder_regex(dir_part: str, *, below: bool) -> re.Pattern[str]:
    """Matches the folders (``""`` or ``a/b/``, relative to the ignore file) the rule's last
    segment applies in; ``below``: in those folders and every folder under them."""
    body = translate_pattern(dir_part + "/") if dir_part else ""
    return re.compile(body + ("(?:.*/)?" if below else ""))


def _parse(text: str) -> list[_Rule]:
    rules: list[_Rule] = []
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if not line or line.startswith("#"):
            continue
        while line.endswith(" ") and not line.endswith("\\ "):
            line = line[:-1]
        if not line:
            continue
        negated = line.startswith("!")
        if negated or line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        body = translate_pattern(line)
        regex = body if anchored else "(?:.*/)?" + body
        dir_part, _, last = line.rpartition("/")
        name = ".*" if last == "**" else translate_pattern(last)
        if last == "**":  # everything below the folder part, at any depth
            folder = _folder_regex(dir_part, below=True) if dir_part else None
        else:
            folder = _folder_regex(dir_part, below=False) if anchored else None
        rules.append(_Rule(regex, negated, dir_only, name, last, folder))
    return rules


@dataclass(frozen=True)
class IgnoreFile:
    """The rules of one ignore file, relative to ``base`` (a ``/``-joined prefix, "" at the root).

    ``match`` answers True (ignored), False (re-included by ``!``) or None (no rule applies).
    """

    base: str
    _files: re.Pattern[str] | None
    _dirs: re.Pattern[str] | None
    _negated: frozenset[str]
    rules: tuple[_Rule, ...] = ()

    def match(self, rel: str, is_dir: bool) -> bool | None:
        pattern = self._dirs if is_dir else self._files
        if pattern is None:
            return None
        m = pattern.fullmatch(rel)
        if m is None:
            return None
        return m.lastgroup not in self._negated


def compile_gitignore(text: str, base: str = "") -> IgnoreFile | None:
    """Compile one ignore file's text; None when it holds no rules."""
    rules = _parse(text)
    if not rules:
        return None
    negated: set[str] = set()
    dirs: list[str] = []
    files: list[str] = []
    # The last matching line wins: alternatives are tried in reverse order.
    for index in range(len(rules) - 1, -1, -1):
        rule = rules[index]
        name = f"r{index}"
        if rule.negated:
            negated.add(name)
        alt = f"(?P<{name}>{rule.regex}(?:/.*)?)"
        dirs.append(alt)
        if not rule.dir_only:
            files.append(alt)
        else:
            # a dir-only rule still covers files below a matching folder
            files.append(f"(?P<{name}f>{rule.regex}/.*)")
            if rule.negated:
                negated.add(f"{name}f")
    return IgnoreFile(
        base,
        re.compile("|".join(files)) if files else None,
        re.compile("|".join(dirs)),
        frozenset(negated),
        tuple(rules),
    )


@dataclass(frozen=True)
class FolderMatcher:
    """The rules for the entries of one folder, matched on names alone.

    ``files`` / ``dirs`` are None when no rule can apply; a match whose group is in
    ``negated`` means re-included.
    """

    files: re.Pattern[str] | None
    dirs: re.Pattern[str] | None
    negated: frozenset[str]
    lines: re.Pattern[str] | None = None
    """``files``, but matching whole lines of a newline-joined list of names."""
    literals: frozenset[str] | None = None
    suffixes: tuple[str, ...] = ()
    """Set instead of ``lines`` when every file rule is a plain name or ``*suffix`` (the
    common case, ``!keep.log`` included): set and ``str.endswith`` operations find the names
    some rule names; with a negated rule among them, ``files`` then decides each of those few
    (the last matching line wins), never the whole folder's list."""

    def ignored_files(self, names: list[str]) -> set[str]:
        """Which of ``names`` (files) are ignored: set operations, else one regex pass."""
        if self.files is None:
            return set()
        if self.literals is not None:
            hits = set(self.literals.intersection(names))
            if self.suffixes:
                # only the suffixes some name ends with (a substring search each: most
                # folders have none, and a name-by-name test cost as much as the stats)
                joined = "\n".join(names) + "\n"
                ends = tuple(end for end in self.suffixes if end + "\n" in joined)
                if ends:
                    hits.update([name for name in names if name.endswith(ends)])
            if self.negated and hits:
                return {name for name in hits if self.ignored(name, False)}
            return hits
        joined = "\n".join(names)
        if self.lines is None or joined.count("\n") != len(names) - 1:
            # a name holds a newline: match one by one
            return {name for name in names if self.ignored(name, False)}
        return {m.group(0) for m in self.lines.finditer(joined) if m.lastgroup not in self.negated}

    def ignored(self, name: str, is_dir: bool) -> bool:
        pattern = self.dirs if is_dir else self.files
        if pattern is None:
            return False
        m = pattern.fullmatch(name)
        return m is not None and m.lastgroup not in self.negated


_NOTHING = FolderMatcher(None, None, frozenset())
_WILD = re.compile(r"[*?\[\\]")
_MATCHERS: dict[tuple[_Rule, ...], FolderMatcher] = {}


def _matcher(rules: tuple[_Rule, ...]) -> FolderMatcher:
    """One regex per entry kind for ``rules`` (highest priority first), cached."""
    if not rules:
        return _NOTHING
    found = _MATCHERS.get(rules)
    if found is not None:
        return found
    files: list[str] = []
    dirs: list[str] = []
    negated: set[str] = set()
    for index, rule in enumerate(rules):
        group = f"g{index}"
        alt = f"(?P<{group}>{rule.name})"
        dirs.append(alt)
        if not rule.dir_only:
            files.append(alt)
        if rule.negated:
            negated.add(group)
    lines = "|".join(files).replace("[^/]", "[^/\n]")
    file_rules = [r for r in rules if not r.dir_only]
    simple = all(_WILD.search(r.glob.removeprefix("*")) is None for r in file_rules)
    matcher = FolderMatcher(
        re.compile("|".join(files)) if files else None,
        re.compile("|".join(dirs)),
        frozenset(negated),
        None if simple or not files else re.compile(f"^(?:{lines})$", re.MULTILINE),
        frozenset(r.glob for r in file_rules if not r.glob.startswith("*")) if simple else None,
        tuple(r.glob[1:] for r in file_rules if r.glob.startswith("*")) if simple else (),
    )
    if len(_MATCHERS) > 4096:
        _MATCHERS.clear()
    _MATCHERS[rules] = matcher
    return matcher


class IgnoreRules:
    """The ignore files in scope for one folder of a walk, innermost first."""

    __slots__ = ("_chain",)

    def __init__(self, chain: tuple[IgnoreFile, ...] = ()) -> None:
        self._chain = chain

    @classmethod
    def for_root(cls, root: Path) -> IgnoreRules:
        """The root's rules: the root ``.gitignore`` over ``.git/info/exclude`` over the
        user's global excludes (``core.excludesFile``, as checkpoints honour them)."""
        chain: list[IgnoreFile] = []
        for path in (root / ".gitignore", root / ".git" / "info" / "exclude"):
            compiled = _read(path, "")
            if compiled is not None:
                chain.append(compiled)
        compiled = compile_gitignore(global_excludes_text(), "")
        if compiled is not None:
            chain.append(compiled)
        return cls(tuple(chain))

    def descend(self, folder: Path, rel: str) -> IgnoreRules:
        """The rules inside ``folder`` (at ``rel``): its own ``.gitignore`` on top of these."""
        compiled = _read(folder / ".gitignore", rel + "/")
        if compiled is None:
            return self
        return IgnoreRules((compiled, *self._chain))

    @property
    def empty(self) -> bool:
        return not self._chain

    def folder(self, prefix: str) -> FolderMatcher:
        """The matcher for the entries of the folder at ``prefix`` ("" or ``a/b/``).

        Entries are matched by name: the walk never enters an ignored folder, so a rule
        about a parent folder never needs to be checked again below it.
        """
        applicable: list[_Rule] = []
        for ignore_file in self._chain:
            where = prefix[len(ignore_file.base) :]  # "" or "a/b/"
            for rule in reversed(ignore_file.rules):  # the last line wins
                if rule.folder is None or rule.folder.fullmatch(where):
                    applicable.append(rule)
        return _matcher(tuple(applicable))

    def ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether ``rel`` (root-relative, ``/``-joined) is ignored, its folders not being so."""
        parent, _, name = rel.rpartition("/")
        return self.folder(parent + "/" if parent else "").ignored(name, is_dir)


def _read(path: Path, base: str) -> IgnoreFile | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return compile_gitignore(text, base)
