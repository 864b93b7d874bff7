"""Wrappers that reshape rewards and drive curricula (they read ``info``, never re-run code)."""

from __future__ import annotations
