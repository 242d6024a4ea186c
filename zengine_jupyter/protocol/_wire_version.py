"""The one wire version and comm target, without pydantic (``%load_ext`` reads them).

Every message on the panel's comm (``_wire.py``) and every custom widget message
(``_widget_wire.py``) carries ``v`` = :data:`WIRE_VERSION`. The panel's TypeScript gets it from
the generated ``labextension/src/protocol.ts``; the widgets' ESM gets it from
``kernel/_esm.py``, which prepends ``const WIRE = <this number>;``. Change it here only.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = ["COMM_TARGET", "WIRE_VERSION", "WireVersion"]

COMM_TARGET: Final = "zengine"
"""The comm target the kernel registers on ``%load_ext zengine``."""

WireVersion = Literal[1]
"""The type of ``v`` in every wire model: :data:`WIRE_VERSION` and nothing else."""
WIRE_VERSION: Final[WireVersion] = 1
