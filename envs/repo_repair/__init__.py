"""Repository repair: real pure-Python libraries with a bug injected procedurally into their source
(:mod:`codegym.envs.repo_repair.mutations`), kept when some of the library's own tests go from pass
to fail; the agent gets the failing behaviour and returns a fix (being built; not registered yet)."""

from __future__ import annotations
