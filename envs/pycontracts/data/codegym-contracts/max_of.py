"""The largest number of a list.

Return the largest element of the non-empty list ``xs``.
"""


def max_of(xs: list[int]) -> int:
    """
    pre: len(xs) >= 1
    post: __return__ in xs
    post: all(x <= __return__ for x in xs)
    """
    best = xs[0]
    for x in xs[1:]:
        best = max(best, x)
    return best


# Examples
assert max_of([3, 9, 2]) == 9
assert max_of([-4]) == -4

# Hidden tests
assert max_of([1, 1, 1]) == 1
assert max_of([-5, -2, -9]) == -2
assert max_of([0, 10**9, 5]) == 10**9
assert max_of([7, 6, 5, 4]) == 7
assert max_of([2, 8, 8, 1]) == 8
