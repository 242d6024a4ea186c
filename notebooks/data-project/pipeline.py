"""A small sales pipeline: load the CSV, drop incomplete rows, total revenue by region."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

DATA = Path(__file__).parent / "data" / "sales.csv"


def load(path: Path = DATA) -> list[dict[str, str]]:
    """The rows of the sales CSV, as dictionaries of strings."""
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def clean(rows: list[dict[str, str]]) -> list[dict[str, object]]:
    """Rows with every field present, numbers parsed and a revenue column added."""
    cleaned: list[dict[str, object]] = []
    for row in rows:
        if not all(row.values()):
            continue
        units = int(row["units"])
        price = float(row["unit_price"])
        cleaned.append({**row, "units": units, "unit_price": price, "revenue": units * price})
    return cleaned


def revenue_by_region(rows: list[dict[str, object]]) -> dict[str, float]:
    """Total revenue per region, largest first."""
    totals: dict[str, float] = defaultdict(float)
    for row in rows:
        totals[str(row["region"])] += float(row["revenue"])  # type: ignore[arg-type]
    return dict(sorted(totals.items(), key=lambda item: -item[1]))
