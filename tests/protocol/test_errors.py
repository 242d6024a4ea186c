from __future__ import annotations

import pytest

from zengine_jupyter import protocol
from zengine_jupyter.protocol import ComponentMissingError, ConfigError, ZengineError


def test_every_error_derives_from_the_root() -> None:
    errors = [
        v for v in vars(protocol).values() if isinstance(v, type) and issubclass(v, Exception)
    ]
    assert errors, "protocol exports no errors"
    for err in errors:
        assert issubclass(err, ZengineError)
        assert not issubclass(ZengineError, BaseException) or issubclass(err, Exception)


def test_the_tree_is_documented_in_one_docstring() -> None:
    doc = protocol._errors.__doc__ or ""
    for name in protocol._errors.__all__:
        assert name in doc, f"{name} is missing from the error tree docstring"


def test_hint_says_what_to_do_next() -> None:
    err = ComponentMissingError("bwrap", install="apt-get install -y bubblewrap")
    assert str(err) == "bwrap is not installed (install it with: apt-get install -y bubblewrap)"
    with pytest.raises(ZengineError, match=r"settings\.toml"):
        raise ConfigError("settings.toml: unknown key 'x'")
