"""The family's executor: local workers whose view also shows the test environments.

Each library's tests need pytest and their own requirements, installed into the cache's
``env/`` folder (`codegym.envs.repo_repair.library.environment`). `RepoExecutor` binds that
folder read-only into its workers' views, and nothing else of the cache: the unpacked sources,
which hold the code before any bug, stay out of every sandbox.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from codegym.envs.repo_repair.library import Environment, Library, environment, environments_root

from codegym.agent import TOOL_MODULES
from codegym.executor import Harness, Job, Limits, Step
from codegym.executor.local import LocalExecutor
from codegym.executor.registry import PerProcess

RUNNER = "codegym.envs.repo_repair.runner"
HARNESS = "codegym.envs.repo_repair.harness"
MODULES = (RUNNER, HARNESS, *TOOL_MODULES)  # (the tools: agent episodes share the workers)

_shared: PerProcess[str, RepoExecutor] = PerProcess()


class RepoExecutor(LocalExecutor):
    """A `LocalExecutor` whose workers see the test environments (read-only) and preload
    the family's runner and harness.

    Args:
        workers: Number of workers; one per core by default.
        preload: Further modules to import in every worker.
        **kwargs: Passed on to `LocalExecutor`.
    """

    def __init__(self, workers: int | None = None, *, preload: Iterable[str] = (), **kwargs: Any) -> None:
        self._environments = str(environments_root())
        super().__init__(workers, preload=(*MODULES, *preload), **kwargs)
        self._extend_view()

    def ensure_preloaded(self, modules: Iterable[str]) -> None:
        generation = self.generation
        super().ensure_preloaded(modules)
        if self.generation != generation:
            self._extend_view()

    def _extend_view(self) -> None:
        binds = self.view["binds"]
        if (self._environments, self._environments) not in binds:
            self.view = {**self.view, "binds": [*binds, (self._environments, self._environments)]}


def shared_executor() -> RepoExecutor:
    """The process-wide executor of the family, started on first use, closed at exit."""
    return _shared.get(str(environments_root()), RepoExecutor, stale=lambda e: e._closed)


def suite_job(library: Library, files: Mapping[str, bytes], limits: Limits, *, timeout_s: float | None) -> Job:
    """The job that runs ``library``'s whole test suite in the tree ``files``, reporting to
    the harness (see `codegym.envs.repo_repair.runner`)."""
    env: Environment = environment(library)
    config = {
        "site": env.site,
        "python_path": list(library.python_path),
        "args": [*library.pytest_args, *library.tests],
        "timeout_s": timeout_s,
    }
    step = Step(argv=("python", "-m", RUNNER, json.dumps(config)), channel=True)
    harness = Harness(f"{HARNESS}:collect", json.dumps({"budget_s": limits.wall_s + 5.0}).encode())
    return Job(steps=(step,), files=files, limits=limits, harness=harness, preload=MODULES)
