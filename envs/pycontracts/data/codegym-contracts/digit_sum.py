"""Sum of decimal digits.

Return the sum of the decimal digits of the non-negative integer ``n``.
"""


def digit_sum(n: int) -> int:
    """
    pre: n >= 0
    post: __return__ >= 0
    post: __return__ % 9 == n % 9
    post: (__return__ == 0) == (n == 0)
    """
    total = 0
    while n:
        n, digit = divmod(n, 10)
        total += digit
    return total


# Examples
assert digit_sum(1234) == 10
assert digit_sum(0) == 0

# Hidden tests
assert digit_sum(9) == 9
assert digit_sum(10) == 1
assert digit_sum(99999) == 45
assert digit_sum(1000001) == 2
assert digit_sum(5081) == 14
