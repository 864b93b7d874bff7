"""Rotate a list.

Return ``xs`` rotated left by ``k`` places (``k >= 0``): the element at index ``k`` comes
first, and the first ``k`` elements move to the end. A rotation by the length of the list
gives it back unchanged.
"""


def rotate_left(xs: list[int], k: int) -> list[int]:
    """
    pre: k >= 0
    post: len(__return__) == len(xs)
    post: sorted(__return__) == sorted(xs)
    post: not xs or __return__[0] == xs[k % len(xs)]
    """
    if not xs:
        return []
    k %= len(xs)
    return xs[k:] + xs[:k]


# Examples
assert rotate_left([1, 2, 3, 4, 5], 2) == [3, 4, 5, 1, 2]
assert rotate_left([1, 2, 3], 3) == [1, 2, 3]

# Hidden tests
assert rotate_left([], 4) == []
assert rotate_left([7], 100) == [7]
assert rotate_left([1, 2], 1) == [2, 1]
assert rotate_left([1, 2, 3], 0) == [1, 2, 3]
assert rotate_left([1, 2, 3], 7) == [2, 3, 1]
