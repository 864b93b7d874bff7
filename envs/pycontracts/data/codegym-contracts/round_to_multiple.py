"""Round to the nearest multiple.

Return the multiple of ``m`` (``m >= 1``) nearest to ``x``. When ``x`` lies exactly halfway
between two multiples, return the larger one.
"""


def round_to_multiple(x: int, m: int) -> int:
    """
    pre: m >= 1
    post: __return__ % m == 0
    post: 2 * abs(__return__ - x) <= m
    post: 2 * (__return__ - x) != -m
    """
    return (x + m // 2) // m * m if m % 2 else (2 * x + m) // (2 * m) * m


# Examples
assert round_to_multiple(12, 5) == 10
assert round_to_multiple(13, 5) == 15

# Hidden tests
assert round_to_multiple(15, 10) == 20
assert round_to_multiple(-15, 10) == -10
assert round_to_multiple(-16, 10) == -20
assert round_to_multiple(7, 1) == 7
assert round_to_multiple(0, 3) == 0
assert round_to_multiple(-4, 3) == -3
assert round_to_multiple(5, 2) == 6
