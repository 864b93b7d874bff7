"""Count the small ones.

Return how many elements of ``xs`` are strictly less than ``k``.
"""


def count_less_than(xs: list[int], k: int) -> int:
    """
    post: 0 <= __return__ <= len(xs)
    post: (__return__ == len(xs)) == all(x < k for x in xs)
    post: (__return__ == 0) == all(x >= k for x in xs)
    """
    return sum(1 for x in xs if x < k)


# Examples
assert count_less_than([1, 5, 3, 8], 4) == 2
assert count_less_than([], 0) == 0

# Hidden tests
assert count_less_than([4, 4, 4], 4) == 0
assert count_less_than([1, 2, 3], 10) == 3
assert count_less_than([-5, 0, 5], 0) == 1
assert count_less_than([9, 1, 9, 1], 2) == 2
assert count_less_than([3], 4) == 1
