"""Split a list into chunks.

Split ``xs`` into consecutive pieces of ``size`` elements (``size >= 1``); the last piece
holds what remains, and there is no empty piece.
"""


def chunk(xs: list[int], size: int) -> list[list[int]]:
    """
    pre: size >= 1
    post: [x for piece in __return__ for x in piece] == xs
    post: all(1 <= len(piece) <= size for piece in __return__)
    post: all(len(piece) == size for piece in __return__[:-1])
    """
    return [xs[i : i + size] for i in range(0, len(xs), size)]


# Examples
assert chunk([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]
assert chunk([], 3) == []

# Hidden tests
assert chunk([1, 2, 3], 3) == [[1, 2, 3]]
assert chunk([1, 2, 3], 1) == [[1], [2], [3]]
assert chunk([1, 2, 3], 5) == [[1, 2, 3]]
assert chunk([4, 4, 4, 4], 2) == [[4, 4], [4, 4]]
assert chunk([9, 8, 7, 6, 5, 4, 3], 3) == [[9, 8, 7], [6, 5, 4], [3]]
