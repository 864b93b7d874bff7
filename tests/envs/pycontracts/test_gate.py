"""The gate in front of CrossHair: every way to reach the checker from the answer's code is
refused with its line; honest answers, and the same words where they do no harm, are not."""

from __future__ import annotations

import pytest
from codegym.envs.pycontracts.gate import check

BODY = "def f(xs: list[int]) -> int:\n    return len(xs)\n"
CHEATS = {
    "a directive": ("# crosshair: off\n" + BODY, "CrossHair directive", 1),
    "a directive in the body": (
        BODY.replace("    return", "    # crosshair: max_iterations=1\n    return"),
        "CrossHair directive",
        2,
    ),
    "importing crosshair": ("import crosshair\n" + BODY, "import of crosshair", 1),
    "importing from crosshair": ("from crosshair import core\n" + BODY, "import from crosshair", 1),
    "importing sys": ("import sys\n" + BODY, "import of sys", 1),
    "importing builtins": ("from builtins import open\n" + BODY, "import from builtins", 1),
    "a module reached through another": ("import typing\nS = typing.sys\n" + BODY, "typing.sys", 2),
    "a module imported from another": ("from collections import abc\n" + BODY, "collections.abc", 1),
    "a module as a value": ("import math\nm = math\n" + BODY, "module math used as a value", 2),
    "a reflective member": ("import operator\ng = operator.attrgetter('x')\n" + BODY, "operator.attrgetter", 2),
    "strings evaluated as code": ("from typing import get_type_hints\n" + BODY, "typing.get_type_hints", 1),
    "a dunder attribute": (BODY.replace("len(xs)", "().__class__.__base__"), "dunder", 2),
    "a private attribute": ("import re\nC = re._compiler\n" + BODY, "._compiler", 2),
    "a frame": (BODY.replace("len(xs)", "(x for x in xs).gi_frame.f_back"), ".gi_frame", 2),
    "eval": (BODY.replace("len(xs)", "eval('1')"), "eval", 2),
    "getattr": (BODY.replace("len(xs)", "getattr(xs, 'count')(1)"), "getattr", 2),
    "type": (BODY.replace("len(xs)", "type(xs)"), "type", 2),
    "globals": (BODY.replace("len(xs)", "globals()"), "globals", 2),
    "assigning __name__": ("__name__ = 'x'\n" + BODY, "dunder name __name__", 1),
    "a class": ("class Same:\n    pass\n" + BODY, "class definition", 1),
    "a dunder method": ("def __eq__(a, b):\n    return True\n" + BODY, "dunder name __eq__", 1),
    "patching a module": ("import math\nmath.sqrt = abs\n" + BODY, "assigning or deleting the attribute", 2),
    "a format string": (BODY.replace("len(xs)", "'{0.real}'.format(xs)"), "str.format", 2),
    "a dunder in a string": (BODY.replace("len(xs)", "len('__class__')"), "spells a dunder", 2),
    "a contract of its own": (
        'def f(xs: list[int]) -> int:\n    """\n    post: True\n    """\n    return 0\n',
        "PEP 316 contract line",
        2,
    ),
    "a star import": ("from math import *\n" + BODY, "import *", 1),
    "a relative import": ("from . import solution\n" + BODY, "import from .", 1),
}


@pytest.mark.parametrize("name", CHEATS)
def test_each_way_to_the_checker_is_refused_with_its_line(name: str) -> None:
    code, construct, line = CHEATS[name]
    report = check(code, "f")
    assert not report.passed and report.unreadable is None
    assert any(construct in v.construct and v.line == line for v in report.violations), report.violations


def test_an_honest_answer_passes() -> None:
    code = (
        "import math\nfrom collections import Counter\nfrom functools import lru_cache\nfrom typing import List\n\n\n"
        "@lru_cache(maxsize=None)\ndef helper(n: int) -> int:\n    return math.isqrt(n)\n\n\n"
        'def f(xs: List[int]) -> int:\n    """Fixed where CrossHair found f([1])."""\n'
        "    counts = Counter(xs)  # the most common value (CrossHair: mind the ties)\n"
        "    best = max(counts, key=lambda x: (counts[x], -x), default=0)\n"
        "    return helper(abs(best)) + len(f'{best:>3}') + sum(x for x in xs if x % 2)\n\n\n"
        'if __name__ == "__main__":\n    print(f([1, 2, 2]))\n'
    )
    assert check(code, "f").passed


def test_an_answer_that_does_not_parse_or_lacks_the_function_cannot_be_read() -> None:
    assert "line 2: SyntaxError" in (check("def f(xs):\n    return (\n", "f").unreadable or "")
    assert "expected a function named `f`, found `g`" in (check("def g(xs):\n    return 0\n", "f").unreadable or "")
    nested = check("def outer():\n    def f():\n        return 0\n", "f").unreadable or ""
    assert "expected a function named `f`, found `outer`" in nested
