"""Two numbers with a given sum.

Return whether two elements of ``xs`` at different positions add up to ``target``.
"""


def has_pair_with_sum(xs: list[int], target: int) -> bool:
    """
    post: not __return__ or len(xs) >= 2
    post: __return__ == any(xs[i] + xs[j] == target for i in range(len(xs)) for j in range(i + 1, len(xs)))
    """
    seen = set()
    for x in xs:
        if target - x in seen:
            return True
        seen.add(x)
    return False


# Examples
assert has_pair_with_sum([3, 8, 1, 5], 9) is True
assert has_pair_with_sum([3, 8, 1, 5], 7) is False

# Hidden tests
assert has_pair_with_sum([], 0) is False
assert has_pair_with_sum([4], 8) is False
assert has_pair_with_sum([4, 4], 8) is True
assert has_pair_with_sum([-2, 7, 11], 5) is True
assert has_pair_with_sum([1, 2, 3], 6) is False
