"""KernelVariables learns data (issue 23): arrays and Series show their first rows when they
hold numbers, booleans or dates; text stays hidden as the security issue requires."""

from __future__ import annotations

import numpy as np
import pandas as pd

from zengine_jupyter.kernel._namespace import ARRAY_CHARS, describe_namespace

KEY = "sk-test-FAKEKEY0123456789abcdefXYZ"


def test_a_numeric_array_shows_shape_dtype_and_its_first_rows() -> None:
    text = describe_namespace({"grid": np.arange(100).reshape(50, 2)})
    assert text.startswith("grid: ndarray shape (50, 2) dtype int64\n  first 5 rows: array(")
    assert "[8, 9]" in text
    assert "[10, 11]" not in text  # the sixth row is not shown


def test_a_big_array_preview_is_capped() -> None:
    text = describe_namespace({"stack": np.random.default_rng(0).random((20, 300, 300))})
    assert "first 1 rows" in text
    assert len(text) < ARRAY_CHARS + 200


def test_dates_and_booleans_show_text_arrays_do_not() -> None:
    days = np.array(["2026-01-01", "2026-01-02"], dtype="datetime64[D]")
    text = describe_namespace({"days": days, "mask": np.array([True, False]),
                               "keys": np.array([KEY, "x"]),
                               "objs": np.array([KEY, 1], dtype=object)})  # fmt: skip
    assert "2026-01-01" in text
    assert "True, False" in text
    assert KEY not in text
    assert "keys: ndarray shape (2,) dtype <U34 (values not shown: not numbers)" in text
    assert "objs: ndarray shape (2,) dtype object (values not shown" in text


def test_a_series_shows_numbers_and_masks_text() -> None:
    rates = pd.Series([1.5, 2.5, 3.5], name="rate")
    notes = pd.Series([KEY, "short"], index=["a", KEY])
    text = describe_namespace({"rates": rates, "notes": notes})
    assert "rates: Series length 3 dtype float64\n  0: 1.5\n  1: 2.5\n  2: 3.5" in text
    assert KEY not in text
    assert "<str len 34>: <str len 5>" in text


def test_a_frame_keeps_shape_dtypes_and_first_rows() -> None:
    frame = pd.DataFrame({"rate": [1.5, 2.5], "who": [KEY, "b"]})
    text = describe_namespace({"frame": frame})
    assert text.startswith("frame: DataFrame shape (2, 2)\n  dtypes: rate: float64, who: ")
    assert "1.5" in text
    assert KEY not in text
