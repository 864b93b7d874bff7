"""The median, rounded down.

Return the median of the non-empty list ``xs``: its middle element once sorted, or for an
even length the mean of the two middle elements rounded down.
"""


def median(xs: list[int]) -> int:
    """
    pre: len(xs) >= 1
    post: min(xs) <= __return__ <= max(xs)
    post: 2 * len([x for x in xs if x < __return__]) <= len(xs)
    post: 2 * len([x for x in xs if x > __return__]) <= len(xs)
    """
    ordered = sorted(xs)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) // 2


# Examples
assert median([3, 1, 2]) == 2
assert median([4, 1, 3, 2]) == 2

# Hidden tests
assert median([7]) == 7
assert median([1, 2]) == 1
assert median([-1, -2]) == -2
assert median([5, 5, 5, 5]) == 5
assert median([10, 2, 38, 23, 38, 23, 21]) == 23
