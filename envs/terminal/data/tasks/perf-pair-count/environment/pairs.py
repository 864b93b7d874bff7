"""Counts the pairs i < j with (a[i] + a[j]) divisible by k.

Input on stdin: a line "n k", then n integers (whitespace separated).
Output: the number of pairs, on one line.
"""

import sys


def main() -> None:
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    a = [int(x) for x in data[2 : 2 + n]]
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            if (a[i] + a[j]) % k == 0:
                count += 1
    print(count)


if __name__ == "__main__":
    main()
