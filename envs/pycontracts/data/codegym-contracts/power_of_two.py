"""Powers of two.

Return whether ``n`` is a power of two (1, 2, 4, 8, ...). Zero and negative numbers are not.
"""


def is_power_of_two(n: int) -> bool:
    """
    post: not __return__ or n >= 1
    post: not __return__ or n == 1 or n % 2 == 0
    post: __return__ == (n >= 1 and n & (n - 1) == 0)
    """
    if n < 1:
        return False
    while n % 2 == 0:
        n //= 2
    return n == 1


# Examples
assert is_power_of_two(64) is True
assert is_power_of_two(12) is False

# Hidden tests
assert is_power_of_two(1) is True
assert is_power_of_two(0) is False
assert is_power_of_two(2**40) is True
assert is_power_of_two(2**40 + 2) is False
assert is_power_of_two(3) is False
