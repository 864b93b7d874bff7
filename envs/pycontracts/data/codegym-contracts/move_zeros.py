"""Move the zeros to the end.

Return ``xs`` with its zeros moved to the end; the other elements keep their order.
"""


def move_zeros(xs: list[int]) -> list[int]:
    """
    post: len(__return__) == len(xs)
    post: [x for x in __return__ if x != 0] == [x for x in xs if x != 0]
    post: all(x == 0 for x in __return__[len(xs) - xs.count(0) :])
    """
    kept = [x for x in xs if x != 0]
    return kept + [0] * (len(xs) - len(kept))


# Examples
assert move_zeros([0, 1, 0, 3, 12]) == [1, 3, 12, 0, 0]
assert move_zeros([]) == []

# Hidden tests
assert move_zeros([0]) == [0]
assert move_zeros([0, 0, 1]) == [1, 0, 0]
assert move_zeros([4, 5, 6]) == [4, 5, 6]
assert move_zeros([-1, 0, -2, 0]) == [-1, -2, 0, 0]
assert move_zeros([0, 0, 0]) == [0, 0, 0]
