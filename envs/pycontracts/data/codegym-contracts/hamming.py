"""Hamming distance.

``a`` and ``b`` have the same length. Return at how many positions their characters differ.
"""


def hamming(a: str, b: str) -> int:
    """
    pre: len(a) == len(b)
    post: 0 <= __return__ <= len(a)
    post: (__return__ == 0) == (a == b)
    post: __return__ == sum(1 for x, y in zip(a, b) if x != y)
    """
    return sum(x != y for x, y in zip(a, b, strict=True))


# Examples
assert hamming("karolin", "kathrin") == 3
assert hamming("", "") == 0

# Hidden tests
assert hamming("a", "a") == 0
assert hamming("a", "b") == 1
assert hamming("abc", "cba") == 2
assert hamming("1011101", "1001001") == 2
assert hamming("AAAA", "aaaa") == 4
