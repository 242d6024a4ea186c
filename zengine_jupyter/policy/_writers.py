"""Which files a simple command names for writing, command by command.

A command's words are literal strings, or ``None`` where the shell would expand something at run
time (a variable, a command substitution). Each writer returns the paths it would write (as
written, relative to the command's directory; ``"."`` is that directory itself) or raises
:class:`CannotAnalyse`, which makes the gate ask. A command not listed here names no file for
writing: inside the sandbox it can only write where the sandbox lets it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["ASK_PROGRAMS", "WRITERS", "CannotAnalyse", "Word", "split_options"]

Word = str | None


class CannotAnalyse(Exception):
    """The command's writes cannot be known statically; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Parsed:
    options: list[tuple[str, str | None]]
    operands: list[Word]


def split_options(
    args: Sequence[Word], short_values: str = "", long_values: tuple[str, ...] = ()
) -> Parsed:
    """GNU-style options and operands; ``short_values`` letters and ``long_values`` take a value."""
    options: list[tuple[str, str | None]] = []
    operands: list[Word] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word is None:
            operands.append(None)
        elif word == "--":
            operands += list(args[i:])
            break
        elif word.startswith("--"):
            name, eq, value = word.partition("=")
            if not eq and name in long_values:
                if i >= len(args) or args[i] is None:
                    raise CannotAnalyse(f"{name} takes a value that cannot be known")
                value, i = args[i] or "", i + 1
            options.append((name, value if (eq or name in long_values) else None))
        elif word.startswith("-") and word != "-":
            for pos, letter in enumerate(word[1:], start=1):
                if letter in short_values:
                    value = word[pos + 1 :]
                    if not value:
                        if i >= len(args) or args[i] is None:
                            raise CannotAnalyse(f"-{letter} takes a value that cannot be known")
                        value, i = args[i] or "", i + 1
                    options.append((f"-{letter}", value))
                    break
                options.append((f"-{letter}", None))
        else:
            operands.append(word)
    return Parsed(options, operands)


def _opt(parsed: Parsed, *names: str) -> list[str | None]:
    return [value for name, value in parsed.options if name in names]


def _all_operands(
    short: str = "", long: tuple[str, ...] = ()
) -> Callable[[Sequence[Word]], list[Word]]:
    def writer(args: Sequence[Word]) -> list[Word]:
        return split_options(args, short, long).operands

    return writer


def _after_first(options: str) -> Callable[[Sequence[Word]], list[Word]]:
    """chmod MODE FILE..., chown OWNER FILE... (``--reference`` replaces the first operand).

    A chmod mode may look like an option (``-x``): only ``options`` letters are options.
    """

    def writer(args: Sequence[Word]) -> list[Word]:
        operands: list[Word] = []
        reference = False
        for word in args:
            if word is not None and word.startswith("--"):
                reference = reference or word.startswith("--reference")
            elif (
                word is not None
                and len(word) > 1
                and set(word[1:]) <= set(options)
                and word[0] == "-"
            ):
                continue
            else:
                operands.append(word)
        return operands if reference else operands[1:]

    return writer


def _rsync(args: Sequence[Word]) -> list[Word]:
    ops = split_options(
        args, "efT", ("--rsh", "--filter", "--exclude", "--include", "--temp-dir")
    ).operands
    dest = ops[-1] if len(ops) >= 2 else None
    if dest is not None and ":" in dest.split("/", 1)[0]:
        raise CannotAnalyse("rsync to another machine")
    return [dest] if len(ops) >= 2 else []


def _patch(args: Sequence[Word]) -> list[Word]:
    parsed = split_options(
        args,
        "dopiBDFrVYzgu",
        ("--directory", "--output", "--input", "--reject-file", "--prefix", "--suffix", "--strip"),
    )
    return [
        *(_opt(parsed, "-d", "--directory") or ["."]),
        *_opt(parsed, "-o", "--output", "-r", "--reject-file"),
    ]


