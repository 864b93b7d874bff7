"""Search a sorted list.

``xs`` is sorted in non-decreasing order. Return an index ``i`` with ``xs[i] == target``, or
-1 when ``target`` is not in the list. When it appears several times, any of its indices
will do.
"""


def binary_search(xs: list[int], target: int) -> int:
    """
    pre: all(xs[i] <= xs[i + 1] for i in range(len(xs) - 1))
    post: -1 <= __return__ < len(xs)
    post: (__return__ == -1) == (target not in xs)
    post: __return__ == -1 or xs[__return__] == target
    """
    low, high = 0, len(xs) - 1
    while low <= high:
        middle = (low + high) // 2
        if xs[middle] == target:
            return middle
        if xs[middle] < target:
            low = middle + 1
        else:
            high = middle - 1
    return -1


# Examples
assert binary_search([1, 3, 5, 7, 9], 7) == 3
assert binary_search([1, 3, 5], 4) == -1

# Hidden tests
assert binary_search([], 3) == -1
assert binary_search([2], 2) == 0
assert binary_search([2], 1) == -1
assert binary_search([1, 2, 3, 4, 5, 6], 1) == 0
assert binary_search([1, 2, 3, 4, 5, 6], 6) == 5
assert binary_search([-10, -5, 0, 5], -5) == 1
