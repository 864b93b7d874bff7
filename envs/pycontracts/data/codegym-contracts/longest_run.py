"""The longest increasing run.

Return the length of the longest stretch of consecutive elements of ``xs`` in which each
element is strictly larger than the one before it (0 for an empty list).
"""


def longest_increasing_run(xs: list[int]) -> int:
    """
    post: 0 <= __return__ <= len(xs)
    post: (__return__ == 0) == (len(xs) == 0)
    post: __return__ == 0 or any(all(xs[j] < xs[j + 1] for j in range(i, i + __return__ - 1)) for i in range(len(xs) - __return__ + 1))
    """
    best = current = 0
    for i, x in enumerate(xs):
        current = current + 1 if i > 0 and xs[i - 1] < x else 1
        best = max(best, current)
    return best


# Examples
assert longest_increasing_run([1, 2, 0, 3, 4, 5, 1]) == 4
assert longest_increasing_run([]) == 0

# Hidden tests
assert longest_increasing_run([5]) == 1
assert longest_increasing_run([3, 3, 3]) == 1
assert longest_increasing_run([5, 4, 3, 2]) == 1
assert longest_increasing_run([1, 2, 3, 4]) == 4
assert longest_increasing_run([1, 3, 2, 4, 6, 8, 0]) == 4
