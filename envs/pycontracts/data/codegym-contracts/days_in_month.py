"""Days in a month.

Return how many days month ``month`` (1 for January to 12 for December) of ``year`` has in
the Gregorian calendar; February has 29 days in leap years (divisible by 4, but not by 100
unless by 400).
"""


def days_in_month(month: int, year: int) -> int:
    """
    pre: 1 <= month <= 12 and year >= 1
    post: 28 <= __return__ <= 31
    post: (__return__ == 31) == (month in (1, 3, 5, 7, 8, 10, 12))
    post: (month == 2) == (__return__ < 30)
    """
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


# Examples
assert days_in_month(1, 2023) == 31
assert days_in_month(2, 2024) == 29

# Hidden tests
assert days_in_month(2, 2023) == 28
assert days_in_month(2, 1900) == 28
assert days_in_month(2, 2000) == 29
assert days_in_month(4, 2021) == 30
assert days_in_month(12, 1) == 31
assert days_in_month(9, 1999) == 30
