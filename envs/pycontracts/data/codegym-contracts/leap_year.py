"""Leap years of the Gregorian calendar.

Return whether ``year`` (``year >= 1``) is a leap year: divisible by 4, except that years
divisible by 100 are not, except that years divisible by 400 are.
"""


def is_leap_year(year: int) -> bool:
    """
    pre: year >= 1
    post: not __return__ or year % 4 == 0
    post: year % 400 != 0 or __return__
    post: year % 4 != 0 or year % 100 == 0 or __return__
    post: year % 100 != 0 or year % 400 == 0 or not __return__
    """
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


# Examples
assert is_leap_year(2024) is True
assert is_leap_year(1900) is False

# Hidden tests
assert is_leap_year(2000) is True
assert is_leap_year(2023) is False
assert is_leap_year(4) is True
assert is_leap_year(100) is False
assert is_leap_year(400) is True
assert is_leap_year(1) is False
