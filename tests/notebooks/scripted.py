"""The scripted model behind the committed cassettes (notebooks/cassettes/*.jsonl).

No real model is reachable where these were made, so each notebook's cassette is recorded
from a live run against the local provider server (``ProviderServer``, OpenAI wire format)
answering with these replies, in request order. ``scripts/record-cassettes`` re-records
them; tests/notebooks/test_record.py checks that recording reproduces the committed ones.
To record from a real model instead: ``zengine cassette record notebooks/NAME.ipynb`` with a
key (or ZENGINE_BASE_URL) set.
"""

from __future__ import annotations

from zengine_jupyter.testing import Reply, ScriptedToolCall

__all__ = ["NOTE", "SCRIPTS"]

NOTE = "scripted: recorded from the local provider server answering tests/notebooks/scripted.py"


def _call(name: str, **arguments: object) -> ScriptedToolCall:
    return ScriptedToolCall(name, arguments)


_REGION_RETURN = "    return dict(sorted(totals.items(), key=lambda item: -item[1]))\n"
_BY_PRODUCT = '''

def revenue_by_product(rows: list[dict[str, object]]) -> dict[str, float]:
    """Total revenue per product, largest first."""
    totals: dict[str, float] = defaultdict(float)
    for row in rows:
        totals[str(row["product"])] += float(row["revenue"])  # type: ignore[arg-type]
    return dict(sorted(totals.items(), key=lambda item: -item[1]))
'''
_LAST_ASSERT = '    assert list(totals) == ["south", "north", "east", "west"]\n'
_PRODUCT_TEST = """

def test_revenue_by_product() -> None:
    from pipeline import revenue_by_product

    totals = revenue_by_product(clean(load()))
    assert totals == {"gadget": 120.0, "widget": 107.5, "gizmo": 75.0}
"""
_ANALYSIS_CELL = (
    "by_product = pipeline.revenue_by_product(rows)\n"
    "for product, revenue in by_product.items():\n"
    '    print(f"{product:<7} {revenue:8.2f}")'
)

DATA_PROJECT = [
    Reply(
        text=("I'll read the pipeline, its tests and the analysis notebook first.",),
        tool_calls=(
            _call("Read", path="pipeline.py"),
            _call("Read", path="tests/test_pipeline.py"),
            _call("Read", path="analysis.ipynb"),
        ),
    ),
    Reply(
        text=("Adding `revenue_by_product` next to `revenue_by_region`, with a test.",),
        tool_calls=(
            _call(
                "Edit",
                path="pipeline.py",
                old_string=_REGION_RETURN,
                new_string=_REGION_RETURN + _BY_PRODUCT,
            ),
            _call(
                "Edit",
                path="tests/test_pipeline.py",
                old_string=_LAST_ASSERT,
                new_string=_LAST_ASSERT + _PRODUCT_TEST,
            ),
        ),
    ),
    Reply(
        text=("Showing it in the analysis notebook.",),
        tool_calls=(
            _call(
                "NotebookEdit",
                path="analysis.ipynb",
                mode="insert",
                index=3,
                cell_type="code",
                source=_ANALYSIS_CELL,
            ),
        ),
    ),
    Reply(
        text=("Now the project's checks: the tests and the analysis notebook.",),
        tool_calls=(_call("Verify"),),
    ),
    Reply(
        text=(
            "Done: `pipeline.revenue_by_product` totals revenue per product (gadget 120.00, "
            "widget 107.50, gizmo 75.00), `tests/test_pipeline.py` tests it, and "
            "`analysis.ipynb` prints it. Verify ran pytest (3 passed) and re-executed the "
            "analysis notebook: both pass.",
        ),
    ),
]

_GREET_RETURN = '    return f"Hello, {name}!"\n'
_SHOUT = '''

def shout(name: str) -> str:
    """The greeting, in capitals."""
    return greet(name).upper()
'''
_GREET_TEST = "from greet import greet\n\n\ndef test_greet() -> None:\n" + (
    '    assert greet("Ada") == "Hello, Ada!"\n'
)
_SHOUT_TEST = _GREET_TEST.replace("import greet", "import greet, shout") + (
    '\n\ndef test_shout() -> None:\n    assert shout("Ada") == "HELLO, ADA!"\n'
)
_EDIT_GREET = _call("Edit", path="greet.py", old_string=_GREET_RETURN,
                    new_string=_GREET_RETURN + _SHOUT)  # fmt: skip

