"""The k-th smallest element.

Return the element that would stand at position ``k`` (counting from 1) if ``xs`` were
sorted in non-decreasing order; ``1 <= k <= len(xs)``.
"""


def kth_smallest(xs: list[int], k: int) -> int:
    """
    pre: 1 <= k <= len(xs)
    post: __return__ in xs
    post: len([x for x in xs if x < __return__]) < k
    post: len([x for x in xs if x <= __return__]) >= k
    """
    return sorted(xs)[k - 1]


# Examples
assert kth_smallest([7, 2, 9, 4], 2) == 4
assert kth_smallest([5, 5, 1], 3) == 5

# Hidden tests
assert kth_smallest([3], 1) == 3
assert kth_smallest([3, 1, 2], 1) == 1
assert kth_smallest([3, 1, 2], 3) == 3
assert kth_smallest([2, 2, 2, 1], 2) == 2
assert kth_smallest([-5, 10, 0, -1], 2) == -1
