"""More bundled optimization tasks (the same form as ``definitions.py``)."""

from __future__ import annotations

TASKS: list[dict[str, object]] = []
