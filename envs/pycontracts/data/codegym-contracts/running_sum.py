"""Running totals.

Return the list whose ``i``-th element is the sum of the first ``i + 1`` elements of ``xs``.
"""


def running_sum(xs: list[int]) -> list[int]:
    """
    post: len(__return__) == len(xs)
    post: __return__[:1] == xs[:1]
    post: all(__return__[i] - __return__[i - 1] == xs[i] for i in range(1, len(xs)))
    """
    total = 0
    sums = []
    for x in xs:
        total += x
        sums.append(total)
    return sums


# Examples
assert running_sum([1, 2, 3]) == [1, 3, 6]
assert running_sum([]) == []

# Hidden tests
assert running_sum([5]) == [5]
assert running_sum([1, -1, 1, -1]) == [1, 0, 1, 0]
assert running_sum([0, 0, 0]) == [0, 0, 0]
assert running_sum([10, 20, 30, 40]) == [10, 30, 60, 100]
assert running_sum([-3, -4]) == [-3, -7]
