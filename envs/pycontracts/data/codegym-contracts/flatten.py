"""Flatten one level.

Return the elements of the lists in ``rows``, in order, as one list.
"""


def flatten(rows: list[list[int]]) -> list[int]:
    """
    post: len(__return__) == sum(len(row) for row in rows)
    post: __return__[: len(rows[0]) if rows else 0] == (rows[0] if rows else [])
    post: __return__ == [x for row in rows for x in row]
    """
    flat = []
    for row in rows:
        flat.extend(row)
    return flat


# Examples
assert flatten([[1, 2], [3], []]) == [1, 2, 3]
assert flatten([]) == []

# Hidden tests
assert flatten([[]]) == []
assert flatten([[5]]) == [5]
assert flatten([[], [1], [], [2, 3]]) == [1, 2, 3]
assert flatten([[9, 8], [7, 6]]) == [9, 8, 7, 6]
assert flatten([[1, 1], [1]]) == [1, 1, 1]