QUICKSTART = [
    Reply(text=("Let me look at greet.py first.",), tool_calls=(_call("Read", path="greet.py"),)),
    Reply(text=("Adding `shout` below `greet`.",), tool_calls=(_EDIT_GREET,)),
    Reply(
        text=(
            "I was not allowed to edit greet.py, so nothing changed. Allow the edit (or run "
            "the cell with --yes) and I will add `shout`.",
        ),
    ),
    Reply(
        text=("Adding `shout`, and reading the tests to add one for it.",),
        tool_calls=(_call("Read", path="tests/test_greet.py"), _EDIT_GREET),
    ),
    Reply(
        tool_calls=(
            _call(
                "Edit", path="tests/test_greet.py", old_string=_GREET_TEST, new_string=_SHOUT_TEST
            ),
        ),
    ),
    Reply(
        text=(
            "Added `shout(name)` to greet.py (the greeting in capitals) and `test_shout` to "
            "tests/test_greet.py. I have not run the tests.",
        ),
    ),
]

_KM_RETURN = "    return km / KM_PER_MILE\n"
_MILES_TO_KM = '''

def miles_to_km(miles: float) -> float:
    """Miles in kilometres."""
    return miles * KM_PER_MILES
'''

INTEGRATIONS = [
    Reply(
        text=("Checking what the units server offers, and what convert.py has.",),
        tool_calls=(
            _call("mcp__units__list_units"),
            _call("Read", path="convert.py"),
            _call("LSP", operation="document_symbols", path="convert.py"),
        ),
    ),
    Reply(
        text=("Asking the server for the factor, then adding `miles_to_km`.",),
        tool_calls=(
            _call("mcp__units__convert", value=26.2, from_unit="mile", to_unit="km"),
            _call(
                "Edit",
                path="convert.py",
                old_string=_KM_RETURN,
                new_string=_KM_RETURN + _MILES_TO_KM,
            ),
        ),
    ),
    Reply(
        text=("The language server reports `KM_PER_MILES` is undefined: a typo. Fixing it.",),
        tool_calls=(
            _call(
                "Edit",
                path="convert.py",
                old_string="miles * KM_PER_MILES",
                new_string="miles * KM_PER_MILE",
            ),
        ),
    ),
    Reply(
        text=(
            "Added `miles_to_km` to convert.py. The units server says 26.2 miles is 42.16 km, "
            "which `miles_to_km(26.2)` now matches; the language server reports no errors.",
        ),
    ),
]

_OUTSIDE = 'echo hello > ~/zengine-outside.txt; echo "exit status $?"'
_NETWORK = (
    "python3 -c \"import socket; socket.create_connection(('pypi.org', 443), timeout=5)\" "
    '2>&1 | tail -n 1; echo "exit status ${PIPESTATUS[0]}"'
)

SAFETY = [
    Reply(tool_calls=(_call("Read", path="notes.txt"), _call("Read", path="secrets.txt"))),
    Reply(
        text=(
            "notes.txt: ship the quarterly report on Friday, Ada reviews the charts. "
            "secrets.txt: I could not read it, a deny rule of this project blocks it.",
        ),
    ),
    Reply(tool_calls=(_call("Bash", command="rm notes.txt"),)),
    Reply(
        text=(
            "In plan mode I can read and propose, not change anything, so notes.txt is still "
            "there. To delete it: `rm notes.txt`.",
        ),
    ),
    Reply(
        tool_calls=(
            _call("Bash", command=_OUTSIDE),
            _call("Bash", command=_NETWORK),
        ),
    ),
    Reply(
        text=(
            "Both commands ran without asking (the project's allow rule applies now that the "
            "folder is trusted). Their output above shows what the sandbox did: writing to your "
            "home folder (outside the project) and connecting to pypi.org both failed.",
        ),
    ),
]

SCRIPTS: dict[str, list[Reply]] = {
    "safety": SAFETY,
    "integrations": INTEGRATIONS,
    "quickstart": QUICKSTART,
    "data-project": DATA_PROJECT,
}
