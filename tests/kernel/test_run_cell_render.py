"""What the model reads of a RunCell run: each part capped by ``[kernel]`` settings, images
only for a model that takes them, a trimmed traceback, the bound and the rewind caveat."""

from __future__ import annotations

import struct

from zengine_jupyter.config import KernelSettings
from zengine_jupyter.kernel._cell_output import html_text, image_of, reduce_bundle
from zengine_jupyter.kernel._run_cell import NOT_REWOUND, TRACEBACK_LINES, render_result
from zengine_jupyter.protocol import CellError, CellImage, CellRunResult

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + struct.pack(">II", 640, 480) + b"\x00" * 64
LIMITS = KernelSettings(output_chars=1_000, image_max_bytes=10_000, max_images=2)


def _png(size: int = len(PNG)) -> CellImage:
    return CellImage(media_type="image/png", data=PNG + b"\x00" * (size - len(PNG)),
                     width=640, height=480)  # fmt: skip


def test_long_output_keeps_its_start_and_end_and_says_what_was_left_out() -> None:
    result = CellRunResult(where="headless", stdout="A" * 5_000 + "THE END")
    text, _ = render_result(result, LIMITS, True, 120)
    assert "THE END" in text
    assert "characters left out" in text
    assert len(text) < 1_500
    assert text.endswith(NOT_REWOUND)


def test_images_go_only_to_a_model_that_takes_them_and_within_the_caps() -> None:
    result = CellRunResult(where="headless", images=[_png(), _png(20_000), _png(), _png()])
    text, images = render_result(result, LIMITS, True, 120)
    assert len(images) == 2
    assert "image 1 attached: png 640x480" in text
    assert "over [kernel] image_max_bytes (10,000)" in text
    assert "over [kernel] max_images (2)" in text
    text, images = render_result(result, LIMITS, False, 120)
    assert images == ()
    assert "4 image(s) not sent (this model takes no images)" in text
    _, images = render_result(result, LIMITS, None, 120)
    assert images == ()


def test_an_error_keeps_the_last_traceback_lines_and_the_bound_is_named() -> None:
    frames = "\n".join(f"frame {n}" for n in range(100))
    error = CellError(name="KeyboardInterrupt", value="", traceback=frames)
    result = CellRunResult(where="headless", error=error, timed_out=True, duration_s=2.0)
    text, _ = render_result(result, LIMITS, True, 2)
    assert "frame 99" in text
    assert "frame 10\n" not in text
    assert f"({100 - TRACEBACK_LINES} traceback lines above left out)" in text
    assert "Stopped at the 2 s bound: KeyboardInterrupt was raised" in text


def test_bundles_become_text_or_images() -> None:
    html = "<style>x{}</style><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr>"
    assert html_text(html) == "a\tb\n1\t2"
    assert reduce_bundle({"text/html": html}) == ("a\tb\n1\t2", None)
    text, image = reduce_bundle({"text/plain": "<Figure size 640x480>", "image/png": PNG})
    assert text is None
    assert image is not None
    assert (image.width, image.height) == (640, 480)
    jpeg = b"\xff\xd8\xff\xc0\x00\x11\x08" + struct.pack(">HH", 300, 200) + b"\x00" * 20
    found = image_of("image/jpeg", jpeg)
    assert found is not None
    assert (found.width, found.height) == (200, 300)
