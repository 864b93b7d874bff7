"""Remove every occurrence of a value.

Return ``xs`` without the elements equal to ``value``, the others kept in order.
"""


def remove_value(xs: list[int], value: int) -> list[int]:
    """
    post: value not in __return__
    post: len(__return__) == len(xs) - xs.count(value)
    post: __return__ == [x for x in xs if x != value]
    """
    return [x for x in xs if x != value]


# Examples
assert remove_value([1, 2, 1, 3], 1) == [2, 3]
assert remove_value([4, 5], 6) == [4, 5]

# Hidden tests
assert remove_value([], 0) == []
assert remove_value([7, 7, 7], 7) == []
assert remove_value([0, 1, 0, 1], 0) == [1, 1]
assert remove_value([3, 2, 1], 3) == [2, 1]
assert remove_value([-1, 5, -1], 5) == [-1, -1]
