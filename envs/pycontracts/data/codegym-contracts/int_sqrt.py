"""Integer square root.

Return the largest integer whose square is at most ``n``, for ``0 <= n <= 10**6``.
"""

import math


def int_sqrt(n: int) -> int:
    """
    pre: 0 <= n <= 10**6
    post: __return__ >= 0
    post: __return__ * __return__ <= n
    post: (__return__ + 1) * (__return__ + 1) > n
    """
    return math.isqrt(n)


# Examples
assert int_sqrt(17) == 4
assert int_sqrt(16) == 4

# Hidden tests
assert int_sqrt(0) == 0
assert int_sqrt(1) == 1
assert int_sqrt(2) == 1
assert int_sqrt(99) == 9
assert int_sqrt(10**6) == 1000
assert int_sqrt(10**6 - 1) == 999
