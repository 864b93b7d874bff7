"""Find the first occurrence.

Return the index of the first element of ``xs`` equal to ``target``, or -1 when there is
none.
"""


def index_of(xs: list[int], target: int) -> int:
    """
    post: -1 <= __return__ < len(xs)
    post: (__return__ == -1) == (target not in xs)
    post: __return__ == -1 or xs[__return__] == target
    post: target not in xs[: max(__return__, 0)]
    """
    for index, x in enumerate(xs):
        if x == target:
            return index
    return -1


# Examples
assert index_of([4, 2, 7, 2], 2) == 1
assert index_of([4, 2, 7], 5) == -1

# Hidden tests
assert index_of([], 1) == -1
assert index_of([1], 1) == 0
assert index_of([3, 3, 3], 3) == 0
assert index_of([5, 6, 7, 8], 8) == 3
assert index_of([-1, -2], -2) == 1
