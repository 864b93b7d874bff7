"""The most frequent value.

Return the value that occurs most often in the non-empty list ``xs``; when several occur
equally often, return the smallest of them.
"""


def mode(xs: list[int]) -> int:
    """
    pre: len(xs) >= 1
    post: __return__ in xs
    post: all(xs.count(x) <= xs.count(__return__) for x in xs)
    post: all(xs.count(x) < xs.count(__return__) or x >= __return__ for x in xs)
    """
    counts: dict[int, int] = {}
    for x in xs:
        counts[x] = counts.get(x, 0) + 1
    return min(counts, key=lambda x: (-counts[x], x))


# Examples
assert mode([4, 1, 4, 2]) == 4
assert mode([3, 1, 3, 1]) == 1

# Hidden tests
assert mode([7]) == 7
assert mode([5, 6, 7]) == 5
assert mode([2, 2, 9, 9, 9]) == 9
assert mode([-1, -1, 0, 0]) == -1
assert mode([8, 3, 8, 3, 3]) == 3
