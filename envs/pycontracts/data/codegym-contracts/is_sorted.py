"""Is the list sorted?

Return whether ``xs`` is in non-decreasing order (each element at most the next).
"""


def is_sorted(xs: list[int]) -> bool:
    """
    post: len(xs) > 1 or __return__
    post: not __return__ or xs[:1] == sorted(xs)[:1]
    post: __return__ == all(xs[i] <= xs[i + 1] for i in range(len(xs) - 1))
    """
    return all(xs[i] <= xs[i + 1] for i in range(len(xs) - 1))


# Examples
assert is_sorted([1, 2, 2, 5]) is True
assert is_sorted([3, 1]) is False

# Hidden tests
assert is_sorted([]) is True
assert is_sorted([4]) is True
assert is_sorted([5, 5, 5]) is True
assert is_sorted([1, 3, 2]) is False
assert is_sorted([-3, -2, 0, 9]) is True
