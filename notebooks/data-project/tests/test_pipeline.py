from pipeline import clean, load, revenue_by_region


def test_incomplete_rows_are_dropped() -> None:
    rows = clean(load())
    assert len(rows) == 9
    assert all(row["units"] for row in rows)


def test_revenue_by_region() -> None:
    totals = revenue_by_region(clean(load()))
    assert totals == {"south": 92.5, "north": 82.5, "east": 77.5, "west": 50.0}
    assert list(totals) == ["south", "north", "east", "west"]
