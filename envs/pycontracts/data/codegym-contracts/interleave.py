"""Interleave two lists.

Return the elements of ``a`` and ``b`` taken alternately, starting with ``a``; when one list
runs out, the rest of the other follows.
"""


def interleave(a: list[int], b: list[int]) -> list[int]:
    """
    post: len(__return__) == len(a) + len(b)
    post: __return__[0 : 2 * min(len(a), len(b)) : 2] == a[: min(len(a), len(b))]
    post: __return__[1 : 2 * min(len(a), len(b)) : 2] == b[: min(len(a), len(b))]
    post: sorted(__return__) == sorted(a + b)
    """
    result = []
    for i in range(max(len(a), len(b))):
        if i < len(a):
            result.append(a[i])
        if i < len(b):
            result.append(b[i])
    return result


# Examples
assert interleave([1, 2, 3], [10, 20]) == [1, 10, 2, 20, 3]
assert interleave([], [4, 5]) == [4, 5]

# Hidden tests
assert interleave([], []) == []
assert interleave([1], []) == [1]
assert interleave([1, 2], [3, 4]) == [1, 3, 2, 4]
assert interleave([7], [8, 9, 10]) == [7, 8, 9, 10]
assert interleave([0, 0, 0], [1]) == [0, 1, 0, 0]
