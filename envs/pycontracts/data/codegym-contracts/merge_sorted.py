"""Merge two sorted lists.

Both ``a`` and ``b`` are sorted in non-decreasing order. Return one sorted list holding the
elements of both.
"""


def merge_sorted(a: list[int], b: list[int]) -> list[int]:
    """
    pre: all(a[i] <= a[i + 1] for i in range(len(a) - 1))
    pre: all(b[i] <= b[i + 1] for i in range(len(b) - 1))
    post: len(__return__) == len(a) + len(b)
    post: all(__return__[i] <= __return__[i + 1] for i in range(len(__return__) - 1))
    post: sorted(__return__) == sorted(a + b)
    """
    merged = []
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i] <= b[j]:
            merged.append(a[i])
            i += 1
        else:
            merged.append(b[j])
            j += 1
    return merged + a[i:] + b[j:]


# Examples
assert merge_sorted([1, 4, 9], [2, 3, 10]) == [1, 2, 3, 4, 9, 10]
assert merge_sorted([], [5]) == [5]

# Hidden tests
assert merge_sorted([], []) == []
assert merge_sorted([1, 1], [1]) == [1, 1, 1]
assert merge_sorted([5, 6], [1, 2]) == [1, 2, 5, 6]
assert merge_sorted([-3, 0], [-2, 7, 8]) == [-3, -2, 0, 7, 8]
assert merge_sorted([2], []) == [2]
