"""Python values (with pandas and NumPy ones among them) as JSON bytes for the linter."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

#: Deeper than any trace nests; past it a value is refused rather than a stack overflowed.
MAX_DEPTH = 256


def _plain(value: Any, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise ValueError(f"a value nests deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        # NaN is how a DataFrame says "missing".
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, Mapping):
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v, depth + 1) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    kind = type(value).__name__
    if kind in ("NAType", "NaTType"):
        return None
    if hasattr(value, "isoformat"):
        # datetime, pandas Timestamp.
        return value.isoformat()
    if hasattr(value, "tolist"):
        # NumPy arrays and scalars, pandas Series.
        return _plain(value.tolist(), depth + 1)
    if hasattr(value, "item"):
        return _plain(value.item(), depth + 1)
    return str(value)


def to_json_bytes(value: Any) -> bytes:
    """``value`` as UTF-8 JSON; NaN, NaT and pandas' NA become ``null``, timestamps ISO 8601."""
    return json.dumps(_plain(value, 0), ensure_ascii=False, allow_nan=False).encode("utf-8")
