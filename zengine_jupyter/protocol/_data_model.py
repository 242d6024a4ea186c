"""The base of every pydantic model the engine defines.

A model's validator and serializer are built the first time it is used, not when its class is
defined (``defer_build``): a first ``%%agent`` turn uses about 50 of the ~170 models, and
building all of them cost a tenth of it (issue 25). Subclasses' own ``model_config`` is merged
with this one, so they keep the setting.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["DataModel"]


class DataModel(BaseModel):
    """:class:`pydantic.BaseModel`, built on first use."""

    model_config = ConfigDict(defer_build=True)
