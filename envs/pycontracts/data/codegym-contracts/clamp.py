"""Clamp a number into a range.

Return ``x`` limited to the closed range from ``lo`` to ``hi`` (``lo <= hi``): ``lo`` when
``x`` is below the range, ``hi`` when it is above it, and ``x`` itself when it lies inside.
"""


def clamp(x: int, lo: int, hi: int) -> int:
    """
    pre: lo <= hi
    post: lo <= __return__ <= hi
    post: (lo <= x <= hi) == (__return__ == x)
    post: x >= lo or __return__ == lo
    """
    return max(lo, min(x, hi))


# Examples
assert clamp(5, 0, 10) == 5
assert clamp(-3, 0, 10) == 0

# Hidden tests
assert clamp(11, 0, 10) == 10
assert clamp(0, 0, 0) == 0
assert clamp(-7, -10, -5) == -7
assert clamp(100, -1, 1) == 1
assert clamp(4, 4, 9) == 4
