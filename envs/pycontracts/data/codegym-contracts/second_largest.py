"""The second-largest distinct value.

Return the largest value of ``xs`` that is smaller than its maximum. The list holds at least
two distinct values; the maximum may appear several times.
"""


def second_largest(xs: list[int]) -> int:
    """
    pre: len(set(xs)) >= 2
    post: __return__ in xs
    post: __return__ < max(xs)
    post: all(x <= __return__ or x == max(xs) for x in xs)
    """
    top = max(xs)
    return max(x for x in xs if x != top)


# Examples
assert second_largest([4, 1, 7, 3]) == 4
assert second_largest([5, 2]) == 2

# Hidden tests
assert second_largest([1, 2, 3, 4, 5]) == 4
assert second_largest([-1, -2, -3]) == -2
assert second_largest([10, 9, 8, 7]) == 9
assert second_largest([0, 100]) == 0
assert second_largest([6, 3, 6, 1]) == 3
