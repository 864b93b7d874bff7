"""Sort from largest to smallest.

Return the elements of ``xs`` in non-increasing order.
"""


def sort_descending(xs: list[int]) -> list[int]:
    """
    post: len(__return__) == len(xs)
    post: all(__return__[i] >= __return__[i + 1] for i in range(len(__return__) - 1))
    post: sorted(__return__) == sorted(xs)
    """
    result = []
    for x in xs:
        place = 0
        while place < len(result) and result[place] >= x:
            place += 1
        result.insert(place, x)
    return result


# Examples
assert sort_descending([3, 1, 2]) == [3, 2, 1]
assert sort_descending([]) == []

# Hidden tests
assert sort_descending([5]) == [5]
assert sort_descending([1, 2, 3, 4]) == [4, 3, 2, 1]
assert sort_descending([2, 2, 1, 2]) == [2, 2, 2, 1]
assert sort_descending([-1, 5, -7, 0]) == [5, 0, -1, -7]
assert sort_descending([9, 9]) == [9, 9]
