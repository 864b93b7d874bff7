"""The server's counters and latency histograms, rendered as Prometheus text (``GET /metrics``)."""

from __future__ import annotations

import bisect
import threading
from collections import Counter
from collections.abc import Callable

# Latency buckets (seconds): a tool call or a Python test run takes milliseconds, a repository's
# suite or a kernel benchmark tens of seconds.
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)


class Metrics:
    """Counters, gauges read when rendered, and histograms; safe from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: Counter[tuple[str, str]] = Counter()  # (route, code)
        self.grades: Counter[tuple[str, str]] = Counter()  # (env id, status)
        self.ws_messages: Counter[str] = Counter()  # message type
        self.busy: Counter[str] = Counter()  # what was refused
        self._latency: dict[str, list[int]] = {}  # route -> bucket counts (+Inf last)
        self._latency_sum: dict[str, float] = {}
        self.gauges: dict[str, Callable[[], float]] = {}

    def request(self, route: str, code: int, seconds: float) -> None:
        with self._lock:
            self.requests[(route, str(code))] += 1
            self._observe(route, seconds)

    def observe(self, route: str, seconds: float) -> None:
        with self._lock:
            self._observe(route, seconds)

    def grade(self, env_id: str, status: str, count: int = 1) -> None:
        with self._lock:
            self.grades[(env_id, status)] += count

    def count(self, counter: Counter[str], key: str) -> None:
        with self._lock:
            counter[key] += 1

    def _observe(self, route: str, seconds: float) -> None:
        counts = self._latency.setdefault(route, [0] * (len(BUCKETS) + 1))
        counts[bisect.bisect_left(BUCKETS, seconds)] += 1
        self._latency_sum[route] = self._latency_sum.get(route, 0.0) + seconds

    def render(self) -> str:
        """The Prometheus text exposition of every metric."""
        with self._lock:
            lines = _counter("codegym_requests_total", "HTTP requests by route and status code",
                             {f'route="{r}",code="{c}"': n for (r, c), n in self.requests.items()})  # fmt: skip
            lines += _counter("codegym_grades_total", "Grades by env and status",
                              {f'env_id="{e}",status="{s}"': n for (e, s), n in self.grades.items()})  # fmt: skip
            lines += _counter("codegym_ws_messages_total", "WebSocket messages by type",
                              {f'type="{t}"': n for t, n in self.ws_messages.items()})  # fmt: skip
            lines += _counter("codegym_busy_total", "Requests refused as busy (503 / WebSocket busy)",
                              {f'what="{w}"': n for w, n in self.busy.items()})  # fmt: skip
            lines += self._histogram()
        for name, read in sorted(self.gauges.items()):
            lines += [f"# TYPE {name} gauge", f"{name} {read():g}"]
        return "\n".join(lines) + "\n"

    def _histogram(self) -> list[str]:
        name = "codegym_request_duration_seconds"
        lines = [f"# HELP {name} Latency of requests and env operations", f"# TYPE {name} histogram"]
        for route, counts in sorted(self._latency.items()):
            total = 0
            for bound, count in zip((*BUCKETS, float("inf")), counts, strict=True):
                total += count
                le = "+Inf" if bound == float("inf") else f"{bound:g}"
                lines.append(f'{name}_bucket{{route="{route}",le="{le}"}} {total}')
            lines += [f'{name}_sum{{route="{route}"}} {self._latency_sum[route]:.6f}',
                      f'{name}_count{{route="{route}"}} {total}']  # fmt: skip
        return lines


def _counter(name: str, help_text: str, values: dict[str, int]) -> list[str]:
    lines = [f"# HELP {name} {help_text}", f"# TYPE {name} counter"]
    return lines + [f"{name}{{{labels}}} {count}" for labels, count in sorted(values.items())]
