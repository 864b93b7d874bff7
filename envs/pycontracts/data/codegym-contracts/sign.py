"""The sign of a number.

Return -1 when ``x`` is negative, 1 when it is positive, and 0 when it is zero.
"""


def sign(x: int) -> int:
    """
    post: __return__ in (-1, 0, 1)
    post: (__return__ > 0) == (x > 0)
    post: (__return__ == 0) == (x == 0)
    """
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0


# Examples
assert sign(12) == 1
assert sign(-3) == -1

# Hidden tests
assert sign(0) == 0
assert sign(1) == 1
assert sign(-1) == -1
assert sign(10**12) == 1
assert sign(-(10**12)) == -1
