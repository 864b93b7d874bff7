#!/bin/bash
set -euo pipefail
cat > /app/pairs.py <<'PY'
"""Counts the pairs i < j with (a[i] + a[j]) divisible by k.

Input on stdin: a line "n k", then n integers (whitespace separated).
Output: the number of pairs, on one line.
"""

import sys
from collections import Counter


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    seen: Counter[int] = Counter()
    count = 0
    for x in data[2 : 2 + n]:
        r = int(x) % k
        count += seen[(k - r) % k]
        seen[r] += 1
    print(count)


if __name__ == "__main__":
    main()
PY
