"""The bundled optimization tasks, written by the codegym team: for each, a spec, a correct but
slow reference, a faster solution, and a generator of inputs of a given size.
``build_tasks.py`` turns them into ``tasks.jsonl``."""

from __future__ import annotations

PAIRS_PROMPT = (
    "The first line holds n and t; the second, n integers a_1..a_n. Print how many pairs i < j have a_i + a_j = t."
)
PAIRS_GENERATOR = """
def generate(size, rng):
    values = [rng.randint(-50, 50) for _ in range(size)]
    return f"{size} {rng.randint(-20, 20)}\\n{' '.join(map(str, values))}\\n"
"""
RANGE_PROMPT = (
    "The first line holds n and q; the second, n integers; then q lines of l r (1 <= l <= r <= n). For each "
    "query print the sum of a_l..a_r on a line of its own."
)
RANGE_GENERATOR = """
def generate(size, rng):
    n, q = size, size
    values = [rng.randint(-1000, 1000) for _ in range(n)]
    lines = [f"{n} {q}", " ".join(map(str, values))]
    for _ in range(q):
        l = rng.randint(1, n)
        lines.append(f"{l} {rng.randint(l, n)}")
    return "\\n".join(lines) + "\\n"
"""
PRIMES_PROMPT = "Read n and print how many primes are at most n."
PRIMES_GENERATOR = """
def generate(size, rng):
    return f"{rng.randint(size // 2, size)}\\n"
"""
WINDOW_PROMPT = (
    "The first line holds n and k (1 <= k <= n); the second, n integers. Print the largest sum of k "
    "consecutive integers."
)
WINDOW_GENERATOR = """
def generate(size, rng):
    k = rng.randint(1, max(1, size // 3))
    values = [rng.randint(-100, 100) for _ in range(size)]
    return f"{size} {k}\\n{' '.join(map(str, values))}\\n"
"""
LIS_PROMPT = (
    "The first line holds n; the second, n integers. Print the length of the longest strictly increasing subsequence."
)
LIS_GENERATOR = """
def generate(size, rng):
    values = [rng.randint(0, 10 * size) for _ in range(size)]
    return f"{size}\\n{' '.join(map(str, values))}\\n"
"""
INVERSIONS_PROMPT = "The first line holds n; the second, n integers. Print the number of pairs i < j with a_i > a_j."
INVERSIONS_GENERATOR = LIS_GENERATOR
SORT_PROMPT = "The first line holds n; the second, n integers. Print them in non-decreasing order, separated by spaces."
SORT_GENERATOR = LIS_GENERATOR
FIB_PROMPT = "Read n and m (m >= 2). Print F(n) mod m, where F(0) = 0, F(1) = 1 and F(k) = F(k-1) + F(k-2)."
FIB_GENERATOR = """
def generate(size, rng):
    return f"{rng.randint(size // 2, size)} {rng.randint(2, 10**9)}\\n"
"""

