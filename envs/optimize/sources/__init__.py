"""Public efficiency data sets as Optimize tasks, read from their files as published (JSON
array, JSONL, gzipped JSONL) or from their rows in memory (dicts, a ``datasets.Dataset``):

- `load_pie`: PIE (Shypula, Madaan et al., "Learning Performance-Improving Code Edits"), pairs
  of a slow and a faster accepted CodeNet submission, with each problem's tests in a folder
  of their own (``<tests>/<problem_id>/input.N.txt`` and ``output.N.txt``) or in memory.
  Benchmarked on the hidden tests (PIE has no generator).
- `load_effibench`: EffiBench (Huang et al. 2024), LeetCode problems whose tests are
  ``assert solution.<method>(...) == ...`` lines: each becomes a call with literal arguments.
- `load_mercury`: Mercury (Du et al. 2024), LeetCode problems with accepted solutions and
  their runtimes, JSON test cases and a test case generator, which becomes the task's.

EffiBench's and Mercury's problems become function tasks (``entry_point``: the ``Solution``
method). Their programs ran in their sets' harnesses after imports the programs leave out
(``List``, ``defaultdict``, ``heappush``, ...): each program gets the imports of the names it
uses from the same scope, so that it runs alone. Rows that cannot become tasks (too few tests,
arguments that are linked lists or trees, results judged other than by ``==``) are left out
with a logged warning; a source with nothing else fails with the first row's reason. A row
that breaks its set's format (a missing field, a field of the wrong type) fails the load,
naming the row (``FILE:LINE`` or ``row N``), the field and the format.
"""

from __future__ import annotations

from codegym.envs.optimize.sources.leetcode import load_effibench, load_mercury
from codegym.envs.optimize.sources.pie import load_pie
from codegym.envs.optimize.sources.rows import SkippedRow

__all__ = ["SkippedRow", "load_effibench", "load_mercury", "load_pie"]