def _copy_like(
    short: str, long: tuple[str, ...], *, sources_too: bool = False
) -> Callable[[Sequence[Word]], list[Word]]:
    """cp / mv / install / ln: the destination (``-t DIR`` or the last operand)."""

    def writer(args: Sequence[Word]) -> list[Word]:
        parsed = split_options(args, short + "t", (*long, "--target-directory"))
        target = _opt(parsed, "-t", "--target-directory")
        ops = parsed.operands
        if target:
            dest: list[Word] = list(target)
            sources = ops
        elif len(ops) >= 2:
            dest, sources = [ops[-1]], ops[:-1]
        else:
            dest, sources = ["."], ops
        return dest + (list(sources) if sources_too else [])

    return writer


def _sed(args: Sequence[Word]) -> list[Word]:
    parsed = split_options(args, "efl", ("--expression", "--file", "--line-length"))
    in_place = any(n in ("-i", "--in-place") for n, _ in parsed.options)
    if not in_place:
        return []
    has_script = any(n in ("-e", "-f", "--expression", "--file") for n, _ in parsed.options)
    return parsed.operands if has_script else parsed.operands[1:]


def _dd(args: Sequence[Word]) -> list[Word]:
    out: list[Word] = []
    for word in args:
        if word is None:
            raise CannotAnalyse("dd has an operand that cannot be known")
        if word.startswith("of="):
            out.append(word[3:])
    return out


def _truncate(args: Sequence[Word]) -> list[Word]:
    return split_options(args, "sr", ("--size", "--reference")).operands


def _curl(args: Sequence[Word]) -> list[Word]:
    parsed = split_options(
        args,
        "oHdXuAeEKbcrTwYyzmCx",
        (
            "--output",
            "--output-dir",
            "--data",
            "--header",
            "--request",
            "--user",
            "--config",
            "--cookie-jar",
            "--dump-header",
            "--trace",
            "--upload-file",
        ),
    )
    out: list[Word] = [
        *_opt(
            parsed,
            "-o",
            "--output",
            "--output-dir",
            "--cookie-jar",
            "-c",
            "--dump-header",
            "--trace",
        )
    ]
    if any(n in ("-O", "--remote-name", "--remote-name-all") for n, _ in parsed.options):
        out.append(".")
    return out


def _wget(args: Sequence[Word]) -> list[Word]:
    parsed = split_options(
        args, "OPoa", ("--output-document", "--directory-prefix", "--output-file")
    )
    named = _opt(
        parsed, "-O", "--output-document", "-P", "--directory-prefix", "-o", "--output-file", "-a"
    )
    return [w for w in named if w != "-"] or ["."]


def _tar(args: Sequence[Word]) -> list[Word]:
    words = list(args)
    if words and words[0] is not None and not words[0].startswith("-"):
        words[0] = "-" + words[0]  # old style: tar czf out.tgz dir
    parsed = split_options(
        words, "fCbTXg", ("--file", "--directory", "--exclude-from", "--files-from")
    )
    letters = {n for n, _ in parsed.options}
    if letters & {"-c", "-r", "-u", "-A", "--create", "--append", "--update"}:
        return [f for f in _opt(parsed, "-f", "--file") if f != "-"]
    if letters & {"-t", "--list", "-d", "--diff", "--compare"}:
        return []
    return list(_opt(parsed, "-C", "--directory")) or ["."]


def _unzip(args: Sequence[Word]) -> list[Word]:
    return list(_opt(split_options(args, "dx"), "-d")) or ["."]


def _find(args: Sequence[Word]) -> list[Word]:
    starts: list[Word] = []
    rest = list(args)
    while rest and (rest[0] is None or not rest[0].startswith(("-", "(", "!"))):
        starts.append(rest.pop(0))
    if any(w in ("-exec", "-execdir", "-ok", "-okdir") for w in rest):
        raise CannotAnalyse("find -exec runs commands whose writes cannot be known")
    writes: list[Word] = []
    if "-delete" in rest:
        writes += starts or ["."]
    for flag in ("-fprint", "-fprint0", "-fprintf", "-fls"):
        if flag in rest:
            idx = rest.index(flag) + 1
            writes.append(rest[idx] if idx < len(rest) else None)
    return writes