TASKS = [
    {
        "id": "codegym-optimize/py-pair-count", "language": "python", "prompt": PAIRS_PROMPT,
        "difficulty": "easy", "bench_size": 1500, "test_sizes": [6, 8, 1, 2, 40, 200],
        "edge_inputs": ["1 0\n0\n", "4 0\n0 0 0 0\n"],
        "generator": PAIRS_GENERATOR,
        "reference": (
            "n, t = map(int, input().split())\n"
            "a = list(map(int, input().split()))\n"
            "count = 0\n"
            "for i in range(n):\n"
            "    for j in range(i + 1, n):\n"
            "        if a[i] + a[j] == t:\n"
            "            count += 1\n"
            "print(count)\n"
        ),
        "fast": (
            "n, t = map(int, input().split())\n"
            "seen = {}\n"
            "count = 0\n"
            "for x in map(int, input().split()):\n"
            "    count += seen.get(t - x, 0)\n"
            "    seen[x] = seen.get(x, 0) + 1\n"
            "print(count)\n"
        ),
    },
    {
        "id": "codegym-optimize/py-range-sums", "language": "python", "prompt": RANGE_PROMPT,
        "difficulty": "easy", "bench_size": 1500, "test_sizes": [5, 6, 1, 30, 120],
        "generator": RANGE_GENERATOR,
        "reference": (
            "import sys\n"
            "data = sys.stdin.read().split()\n"
            "n, q = int(data[0]), int(data[1])\n"
            "a = [int(x) for x in data[2:2 + n]]\n"
            "out = []\n"
            "pos = 2 + n\n"
            "for _ in range(q):\n"
            "    l, r = int(data[pos]), int(data[pos + 1])\n"
            "    pos += 2\n"
            "    total = 0\n"
            "    for i in range(l - 1, r):\n"
            "        total += a[i]\n"
            "    out.append(total)\n"
            "print('\\n'.join(map(str, out)))\n"
        ),
        "fast": (
            "import sys\n"
            "from itertools import accumulate\n"
            "data = sys.stdin.read().split()\n"
            "n, q = int(data[0]), int(data[1])\n"
            "prefix = [0, *accumulate(int(x) for x in data[2:2 + n])]\n"
            "it = iter(data[2 + n:])\n"
            "print('\\n'.join(str(prefix[int(r)] - prefix[int(l) - 1]) for l, r in zip(it, it)))\n"
        ),
    },
    {
        "id": "codegym-optimize/py-count-primes", "language": "python", "prompt": PRIMES_PROMPT,
        "difficulty": "medium", "bench_size": 20000, "test_sizes": [10, 30, 1, 2, 100, 1000],
        "edge_inputs": ["0\n", "3\n"],
        "generator": PRIMES_GENERATOR,
        "reference": (
            "n = int(input())\n"
            "count = 0\n"
            "for k in range(2, n + 1):\n"
            "    d = 2\n"
            "    while d * d <= k:\n"
            "        if k % d == 0:\n"
            "            break\n"
            "        d += 1\n"
            "    else:\n"
            "        count += 1\n"
            "print(count)\n"
        ),
        "fast": (
            "n = int(input())\n"
            "if n < 2:\n"
            "    print(0)\n"
            "else:\n"
            "    sieve = bytearray([1]) * (n + 1)\n"
            "    sieve[0] = sieve[1] = 0\n"
            "    for p in range(2, int(n ** 0.5) + 1):\n"
            "        if sieve[p]:\n"
            "            sieve[p * p::p] = bytes(len(range(p * p, n + 1, p)))\n"
            "    print(sum(sieve))\n"
        ),
    },
    {
        "id": "codegym-optimize/py-best-window", "language": "python", "prompt": WINDOW_PROMPT,
        "difficulty": "easy", "bench_size": 3000, "test_sizes": [5, 7, 1, 50, 300],
        "generator": WINDOW_GENERATOR,
        "reference": (
            "n, k = map(int, input().split())\n"
            "a = list(map(int, input().split()))\n"
            "best = None\n"
            "for i in range(n - k + 1):\n"
            "    total = 0\n"
            "    for j in range(i, i + k):\n"
            "        total += a[j]\n"
            "    if best is None or total > best:\n"
            "        best = total\n"
            "print(best)\n"
        ),
        "fast": (
            "n, k = map(int, input().split())\n"
            "a = list(map(int, input().split()))\n"
            "total = best = sum(a[:k])\n"
            "for i in range(k, n):\n"
            "    total += a[i] - a[i - k]\n"
            "    if total > best:\n"
            "        best = total\n"
            "print(best)\n"
        ),
    },
    {
        "id": "codegym-optimize/c-pair-count", "language": "c", "prompt": PAIRS_PROMPT,
        "difficulty": "easy", "bench_size": 3000, "test_sizes": [6, 8, 1, 2, 40, 200],
        "edge_inputs": ["1 0\n0\n", "4 0\n0 0 0 0\n"],
        "generator": PAIRS_GENERATOR,
        "reference": (
            "#include <stdio.h>\n#include <stdlib.h>\n"
            "int main(void) {\n"
            "    int n, t;\n"
            "    if (scanf(\"%d %d\", &n, &t) != 2) return 1;\n"
            "    int *a = malloc(sizeof(int) * n);\n"
            "    for (int i = 0; i < n; i++) scanf(\"%d\", &a[i]);\n"
            "    long long count = 0;\n"
            "    for (int i = 0; i < n; i++)\n"
            "        for (int j = i + 1; j < n; j++)\n"
            "            if (a[i] + a[j] == t) count++;\n"
            "    printf(\"%lld\\n\", count);\n"
            "    free(a);\n"
            "    return 0;\n"
            "}\n"
        ),
        "fast": (
            "#include <stdio.h>\n"
            "int main(void) {\n"
            "    int n, t, x;\n"
            "    static long long seen[201];\n"
            "    if (scanf(\"%d %d\", &n, &t) != 2) return 1;\n"
            "    long long count = 0;\n"
            "    for (int i = 0; i < n; i++) {\n"
            "        scanf(\"%d\", &x);\n"
            "        int want = t - x;\n"
            "        if (want >= -100 && want <= 100) count += seen[want + 100];\n"
            "        seen[x + 100]++;\n"
            "    }\n"
            "    printf(\"%lld\\n\", count);\n"
            "    return 0;\n"
            "}\n"
        ),
    },
    {
        "id": "codegym-optimize/c-range-sums", "language": "c", "prompt": RANGE_PROMPT,
        "difficulty": "easy", "bench_size": 3000, "test_sizes": [5, 6, 1, 30, 120],
        "generator": RANGE_GENERATOR,
        "reference": (
            "#include <stdio.h>\n#include <stdlib.h>\n"
            "int main(void) {\n"
            "    int n, q;\n"
            "    if (scanf(\"%d %d\", &n, &q) != 2) return 1;\n"
            "    long long *a = malloc(sizeof(long long) * n);\n"
            "    for (int i = 0; i < n; i++) scanf(\"%lld\", &a[i]);\n"
            "    while (q--) {\n"
            "        int l, r;\n"
            "        scanf(\"%d %d\", &l, &r);\n"
            "        long long s = 0;\n"
            "        for (int i = l - 1; i < r; i++) s += a[i];\n"
            "        printf(\"%lld\\n\", s);\n"
            "    }\n"
            "    free(a);\n"
            "    return 0;\n"
            "}\n"
        ),
        "fast": (
            "#include <stdio.h>\n#include <stdlib.h>\n"
            "int main(void) {\n"
            "    int n, q;\n"
            "    if (scanf(\"%d %d\", &n, &q) != 2) return 1;\n"
            "    long long *p = calloc(n + 1, sizeof(long long));\n"
            "    for (int i = 1; i <= n; i++) { long long x; scanf(\"%lld\", &x); p[i] = p[i - 1] + x; }\n"
            "    while (q--) { int l, r; scanf(\"%d %d\", &l, &r); printf(\"%lld\\n\", p[r] - p[l - 1]); }\n"
            "    free(p);\n"
            "    return 0;\n"
            "}\n"
        ),
    },
    {
        "id": "codegym-optimize/c-count-primes", "language": "c", "prompt": PRIMES_PROMPT,
        "difficulty": "medium", "bench_size": 300000, "test_sizes": [10, 30, 1, 2, 100, 1000],
        "edge_inputs": ["0\n", "3\n"],
        "generator": PRIMES_GENERATOR,
        "reference": (
            "#include <stdio.h>\n"
            "int main(void) {\n"
            "    long n, count = 0;\n"
            "    if (scanf(\"%ld\", &n) != 1) return 1;\n"
            "    for (long k = 2; k <= n; k++) {\n"
            "        int prime = 1;\n"
            "        for (long d = 2; d * d <= k; d++)\n"
            "            if (k % d == 0) { prime = 0; break; }\n"
            "        count += prime;\n"
            "    }\n"
            "    printf(\"%ld\\n\", count);\n"
            "    return 0;\n"
            "}\n"
        ),
        "fast": (
            "#include <stdio.h>\n#include <stdlib.h>\n"
            "int main(void) {\n"
            "    long n, count = 0;\n"
            "    if (scanf(\"%ld\", &n) != 1) return 1;\n"
            "    if (n < 2) { printf(\"0\\n\"); return 0; }\n"
            "    char *composite = calloc(n + 1, 1);\n"
            "    for (long p = 2; p <= n; p++) {\n"
            "        if (composite[p]) continue;\n"
            "        count++;\n"
            "        for (long m = p * p; m <= n; m += p) composite[m] = 1;\n"
            "    }\n"
            "    printf(\"%ld\\n\", count);\n"
            "    free(composite);\n"
            "    return 0;\n"
            "}\n"
        ),
    },
    {
        "id": "codegym-optimize/c-longest-increasing", "language": "c", "prompt": LIS_PROMPT,
        "difficulty": "medium", "bench_size": 3000, "test_sizes": [6, 9, 1, 2, 50, 300],
        "generator": LIS_GENERATOR,
        "reference": (
            "#include <stdio.h>\n#include <stdlib.h>\n"
            "int main(void) {\n"
            "    int n;\n"
            "    if (scanf(\"%d\", &n) != 1) return 1;\n"
            "    int *a = malloc(sizeof(int) * n), *len = malloc(sizeof(int) * n);\n"
            "    for (int i = 0; i < n; i++) scanf(\"%d\", &a[i]);\n"
            "    int best = 0;\n"
            "    for (int i = 0; i < n; i++) {\n"
            "        len[i] = 1;\n"
            "        for (int j = 0; j < i; j++)\n"
            "            if (a[j] < a[i] && len[j] + 1 > len[i]) len[i] = len[j] + 1;\n"
            "        if (len[i] > best) best = len[i];\n"
            "    }\n"
            "    printf(\"%d\\n\", best);\n"
            "    return 0;\n"
            "}\n"
        ),
        "fast": (
            "#include <stdio.h>\n#include <stdlib.h>\n"
            "int main(void) {\n"
            "    int n, x, size = 0;\n"
            "    if (scanf(\"%d\", &n) != 1) return 1;\n"
            "    int *tails = malloc(sizeof(int) * (n + 1));\n"
            "    for (int i = 0; i < n; i++) {\n"
            "        scanf(\"%d\", &x);\n"
            "        int lo = 0, hi = size;\n"
            "        while (lo < hi) { int mid = (lo + hi) / 2; if (tails[mid] < x) lo = mid + 1; else hi = mid; }\n"
            "        tails[lo] = x;\n"
            "        if (lo == size) size++;\n"
            "    }\n"
            "    printf(\"%d\\n\", size);\n"
            "    return 0;\n"
            "}\n"
        ),
    },
    {
        "id": "codegym-optimize/cpp-inversions", "language": "cpp", "prompt": INVERSIONS_PROMPT,
        "difficulty": "medium", "bench_size": 3000, "test_sizes": [6, 9, 1, 2, 50, 300],
        "generator": INVERSIONS_GENERATOR,
        "reference": (
            "#include <cstdio>\n#include <vector>\n"
            "int main() {\n"
            "    int n;\n"
            "    if (std::scanf(\"%d\", &n) != 1) return 1;\n"
            "    std::vector<long long> a(n);\n"
            "    for (auto &x : a) std::scanf(\"%lld\", &x);\n"
            "    long long count = 0;\n"
            "    for (int i = 0; i < n; i++)\n"
            "        for (int j = i + 1; j < n; j++)\n"
            "            if (a[i] > a[j]) count++;\n"
            "    std::printf(\"%lld\\n\", count);\n"
            "}\n"
        ),
        "fast": (
            "#include <cstdio>\n#include <vector>\n"
            "static long long sort_count(std::vector<long long> &a, std::vector<long long> &tmp, int lo, int hi) {\n"
            "    if (hi - lo < 2) return 0;\n"
            "    int mid = (lo + hi) / 2;\n"
            "    long long count = sort_count(a, tmp, lo, mid) + sort_count(a, tmp, mid, hi);\n"
            "    int i = lo, j = mid, k = lo;\n"
            "    while (i < mid || j < hi) {\n"
            "        if (j >= hi || (i < mid && a[i] <= a[j])) tmp[k++] = a[i++];\n"
            "        else { count += mid - i; tmp[k++] = a[j++]; }\n"
            "    }\n"
            "    for (int m = lo; m < hi; m++) a[m] = tmp[m];\n"
            "    return count;\n"
            "}\n"
            "int main() {\n"
            "    int n;\n"
            "    if (std::scanf(\"%d\", &n) != 1) return 1;\n"
            "    std::vector<long long> a(n), tmp(n);\n"
            "    for (auto &x : a) std::scanf(\"%lld\", &x);\n"
            "    std::printf(\"%lld\\n\", sort_count(a, tmp, 0, n));\n"
            "}\n"
        ),
    },
    {
        "id": "codegym-optimize/cpp-sort", "language": "cpp", "prompt": SORT_PROMPT,
        "difficulty": "easy", "bench_size": 3000, "test_sizes": [6, 9, 1, 2, 50, 300],
        "generator": SORT_GENERATOR,
        "reference": (
            "#include <cstdio>\n#include <vector>\n#include <utility>\n"
            "int main() {\n"
            "    int n;\n"
            "    if (std::scanf(\"%d\", &n) != 1) return 1;\n"
            "    std::vector<long long> a(n);\n"
            "    for (auto &x : a) std::scanf(\"%lld\", &x);\n"
            "    for (int i = 0; i < n; i++)\n"
            "        for (int j = 0; j + 1 < n - i; j++)\n"
            "            if (a[j] > a[j + 1]) std::swap(a[j], a[j + 1]);\n"
            "    for (int i = 0; i < n; i++) std::printf(i ? \" %lld\" : \"%lld\", a[i]);\n"
            "    std::printf(\"\\n\");\n"
            "}\n"
        ),
        "fast": (
            "#include <algorithm>\n#include <cstdio>\n#include <vector>\n"
            "int main() {\n"
            "    int n;\n"
            "    if (std::scanf(\"%d\", &n) != 1) return 1;\n"
            "    std::vector<long long> a(n);\n"
            "    for (auto &x : a) std::scanf(\"%lld\", &x);\n"
            "    std::sort(a.begin(), a.end());\n"
            "    for (int i = 0; i < n; i++) std::printf(i ? \" %lld\" : \"%lld\", a[i]);\n"
            "    std::printf(\"\\n\");\n"
            "}\n"
        ),
    },
    {
        "id": "codegym-optimize/cpp-fibonacci-mod", "language": "cpp", "prompt": FIB_PROMPT,
        "difficulty": "medium", "bench_size": 3000000, "test_sizes": [10, 20, 1, 2, 1000],
        "edge_inputs": ["0 7\n", "1 2\n"],
        "generator": FIB_GENERATOR,
        "reference": (
            "#include <cstdio>\n"
            "int main() {\n"
            "    long long n, m;\n"
            "    if (std::scanf(\"%lld %lld\", &n, &m) != 2) return 1;\n"
            "    long long a = 0, b = 1;\n"
            "    for (long long i = 0; i < n; i++) { long long c = (a + b) % m; a = b; b = c; }\n"
            "    std::printf(\"%lld\\n\", a % m);\n"
            "}\n"
        ),
        "fast": (
            "#include <cstdio>\n"
            "typedef unsigned long long u64;\n"
            "typedef unsigned __int128 u128;\n"
            "int main() {\n"
            "    long long n, m;\n"
            "    if (std::scanf(\"%lld %lld\", &n, &m) != 2) return 1;\n"
            "    u64 a = 0, b = 1;  // F(k), F(k+1) by fast doubling, from the top bit of n\n"
            "    for (int bit = 62; bit >= 0; bit--) {\n"
            "        u64 c = (u64)((u128)a * ((2 * b + m - a) % m) % m);\n"
            "        u64 d = (u64)(((u128)a * a + (u128)b * b) % m);\n"
            "        if ((n >> bit) & 1) { a = d; b = (c + d) % m; } else { a = c; b = d; }\n"
            "    }\n"
            "    std::printf(\"%llu\\n\", a % m);\n"
            "}\n"
        ),
    },
]  # fmt: skip
