"""The visual family's executor: local workers that have matplotlib and librsvg loaded.

A plain worker's view shows the standard library and the packages it preloads, not the
virtual environment's site-packages. The chart runner needs matplotlib and numpy, so
`PlottingExecutor` binds the directories they are imported from read-only into its workers'
views and puts them on their ``sys.path`` (as TritonKernel's executor does for torch), and its
workers preload the chart runner and the renderer: a step forks a process that has both.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from codegym.executor.local import LocalExecutor, site_directories
from codegym.executor.registry import PerProcess

RENDERER = "codegym.envs.visual.render"
PLOTTING = "codegym.envs.visual.plotting"
HEAVY = ("matplotlib", "numpy")

_shared: PerProcess[str, PlottingExecutor] = PerProcess()


class PlottingExecutor(LocalExecutor):
    """A `LocalExecutor` whose workers import matplotlib (Agg) and librsvg once, at start.

    Args:
        workers: Number of workers; one per core by default.
        preload: Further modules to import in every worker.
        **kwargs: Passed on to `LocalExecutor` (``isolation=``, ``launcher=``, ...).
    """

    def __init__(self, workers: int | None = None, *, preload: Iterable[str] = (), **kwargs: Any) -> None:
        self._paths = site_directories(HEAVY, needed_by="ChartFromImage", install="pip install 'codegym[visual]'")
        super().__init__(workers, preload=(PLOTTING, RENDERER, *preload), **kwargs)

    def _view(self) -> dict[str, Any]:
        view = super()._view()
        binds = [(path, path) for path in self._paths]
        return {**view, "binds": [*view["binds"], *binds], "python_path": self._paths}


def shared_executor() -> PlottingExecutor:
    """The process-wide plotting executor, started on first use, closed at exit."""
    return _shared.get("plotting", PlottingExecutor, stale=lambda e: e._closed)
