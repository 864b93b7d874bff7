"""The family's executor: warm local workers with CrossHair (and Z3) already imported.

A worker's view masks the virtual environment's site-packages, and CrossHair lives there.
`ContractsExecutor` binds the folders that hold CrossHair and what it imports read-only into
the view and onto the workers' ``sys.path`` (as the TritonKernel family does for torch), and
preloads the runner, which imports CrossHair once per worker: a check then costs a fork, not
an interpreter start and CrossHair's import. The folder is the environment's site-packages,
so the sandbox shows its other packages too; the gate keeps the answer from reading any
file, and no task data lies there (codegym's own folders leave the view, as always).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from codegym.executor.local import LocalExecutor
from codegym.executor.local import site_directories as local_site_directories
from codegym.executor.registry import PerProcess

RUNNER = "codegym.envs.pycontracts.runner"
REPLAY = "codegym.envs.pycontracts.replay"
CANDIDATE = "codegym.envs.python_function.candidate"
HARNESS = "codegym.envs.python_function.harness"
PRELOAD = (CANDIDATE, HARNESS, REPLAY, RUNNER)
NEEDS = ("crosshair", "z3", "typeshed_client", "typing_inspect", "mypy_extensions", "typing_extensions", "packaging")

_shared: PerProcess[str, ContractsExecutor] = PerProcess()


def site_directories(modules: Iterable[str] = NEEDS) -> list[str]:
    """The directories CrossHair and its dependencies are imported from."""
    install = "pip install 'codegym[contracts]' (crosshair-tool)"
    return local_site_directories(modules, needed_by="the PyContracts family", install=install)


class ContractsExecutor(LocalExecutor):
    """A `LocalExecutor` whose workers import CrossHair once, at start.

    Args:
        workers: Number of workers; one per core by default.
        preload: Further modules to import in every worker.
        **kwargs: Passed on to `LocalExecutor`.
    """

    def __init__(self, workers: int | None = None, *, preload: Iterable[str] = (), **kwargs: Any) -> None:
        self._paths = site_directories()
        super().__init__(workers, preload=(*PRELOAD, *preload), **kwargs)

    def _view(self) -> dict[str, Any]:
        view = super()._view()
        binds = [(path, path) for path in self._paths]
        return {**view, "binds": [*view["binds"], *binds], "python_path": self._paths}


def shared_executor() -> ContractsExecutor:
    """The process-wide executor of the family, started on first use, closed at exit."""
    return _shared.get("local", ContractsExecutor, stale=lambda e: e._closed)
