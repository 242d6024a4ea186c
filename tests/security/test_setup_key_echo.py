"""Attack: make the setup view echo a pasted key back (house rule 6)."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from zengine_jupyter.engine import setup_store_key
from zengine_jupyter.protocol import ZengineError

KEY = "sk-ant-api03-echo-me-back-9f8e7d6c"


@pytest.mark.parametrize("url", [KEY, f"https://{KEY}", f"http://x:{KEY}@/v1"])
async def test_a_key_pasted_into_the_url_field_is_not_echoed_in_the_error(url: str) -> None:
    """Attack: key echo through an error. The user pastes the key into the URL field (or a page
    fills it so); storing the key then fails on the URL, and the error that goes back over the
    wire (and into logs) must not quote the key."""
    with pytest.raises(ZengineError) as caught:
        await setup_store_key("compatible", url, SecretStr(KEY))
    text = f"{caught.value.message} {caught.value.hint} {caught.value}"
    assert KEY not in text
    assert "[redacted]" in text or "URL" in text
