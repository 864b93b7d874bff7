"""Remove duplicates, keeping order.

Return the elements of ``xs`` without repeats: each value once, at the place where it first
appears.
"""


def dedupe(xs: list[int]) -> list[int]:
    """
    post: len(set(__return__)) == len(__return__)
    post: set(__return__) == set(xs)
    post: all(xs.index(a) < xs.index(b) for a, b in zip(__return__, __return__[1:]))
    """
    seen = set()
    kept = []
    for x in xs:
        if x not in seen:
            seen.add(x)
            kept.append(x)
    return kept


# Examples
assert dedupe([3, 1, 3, 2, 1]) == [3, 1, 2]
assert dedupe([]) == []

# Hidden tests
assert dedupe([1, 1, 1]) == [1]
assert dedupe([5, 4, 3]) == [5, 4, 3]
assert dedupe([2, 2, 3, 3, 2]) == [2, 3]
assert dedupe([-1, 0, -1, 0, 1]) == [-1, 0, 1]
assert dedupe([7]) == [7]
