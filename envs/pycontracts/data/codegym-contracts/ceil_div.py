"""Division rounded up.

Return ``a / b`` rounded up to the nearest integer (towards positive infinity), for any
integer ``a`` and a positive integer ``b``.
"""


def ceil_div(a: int, b: int) -> int:
    """
    pre: b >= 1
    post: __return__ * b >= a
    post: (__return__ - 1) * b < a
    """
    return -(-a // b)


# Examples
assert ceil_div(7, 2) == 4
assert ceil_div(6, 3) == 2

# Hidden tests
assert ceil_div(0, 5) == 0
assert ceil_div(1, 5) == 1
assert ceil_div(-7, 2) == -3
assert ceil_div(-6, 3) == -2
assert ceil_div(10**9 + 1, 10**9) == 2
