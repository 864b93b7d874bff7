"""Sum of squares.

Return ``1*1 + 2*2 + ... + n*n`` for ``0 <= n <= 1000`` (0 when ``n`` is 0).
"""


def sum_of_squares(n: int) -> int:
    """
    pre: 0 <= n <= 1000
    post: __return__ >= n
    post: 6 * __return__ == n * (n + 1) * (2 * n + 1)
    """
    return sum(i * i for i in range(1, n + 1))


# Examples
assert sum_of_squares(3) == 14
assert sum_of_squares(0) == 0

# Hidden tests
assert sum_of_squares(1) == 1
assert sum_of_squares(2) == 5
assert sum_of_squares(10) == 385
assert sum_of_squares(100) == 338350
assert sum_of_squares(1000) == 333833500
