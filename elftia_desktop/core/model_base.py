"""The base of every model: camelCase JSON names (the original app's), snake_case attributes."""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class CamelModel(BaseModel):
    """Base: camelCase JSON names, snake_case attributes, either accepted on input."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, validate_assignment=False)

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON shape of the original app: camelCase keys, unset optionals left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class OpenCamelModel(CamelModel):
    """A model that keeps fields it does not know (written by a newer version)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


def now_ms() -> int:
    """Milliseconds since the epoch, the original timestamps' unit."""
    return int(time.time() * 1000)
