"""Repository repair (``codegym/RepoRepair-v1``): real pure-Python libraries with a bug injected
procedurally into their source (:mod:`codegym.envs.repo_repair.mutations`), kept when some of
the library's own tests go from pass to fail; the agent gets the failing behaviour and returns
a fix, as a diff or through tools in the repository (see :mod:`codegym.envs.repo_repair.env`)."""

from __future__ import annotations

from gymnasium.envs.registration import register

register(
    id="codegym/RepoRepair-v1",
    entry_point="codegym.envs.repo_repair.env:RepoRepairEnv",
    kwargs={"tasks": "bundled"},
)