def _sort(args: Sequence[Word]) -> list[Word]:
    parsed = split_options(
        args, "kStTo", ("--key", "--field-separator", "--buffer-size", "--temporary-directory",
                        "--output", "--compress-program", "--files0-from", "--random-source",
                        "--batch-size", "--parallel"),
    )  # fmt: skip
    return _opt(parsed, "-o", "--output")


def _uniq(args: Sequence[Word]) -> list[Word]:
    """``uniq [IN [OUT]]``: OUT is written."""
    parsed = split_options(args, "fsw", ("--skip-fields", "--skip-chars", "--check-chars"))
    return parsed.operands[1:2]


def _tree(args: Sequence[Word]) -> list[Word]:
    return _opt(split_options(args, "oLPIHT", ("--filelimit", "--timefmt")), "-o")


def _python(args: Sequence[Word]) -> list[Word]:
    words = list(args)
    if len(words) >= 3 and words[0] == "-m" and words[1] == "venv":
        return split_options(words[2:], "", ("--prompt",)).operands
    return []


def _pip(args: Sequence[Word]) -> list[Word]:
    parsed = split_options(
        args,
        "trcefi",
        (
            "--target",
            "--prefix",
            "--root",
            "--requirement",
            "--constraint",
            "--editable",
            "--find-links",
            "--index-url",
            "--extra-index-url",
            "--src",
            "--cache-dir",
            "--log",
        ),
    )
    if any(n == "--user" for n, _ in parsed.options):
        raise CannotAnalyse("pip install --user writes to the user's site-packages")
    return [*_opt(parsed, "-t", "--target", "--prefix", "--root")]


def _npm(args: Sequence[Word]) -> list[Word]:
    if any(w in ("-g", "--global", "--location=global") for w in args):
        raise CannotAnalyse("a global npm install writes outside the project")
    return []


ASK_PROGRAMS: dict[str, str] = {
    "eval": "eval runs a string built at run time",
    "source": "source runs a file whose commands are not seen here",
    ".": ". runs a file whose commands are not seen here",
    "sudo": "sudo runs a command as another user",
    "doas": "doas runs a command as another user",
    "su": "su runs a command as another user",
    "xargs": "xargs builds commands from its input",
    "parallel": "parallel builds commands from its input",
    "pushd": "pushd changes the directory in a way that is not followed",
    "popd": "popd changes the directory in a way that is not followed",
    "alias": "alias changes what later words mean",
    "perl": "perl -i edits are not analysed",
    "awk": "awk can write files named inside its program",
    "gawk": "awk can write files named inside its program",
    "watch": "watch runs its arguments through a shell",
    "ed": "an editor script can write any file",
    "ex": "an editor script can write any file",
    "vi": "an editor script can write any file",
    "vim": "an editor script can write any file",
    "nvim": "an editor script can write any file",
    "emacs": "an editor script can write any file",
    "chroot": "chroot changes what paths mean",
}

WRITERS: dict[str, Callable[[Sequence[Word]], list[Word]]] = {
    "rm": _all_operands(),
    "rmdir": _all_operands(),
    "unlink": _all_operands(),
    "shred": _all_operands("nsu", ("--iterations", "--size", "--random-source")),
    "touch": _all_operands("drt", ("--date", "--reference")),
    "mkdir": _all_operands("m", ("--mode", "--context")),
    "mkfifo": _all_operands("m", ("--mode",)),
    "tee": _all_operands(),
    "truncate": _truncate,
    "chmod": _after_first("cfvR"),
    "chown": _after_first("cfvRhHLP"),
    "chgrp": _after_first("cfvRhHLP"),
    "rsync": _rsync,
    "patch": _patch,
    "cp": _copy_like("S", ("--suffix",)),
    "install": _copy_like("mogS", ("--mode", "--owner", "--group", "--suffix")),
    "ln": _copy_like("S", ("--suffix",)),
    "mv": _copy_like("S", ("--suffix",), sources_too=True),
    "sed": _sed,
    "dd": _dd,
    "curl": _curl,
    "wget": _wget,
    "tar": _tar,
    "unzip": _unzip,
    "find": _find,
    "sort": _sort,
    "uniq": _uniq,
    "tree": _tree,
    "python": _python,
    "python3": _python,
    "pip": _pip,
    "pip3": _pip,
    "npm": _npm,
}
