"""More bundled optimization tasks (the same form as ``definitions.py``), written by the codegym team.

The programs are written as indented raw blocks; `_code` dedents them."""

from __future__ import annotations

from textwrap import dedent


def _code(text: str) -> str:
    """A program or generator written as an indented block, dedented."""
    return dedent(text).lstrip("\n")


# --- Python ---------------------------------------------------------------------------------

PY_TASKS = [
    {
        "id": "codegym-optimize/py-distinct-values", "language": "python", "difficulty": "easy",
        "prompt": "The first line holds n (n >= 1); the second, n integers. Print how many distinct values they hold.",
        "bench_size": 2000, "test_sizes": [6, 8, 1, 2, 60, 400],
        "edge_inputs": ["1\n7\n", "5\n3 3 3 3 3\n", "4\n-1 1 -1 1\n"],
        "generator": _code(r"""
            def generate(size, rng):
                values = [rng.randint(0, size) for _ in range(size)]
                return f"{size}\n{' '.join(map(str, values))}\n"
        """),
        "reference": _code(r"""
            n = int(input())
            a = list(map(int, input().split()))
            distinct = 0
            for i in range(n):
                seen_before = False
                for j in range(i):
                    if a[j] == a[i]:
                        seen_before = True
                        break
                if not seen_before:
                    distinct += 1
            print(distinct)
        """),
        "fast": _code(r"""
            input()
            print(len(set(map(int, input().split()))))
        """),
    },
    {
        "id": "codegym-optimize/py-longest-palindrome", "language": "python", "difficulty": "medium",
        "prompt": (
            "Read a non-empty string s of lowercase letters. Print the length of its longest substring (a run of "
            "consecutive characters) that reads the same forwards and backwards."
        ),
        "bench_size": 1200, "test_sizes": [7, 10, 1, 2, 50, 240],
        "edge_inputs": ["a\n", "aaaaaa\n", "ab\n", "abcba\n"],
        "generator": _code(r"""
            def generate(size, rng):
                return ''.join(rng.choice('ab') for _ in range(size)) + "\n"
        """),
        "reference": _code(r"""
            s = input().strip()
            n = len(s)
            pal = [[False] * n for _ in range(n)]
            best = 1
            for i in range(n - 1, -1, -1):
                pal[i][i] = True
                for j in range(i + 1, n):
                    if s[i] == s[j] and (j - i < 2 or pal[i + 1][j - 1]):
                        pal[i][j] = True
                        if j - i + 1 > best:
                            best = j - i + 1
            print(best)
        """),
        "fast": _code(r"""
            s = input().strip()
            t = '#' + '#'.join(s) + '#'
            m = len(t)
            radius = [0] * m
            center = right = 0
            for i in range(m):
                r = min(right - i, radius[2 * center - i]) if i < right else 0
                while i - r - 1 >= 0 and i + r + 1 < m and t[i - r - 1] == t[i + r + 1]:
                    r += 1
                radius[i] = r
                if i + r > right:
                    center, right = i, i + r
            print(max(radius))
        """),
    },
    {
        "id": "codegym-optimize/py-anagram-pairs", "language": "python", "difficulty": "easy",
        "prompt": (
            "The first line holds n; then n words of lowercase letters, one a line. Print how many pairs i < j of "
            "words are anagrams of each other (the same letters, each the same number of times)."
        ),
        "bench_size": 1500, "test_sizes": [6, 8, 1, 2, 50, 300],
        "edge_inputs": ["1\nabc\n", "3\nab\nba\nab\n", "2\naab\nabb\n"],
        "generator": _code(r"""
            def generate(size, rng):
                letters = 'abc' if size < 50 else 'abcde'
                words = [''.join(rng.choice(letters) for _ in range(rng.randint(2, 4))) for _ in range(size)]
                return f"{size}\n" + "\n".join(words) + "\n"
        """),
        "reference": _code(r"""
            import sys
            words = sys.stdin.read().split()
            n = int(words[0])
            keys = [sorted(w) for w in words[1:1 + n]]
            count = 0
            for i in range(n):
                for j in range(i + 1, n):
                    if keys[i] == keys[j]:
                        count += 1
            print(count)
        """),
        "fast": _code(r"""
            import sys
            from collections import Counter
            words = sys.stdin.read().split()
            n = int(words[0])
            groups = Counter(''.join(sorted(w)) for w in words[1:1 + n])
            print(sum(c * (c - 1) // 2 for c in groups.values()))
        """),
    },
    {
        "id": "codegym-optimize/py-divisor-count-sum", "language": "python", "difficulty": "medium",
        "prompt": (
            "Read n (n >= 1). Print d(1) + d(2) + ... + d(n), where d(k) is the number of positive divisors of k."
        ),
        "bench_size": 15000, "test_sizes": [10, 12, 1, 2, 500, 3000],
        "edge_inputs": ["1\n", "2\n", "36\n"],
        "generator": _code(r"""
            def generate(size, rng):
                return f"{rng.randint(max(1, size // 2), size)}\n"
        """),
        "reference": _code(r"""
            n = int(input())
            total = 0
            for k in range(1, n + 1):
                d = 1
                while d * d <= k:
                    if k % d == 0:
                        total += 1 if d * d == k else 2
                    d += 1
            print(total)
        """),
        "fast": _code(r"""
            from math import isqrt
            n = int(input())
            r = isqrt(n)
            print(2 * sum(n // d for d in range(1, r + 1)) - r * r)
        """),
    },
    {
        "id": "codegym-optimize/py-modpow", "language": "python", "difficulty": "easy",
        "prompt": (
            "The first line holds q; then q lines of a b m (a >= 0, b >= 0, m >= 2). For each, print a to the "
            "power b, modulo m, on a line of its own."
        ),
        "bench_size": 200000, "test_sizes": [8, 10, 1, 2, 3000, 40000],
        "edge_inputs": ["1\n0 0 2\n", "3\n5 1 7\n3 0 10\n0 5 9\n", "1\n12 3 12\n"],
        "generator": _code(r"""
            def generate(size, rng):
                q = 10
                lines = [str(q)]
                for _ in range(q):
                    a, b, m = rng.randint(0, 10**9), rng.randint(size // 2, size), rng.randint(2, 10**9)
                    lines.append(f"{a} {b} {m}")
                return "\n".join(lines) + "\n"
        """),
        "reference": _code(r"""
            import sys
            data = sys.stdin.read().split()
            q = int(data[0])
            out = []
            for i in range(q):
                a, b, m = int(data[1 + 3 * i]), int(data[2 + 3 * i]), int(data[3 + 3 * i])
                base = a % m
                result = 1 % m
                for _ in range(b):
                    result = result * base % m
                out.append(result)
            print('\n'.join(map(str, out)))
        """),
        "fast": _code(r"""
            import sys
            data = sys.stdin.read().split()
            q = int(data[0])
            it = iter(data[1:1 + 3 * q])
            print('\n'.join(str(pow(int(a), int(b), int(m))) for a, b, m in zip(it, it, it)))
        """),
    },
    {
        "id": "codegym-optimize/py-coin-ways", "language": "python", "difficulty": "medium",
        "prompt": (
            "The first line holds n and s (s >= 0); the second, n distinct positive coin values. Print the number of "
            "ways to pay exactly s with any number of coins of each value (order does not matter), modulo 1000000007."
        ),
        "bench_size": 2000, "test_sizes": [8, 12, 1, 2, 100, 400],
        "edge_inputs": ["1 0\n5\n", "2 7\n2 4\n", "3 10\n1 2 5\n"],
        "generator": _code(r"""
            def generate(size, rng):
                n = 6 if size >= 50 else 3
                coins = rng.sample(range(3, 25) if size >= 50 else range(1, 8), n)
                return f"{n} {size}\n{' '.join(map(str, coins))}\n"
        """),
        "reference": _code(r"""
            n, s = map(int, input().split())
            coins = list(map(int, input().split()))
            MOD = 10**9 + 7
            ways = [1] + [0] * s
            for c in coins:
                new = [0] * (s + 1)
                for total in range(s + 1):
                    acc = 0
                    k = total
                    while k >= 0:
                        acc += ways[k]
                        k -= c
                    new[total] = acc % MOD
                ways = new
            print(ways[s])
        """),
        "fast": _code(r"""
            n, s = map(int, input().split())
            coins = list(map(int, input().split()))
            MOD = 10**9 + 7
            ways = [1] + [0] * s
            for c in coins:
                for total in range(c, s + 1):
                    ways[total] = (ways[total] + ways[total - c]) % MOD
            print(ways[s])
        """),
    },
    {
        "id": "codegym-optimize/py-largest-rectangle", "language": "python", "difficulty": "medium",
        "prompt": (
            "The first line holds n; the second, n non-negative integers h_1..h_n, the heights of bars of width 1 "
            "standing side by side. Print the area of the largest rectangle that fits inside the bars."
        ),
        "bench_size": 1000, "test_sizes": [6, 8, 1, 2, 40, 200],
        "edge_inputs": ["1\n0\n", "3\n5 5 5\n", "5\n1 2 3 4 5\n", "4\n0 0 0 0\n"],
        "generator": _code(r"""
            def generate(size, rng):
                values = [rng.randint(0, 1000) for _ in range(size)]
                return f"{size}\n{' '.join(map(str, values))}\n"
        """),
        "reference": _code(r"""
            n = int(input())
            h = list(map(int, input().split()))
            best = 0
            for i in range(n):
                low = h[i]
                for j in range(i, n):
                    if h[j] < low:
                        low = h[j]
                    area = low * (j - i + 1)
                    if area > best:
                        best = area
            print(best)
        """),
        "fast": _code(r"""
            n = int(input())
            h = list(map(int, input().split()))
            stack = []
            best = 0
            for i, x in enumerate([*h, 0]):
                start = i
                while stack and stack[-1][1] >= x:
                    start, height = stack.pop()
                    if height * (i - start) > best:
                        best = height * (i - start)
                stack.append((start, x))
            print(best)
        """),
    },
    {
        "id": "codegym-optimize/py-covered-length", "language": "python", "difficulty": "easy",
        "prompt": (
            "The first line holds n (n >= 1); then n lines of l r (0 <= l < r), each the half-open interval [l, r). "
            "Print the total length of their union."
        ),
        "bench_size": 1200, "test_sizes": [5, 6, 1, 2, 50, 240],
        "edge_inputs": ["1\n0 1\n", "2\n0 2\n2 4\n", "3\n1 10\n2 3\n4 5\n"],
        "generator": _code(r"""
            def generate(size, rng):
                lines = [str(size)]
                for _ in range(size):
                    l = rng.randint(0, 20 * size)
                    lines.append(f"{l} {l + rng.randint(1, 2 * size)}")
                return "\n".join(lines) + "\n"
        """),
        "reference": _code(r"""
            import sys
            data = sys.stdin.read().split()
            n = int(data[0])
            pairs = [(int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n)]
            top = 0
            for _, r in pairs:
                if r > top:
                    top = r
            covered = [False] * top
            for l, r in pairs:
                for x in range(l, r):
                    covered[x] = True
            total = 0
            for flag in covered:
                if flag:
                    total += 1
            print(total)
        """),
        "fast": _code(r"""
            import sys
            data = sys.stdin.read().split()
            n = int(data[0])
            it = iter(data[1:1 + 2 * n])
            pairs = sorted((int(l), int(r)) for l, r in zip(it, it))
            total = 0
            cur_l, cur_r = pairs[0]
            for l, r in pairs[1:]:
                if l > cur_r:
                    total += cur_r - cur_l
                    cur_l, cur_r = l, r
                elif r > cur_r:
                    cur_r = r
            print(total + cur_r - cur_l)
        """),
    },
    {
        "id": "codegym-optimize/py-sliding-max", "language": "python", "difficulty": "medium",
        "prompt": (
            "The first line holds n and k (1 <= k <= n); the second, n integers. For each run of k consecutive "
            "integers, from left to right, print its maximum; separate them by spaces."
        ),
        "bench_size": 2400, "test_sizes": [6, 8, 1, 2, 80, 480],
        "edge_inputs": ["1 1\n5\n", "4 4\n1 2 3 4\n", "5 1\n3 1 2 1 3\n", "5 2\n7 7 7 7 7\n"],
        "generator": _code(r"""
            def generate(size, rng):
                k = rng.randint(max(1, size // 4), max(1, size // 2))
                values = [rng.randint(-1000, 1000) for _ in range(size)]
                return f"{size} {k}\n{' '.join(map(str, values))}\n"
        """),
        "reference": _code(r"""
            n, k = map(int, input().split())
            a = list(map(int, input().split()))
            out = []
            for i in range(n - k + 1):
                m = a[i]
                for j in range(i + 1, i + k):
                    if a[j] > m:
                        m = a[j]
                out.append(m)
            print(' '.join(map(str, out)))
        """),
        "fast": _code(r"""
            from collections import deque
            n, k = map(int, input().split())
            a = list(map(int, input().split()))
            window = deque()
            out = []
            for i, x in enumerate(a):
                while window and a[window[-1]] <= x:
                    window.pop()
                window.append(i)
                if window[0] <= i - k:
                    window.popleft()
                if i >= k - 1:
                    out.append(a[window[0]])
            print(' '.join(map(str, out)))
        """),
    },
    {
        "id": "codegym-optimize/py-substring-count", "language": "python", "difficulty": "easy",
        "prompt": (
            "The first line holds a text t, the second a pattern p (both non-empty strings of letters). Print how "
            "many times p occurs in t, overlapping occurrences included."
        ),
        "bench_size": 60000, "test_sizes": [10, 12, 1, 2, 2000, 12000],
        "edge_inputs": ["a\na\n", "aaaa\naa\n", "ab\nabc\n", "abababa\naba\n"],
        "generator": _code(r"""
            def generate(size, rng):
                rate = 0.03 if size >= 1000 else 0.25
                text = ''.join('b' if rng.random() < rate else 'a' for _ in range(size))
                pattern = 'a' * rng.randint(1, max(1, min(30, size // 3))) + 'b'
                return f"{text}\n{pattern}\n"
        """),
        "reference": _code(r"""
            t = input().strip()
            p = input().strip()
            n, m = len(t), len(p)
            count = 0
            for i in range(n - m + 1):
                j = 0
                while j < m and t[i + j] == p[j]:
                    j += 1
                if j == m:
                    count += 1
            print(count)
        """),
        "fast": _code(r"""
            t = input().strip()
            p = input().strip()
            count = 0
            i = t.find(p)
            while i != -1:
                count += 1
                i = t.find(p, i + 1)
            print(count)
        """),
    },
    {
        "id": "codegym-optimize/py-running-median", "language": "python", "difficulty": "medium",
        "prompt": (
            "The first line holds n; the second, n integers. After reading each one, print the median of those read "
            "so far: with k read, the ((k + 1) // 2)-th smallest. Print the n medians on one line, separated by "
            "spaces."
        ),
        "bench_size": 2000, "test_sizes": [6, 8, 1, 2, 80, 400],
        "edge_inputs": ["1\n-4\n", "5\n2 2 2 2 2\n", "6\n6 5 4 3 2 1\n"],
        "generator": _code(r"""
            def generate(size, rng):
                values = [rng.randint(-10**6, 10**6) for _ in range(size)]
                return f"{size}\n{' '.join(map(str, values))}\n"
        """),
        "reference": _code(r"""
            n = int(input())
            a = list(map(int, input().split()))
            in_order = []
            out = []
            for x in a:
                pos = 0
                while pos < len(in_order) and in_order[pos] < x:
                    pos += 1
                in_order.insert(pos, x)
                out.append(in_order[(len(in_order) - 1) // 2])
            print(' '.join(map(str, out)))
        """),
        "fast": _code(r"""
            import heapq
            n = int(input())
            a = list(map(int, input().split()))
            low, high = [], []  # the smaller half (negated, a max-heap) and the larger half
            out = []
            for x in a:
                if low and x > -low[0]:
                    heapq.heappush(high, x)
                else:
                    heapq.heappush(low, -x)
                if len(low) > len(high) + 1:
                    heapq.heappush(high, -heapq.heappop(low))
                elif len(high) > len(low):
                    heapq.heappush(low, -heapq.heappop(high))
                out.append(-low[0])
            print(' '.join(map(str, out)))
        """),
    },
    {
        "id": "codegym-optimize/py-components-online", "language": "python", "difficulty": "medium",
        "prompt": (
            "The first line holds n and m; then m lines of u v (1 <= u, v <= n): edges added one at a time to a "
            "graph on vertices 1..n that starts with no edges. After each edge, print the number of connected "
            "components on a line of its own."
        ),
        "bench_size": 650, "test_sizes": [6, 8, 1, 2, 40, 130],
        "edge_inputs": ["1 1\n1 1\n", "3 3\n1 2\n2 1\n2 3\n"],
        "generator": _code(r"""
            def generate(size, rng):
                lines = [f"{size} {size}"]
                for _ in range(size):
                    lines.append(f"{rng.randint(1, size)} {rng.randint(1, size)}")
                return "\n".join(lines) + "\n"
        """),
        "reference": _code(r"""
            import sys
            from collections import deque
            data = sys.stdin.read().split()
            n, m = int(data[0]), int(data[1])
            adj = [[] for _ in range(n + 1)]
            out = []
            for e in range(m):
                u, v = int(data[2 + 2 * e]), int(data[3 + 2 * e])
                adj[u].append(v)
                adj[v].append(u)
                seen = [False] * (n + 1)
                components = 0
                for start in range(1, n + 1):
                    if seen[start]:
                        continue
                    components += 1
                    seen[start] = True
                    queue = deque([start])
                    while queue:
                        x = queue.popleft()
                        for y in adj[x]:
                            if not seen[y]:
                                seen[y] = True
                                queue.append(y)
                out.append(components)
            print('\n'.join(map(str, out)))
        """),
        "fast": _code(r"""
            import sys
            data = sys.stdin.read().split()
            n, m = int(data[0]), int(data[1])
            parent = list(range(n + 1))
            components = n
            out = []
            for e in range(m):
                u, v = int(data[2 + 2 * e]), int(data[3 + 2 * e])
                while parent[u] != u:
                    parent[u] = parent[parent[u]]
                    u = parent[u]
                while parent[v] != v:
                    parent[v] = parent[parent[v]]
                    v = parent[v]
                if u != v:
                    parent[u] = v
                    components -= 1
                out.append(components)
            print('\n'.join(map(str, out)))
        """),
    },
    {
        "id": "codegym-optimize/py-subarray-sum-k", "language": "python", "difficulty": "easy",
        "prompt": (
            "The first line holds n and k; the second, n integers. Print how many non-empty runs of consecutive "
            "integers sum to exactly k."
        ),
        "bench_size": 1500, "test_sizes": [6, 8, 1, 2, 60, 300],
        "edge_inputs": ["1 0\n0\n", "4 0\n0 0 0 0\n", "3 5\n1 2 3\n"],
        "generator": _code(r"""
            def generate(size, rng):
                values = [rng.randint(-10, 10) for _ in range(size)]
                return f"{size} {rng.randint(-10, 10)}\n{' '.join(map(str, values))}\n"
        """),
        "reference": _code(r"""
            n, k = map(int, input().split())
            a = list(map(int, input().split()))
            count = 0
            for i in range(n):
                s = 0
                for j in range(i, n):
                    s += a[j]
                    if s == k:
                        count += 1
            print(count)
        """),
        "fast": _code(r"""
            n, k = map(int, input().split())
            seen = {0: 1}
            s = count = 0
            for x in map(int, input().split()):
                s += x
                count += seen.get(s - k, 0)
                seen[s] = seen.get(s, 0) + 1
            print(count)
        """),
    },
]  # fmt: skip

# --- C --------------------------------------------------------------------------------------

C_TASKS = [
    {
        "id": "codegym-optimize/c-closest-pair-sum", "language": "c", "difficulty": "medium",
        "prompt": (
            "The first line holds n (n >= 2) and t; the second, n integers. Print the smallest value of "
            "|a_i + a_j - t| over all pairs i < j."
        ),
        "bench_size": 3500, "test_sizes": [6, 8, 2, 3, 100, 700],
        "edge_inputs": ["2 0\n5 -5\n", "3 100\n1 1 1\n", "4 -7\n-3 -4 10 20\n"],
        "generator": _code(r"""
            def generate(size, rng):
                n = max(2, size)
                values = [rng.randint(-10**6, 10**6) for _ in range(n)]
                return f"{n} {rng.randint(-2 * 10**6, 2 * 10**6)}\n{' '.join(map(str, values))}\n"
        """),
        "reference": _code(r"""
            #include <stdio.h>
            #include <stdlib.h>
            int main(void) {
                int n;
                long long t;
                if (scanf("%d %lld", &n, &t) != 2) return 1;
                long long *a = malloc(sizeof(long long) * n);
                for (int i = 0; i < n; i++) scanf("%lld", &a[i]);
                long long best = -1;
                for (int i = 0; i < n; i++)
                    for (int j = i + 1; j < n; j++) {
                        long long d = a[i] + a[j] - t;
                        if (d < 0) d = -d;
                        if (best < 0 || d < best) best = d;
                    }
                printf("%lld\n", best);
                free(a);
                return 0;
            }
        """),
        "fast": _code(r"""
            #include <stdio.h>
            #include <stdlib.h>
            static int compare(const void *x, const void *y) {
                long long a = *(const long long *)x, b = *(const long long *)y;
                return (a > b) - (a < b);
            }
            int main(void) {
                int n;
                long long t;
                if (scanf("%d %lld", &n, &t) != 2) return 1;
                long long *a = malloc(sizeof(long long) * n);
                for (int i = 0; i < n; i++) scanf("%lld", &a[i]);
                qsort(a, n, sizeof(long long), compare);
                long long best = -1;
                int i = 0, j = n - 1;
                while (i < j) {
                    long long s = a[i] + a[j] - t;
                    long long d = s < 0 ? -s : s;
                    if (best < 0 || d < best) best = d;
                    if (s < 0) i++;
                    else if (s > 0) j--;
                    else break;
                }
                printf("%lld\n", best);
                free(a);
                return 0;
            }
        """),
    },
    {
        "id": "codegym-optimize/c-divisor-queries", "language": "c", "difficulty": "medium",
        "prompt": (
            "The first line holds q; then q integers x (1 <= x <= 10^9). For each, print the number of positive "
            "divisors of x on a line of its own."
        ),
        "bench_size": 450, "test_sizes": [6, 8, 1, 2, 30, 90],
        "edge_inputs": ["1\n1\n", "4\n2 999999937 1000000000 735134400\n", "2\n999950884 961\n"],
        "generator": _code(r"""
            def generate(size, rng):
                values = []
                for _ in range(size):
                    if rng.random() < 0.1:
                        values.append(rng.randint(1, 31622) ** 2)
                    else:
                        values.append(rng.randint(1, 10**9))
                return f"{size}\n" + "\n".join(map(str, values)) + "\n"
        """),
        "reference": _code(r"""
            #include <stdio.h>
            int main(void) {
                int q;
                if (scanf("%d", &q) != 1) return 1;
                while (q--) {
                    long long x;
                    scanf("%lld", &x);
                    int count = 0;
                    for (long long d = 1; d * d <= x; d++)
                        if (x % d == 0) count += (d * d == x) ? 1 : 2;
                    printf("%d\n", count);
                }
                return 0;
            }
        """),
        "fast": _code(r"""
            #include <stdio.h>
            #define LIMIT 31623
            static char composite[LIMIT + 1];
            static int primes[LIMIT];
            int main(void) {
                int np = 0, q;
                for (int p = 2; p <= LIMIT; p++) {
                    if (composite[p]) continue;
                    primes[np++] = p;
                    for (long m = (long)p * p; m <= LIMIT; m += p) composite[m] = 1;
                }
                if (scanf("%d", &q) != 1) return 1;
                while (q--) {
                    long long x;
                    scanf("%lld", &x);
                    long long count = 1;
                    for (int i = 0; i < np && (long long)primes[i] * primes[i] <= x; i++) {
                        if (x % primes[i]) continue;
                        int e = 0;
                        while (x % primes[i] == 0) { x /= primes[i]; e++; }
                        count *= e + 1;
                    }
                    if (x > 1) count *= 2;
                    printf("%lld\n", count);
                }
                return 0;
            }
        """),
    },
    {
        "id": "codegym-optimize/c-range-gcd", "language": "c", "difficulty": "medium",
        "prompt": (
            "The first line holds n and q; the second, n positive integers; then q lines of l r (1 <= l <= r <= n). "
            "For each query print the greatest common divisor of a_l..a_r on a line of its own."
        ),
        "bench_size": 4000, "test_sizes": [6, 8, 1, 2, 100, 800],
        "edge_inputs": ["1 1\n12\n1 1\n", "3 3\n4 6 9\n1 2\n2 3\n1 3\n"],
        "generator": _code(r"""
            def generate(size, rng):
                bases = [6, 10, 15, 12, 18, 30, 60, 7, 14]
                values = [rng.choice(bases) * rng.randint(1, 50) for _ in range(size)]
                lines = [f"{size} {size}", " ".join(map(str, values))]
                for _ in range(size):
                    l = rng.randint(1, size)
                    lines.append(f"{l} {rng.randint(l, size)}")
                return "\n".join(lines) + "\n"
        """),
        "reference": _code(r"""
            #include <stdio.h>
            #include <stdlib.h>
            static long long gcd(long long a, long long b) {
                while (b) { long long t = a % b; a = b; b = t; }
                return a;
            }
            int main(void) {
                int n, q;
                if (scanf("%d %d", &n, &q) != 2) return 1;
                long long *a = malloc(sizeof(long long) * n);
                for (int i = 0; i < n; i++) scanf("%lld", &a[i]);
                while (q--) {
                    int l, r;
                    scanf("%d %d", &l, &r);
                    long long g = 0;
                    for (int i = l - 1; i < r; i++) g = gcd(g, a[i]);
                    printf("%lld\n", g);
                }
                free(a);
                return 0;
            }
        """),
        "fast": _code(r"""
            #include <stdio.h>
            #include <stdlib.h>
            static long long gcd(long long a, long long b) {
                while (b) { long long t = a % b; a = b; b = t; }
                return a;
            }
            int main(void) {
                int n, q;
                if (scanf("%d %d", &n, &q) != 2) return 1;
                int levels = 1;
                while ((1 << levels) <= n) levels++;
                long long *table = malloc(sizeof(long long) * (size_t)levels * n);
                for (int i = 0; i < n; i++) scanf("%lld", &table[i]);
                for (int k = 1; k < levels; k++) {
                    long long *prev = table + (size_t)(k - 1) * n, *cur = table + (size_t)k * n;
                    for (int i = 0; i + (1 << k) <= n; i++) cur[i] = gcd(prev[i], prev[i + (1 << (k - 1))]);
                }
                int *log2 = malloc(sizeof(int) * (n + 1));
                log2[1] = 0;
                for (int i = 2; i <= n; i++) log2[i] = log2[i / 2] + 1;
                while (q--) {
                    int l, r;
                    scanf("%d %d", &l, &r);
                    int k = log2[r - l + 1];
                    long long *row = table + (size_t)k * n;
                    printf("%lld\n", gcd(row[l - 1], row[r - (1 << k)]));
                }
                free(table);
                free(log2);
                return 0;
            }
        """),
    },
    {
        "id": "codegym-optimize/c-max-subarray", "language": "c", "difficulty": "easy",
        "prompt": (
            "The first line holds n (n >= 1); the second, n integers. Print the largest sum of a non-empty run of "
            "consecutive integers."
        ),
        "bench_size": 4500, "test_sizes": [6, 8, 1, 2, 100, 900],
        "edge_inputs": ["1\n-5\n", "3\n-3 -1 -2\n", "4\n0 0 0 0\n"],
        "generator": _code(r"""
            def generate(size, rng):
                values = [rng.randint(-1000, 1000) for _ in range(size)]
                return f"{size}\n{' '.join(map(str, values))}\n"
        """),
        "reference": _code(r"""
            #include <stdio.h>
            #include <stdlib.h>
            int main(void) {
                int n;
                if (scanf("%d", &n) != 1) return 1;
                long long *a = malloc(sizeof(long long) * n);
                for (int i = 0; i < n; i++) scanf("%lld", &a[i]);
                long long best = a[0];
                for (int i = 0; i < n; i++) {
                    long long s = 0;
                    for (int j = i; j < n; j++) {
                        s += a[j];
                        if (s > best) best = s;
                    }
                }
                printf("%lld\n", best);
                free(a);
                return 0;
            }
        """),
        "fast": _code(r"""
            #include <stdio.h>
            int main(void) {
                int n;
                if (scanf("%d", &n) != 1) return 1;
                long long best = 0, run = 0;
                for (int i = 0; i < n; i++) {
                    long long x;
                    scanf("%lld", &x);
                    run = (i == 0 || run < 0) ? x : run + x;
                    if (i == 0 || run > best) best = run;
                }
                printf("%lld\n", best);
                return 0;
            }
        """),
    },
    {
        "id": "codegym-optimize/c-matrix-power", "language": "c", "difficulty": "medium",
        "prompt": (
            "The first line holds d, k and m (1 <= d <= 8, k >= 0, 2 <= m <= 10^9); then d lines of d non-negative "
            "integers, a matrix A. Print A^k modulo m (A^0 is the identity) as d lines of d integers."
        ),
        "bench_size": 150000, "test_sizes": [6, 8, 1, 2, 300, 3000],
        "edge_inputs": ["1 0 5\n3\n", "2 1 7\n8 9\n10 11\n", "2 10 1000\n1 1\n1 0\n"],
        "generator": _code(r"""
            def generate(size, rng):
                d = 4 if size > 100 else rng.randint(1, 4)
                lines = [f"{d} {rng.randint(size // 2, size)} {rng.randint(2, 10**9)}"]
                for _ in range(d):
                    lines.append(" ".join(str(rng.randint(0, 10**9)) for _ in range(d)))
                return "\n".join(lines) + "\n"
        """),
        "reference": _code(r"""
            #include <stdio.h>
            #include <string.h>
            int main(void) {
                int d;
                long long k, m, a[8][8], r[8][8], t[8][8];
                if (scanf("%d %lld %lld", &d, &k, &m) != 3) return 1;
                for (int i = 0; i < d; i++)
                    for (int j = 0; j < d; j++) { scanf("%lld", &a[i][j]); a[i][j] %= m; }
                for (int i = 0; i < d; i++)
                    for (int j = 0; j < d; j++) r[i][j] = (i == j) ? 1 % m : 0;
                for (long long step = 0; step < k; step++) {
                    for (int i = 0; i < d; i++)
                        for (int j = 0; j < d; j++) {
                            long long acc = 0;
                            for (int l = 0; l < d; l++) acc = (acc + r[i][l] * a[l][j]) % m;
                            t[i][j] = acc;
                        }
                    memcpy(r, t, sizeof r);
                }
                for (int i = 0; i < d; i++)
                    for (int j = 0; j < d; j++) printf(j + 1 < d ? "%lld " : "%lld\n", r[i][j]);
                return 0;
            }
        """),
        "fast": _code(r"""
            #include <stdio.h>
            #include <string.h>
            static int d;
            static long long m;
            static void multiply(long long x[8][8], long long y[8][8]) {  /* x = x * y */
                long long t[8][8];
                for (int i = 0; i < d; i++)
                    for (int j = 0; j < d; j++) {
                        long long acc = 0;
                        for (int l = 0; l < d; l++) acc = (acc + x[i][l] * y[l][j]) % m;
                        t[i][j] = acc;
                    }
                memcpy(x, t, sizeof t);
            }
            int main(void) {
                long long k, a[8][8], r[8][8];
                if (scanf("%d %lld %lld", &d, &k, &m) != 3) return 1;
                for (int i = 0; i < d; i++)
                    for (int j = 0; j < d; j++) { scanf("%lld", &a[i][j]); a[i][j] %= m; }
                for (int i = 0; i < d; i++)
                    for (int j = 0; j < d; j++) r[i][j] = (i == j) ? 1 % m : 0;
                while (k > 0) {
                    if (k & 1) multiply(r, a);
                    multiply(a, a);
                    k >>= 1;
                }
                for (int i = 0; i < d; i++)
                    for (int j = 0; j < d; j++) printf(j + 1 < d ? "%lld " : "%lld\n", r[i][j]);
                return 0;
            }
        """),
    },
    {
        "id": "codegym-optimize/c-palindromic-substrings", "language": "c", "difficulty": "medium",
        "prompt": (
            "Read a non-empty string of lowercase letters (at most 10^6 of them). Print how many of its substrings "
            "(runs of consecutive characters, counted by position) read the same forwards and backwards."
        ),
        "bench_size": 2800, "test_sizes": [6, 9, 1, 2, 100, 560],
        "edge_inputs": ["a\n", "aaaa\n", "abc\n", "abba\n"],
        "generator": _code(r"""
            def generate(size, rng):
                return ''.join(rng.choice('ab') for _ in range(size)) + "\n"
        """),
        "reference": _code(r"""
            #include <stdio.h>
            #include <string.h>
            static char s[1000001];
            int main(void) {
                if (scanf("%1000000s", s) != 1) return 1;
                int n = (int)strlen(s);
                long long count = 0;
                for (int i = 0; i < n; i++)
                    for (int j = i; j < n; j++) {
                        int lo = i, hi = j;
                        while (lo < hi && s[lo] == s[hi]) { lo++; hi--; }
                        if (lo >= hi) count++;
                    }
                printf("%lld\n", count);
                return 0;
            }
        """),
        "fast": _code(r"""
            #include <stdio.h>
            #include <string.h>
            static char s[1000001];
            int main(void) {
                if (scanf("%1000000s", s) != 1) return 1;
                int n = (int)strlen(s);
                long long count = 0;
                for (int center = 0; center < 2 * n - 1; center++) {
                    int lo = center / 2, hi = lo + center % 2;
                    while (lo >= 0 && hi < n && s[lo] == s[hi]) { count++; lo--; hi++; }
                }
                printf("%lld\n", count);
                return 0;
            }
        """),
    },
    {
        "id": "codegym-optimize/c-max-overlap", "language": "c", "difficulty": "medium",
        "prompt": (
            "The first line holds n (n >= 1); then n lines of l r (l <= r), each the closed interval [l, r]. Print "
            "the largest number of intervals that share a common point."
        ),
        "bench_size": 3500, "test_sizes": [6, 8, 1, 2, 100, 700],
        "edge_inputs": ["1\n3 3\n", "2\n1 2\n2 3\n", "3\n1 2\n3 4\n5 6\n"],
        "generator": _code(r"""
            def generate(size, rng):
                lines = [str(size)]
                for _ in range(size):
                    l = rng.randint(0, 10 * size)
                    lines.append(f"{l} {l + rng.randint(0, 2 * size)}")
                return "\n".join(lines) + "\n"
        """),
        "reference": _code(r"""
            #include <stdio.h>
            #include <stdlib.h>
            int main(void) {
                int n;
                if (scanf("%d", &n) != 1) return 1;
                int *l = malloc(sizeof(int) * n), *r = malloc(sizeof(int) * n);
                for (int i = 0; i < n; i++) scanf("%d %d", &l[i], &r[i]);
                int best = 0;
                for (int i = 0; i < n; i++) {
                    int count = 0;
                    for (int j = 0; j < n; j++)
                        if (l[j] <= l[i] && l[i] <= r[j]) count++;
                    if (count > best) best = count;
                }
                printf("%d\n", best);
                free(l);
                free(r);
                return 0;
            }
        """),
        "fast": _code(r"""
            #include <stdio.h>
            #include <stdlib.h>
            static int compare(const void *x, const void *y) {
                int a = *(const int *)x, b = *(const int *)y;
                return (a > b) - (a < b);
            }
            int main(void) {
                int n;
                if (scanf("%d", &n) != 1) return 1;
                int *l = malloc(sizeof(int) * n), *r = malloc(sizeof(int) * n);
                for (int i = 0; i < n; i++) scanf("%d %d", &l[i], &r[i]);
                qsort(l, n, sizeof(int), compare);
                qsort(r, n, sizeof(int), compare);
                int best = 0, open = 0, j = 0;
                for (int i = 0; i < n; i++) {
                    while (r[j] < l[i]) { j++; open--; }
                    open++;
                    if (open > best) best = open;
                }
                printf("%d\n", best);
                free(l);
                free(r);
                return 0;
            }
        """),
    },
    {
        "id": "codegym-optimize/c-totient-sum", "language": "c", "difficulty": "medium",
        "prompt": (
            "Read n (n >= 1). Print phi(1) + phi(2) + ... + phi(n), where phi(k) counts the integers j in 1..k "
            "with gcd(j, k) = 1."
        ),
        "bench_size": 2400, "test_sizes": [10, 12, 1, 2, 100, 480],
        "edge_inputs": ["1\n", "2\n", "30\n"],
        "generator": _code(r"""
            def generate(size, rng):
                return f"{rng.randint(max(1, size // 2), size)}\n"
        """),
        "reference": _code(r"""
            #include <stdio.h>
            static long gcd(long a, long b) {
                while (b) { long t = a % b; a = b; b = t; }
                return a;
            }
            int main(void) {
                long n, total = 0;
                if (scanf("%ld", &n) != 1) return 1;
                for (long k = 1; k <= n; k++)
                    for (long j = 1; j <= k; j++)
                        if (gcd(j, k) == 1) total++;
                printf("%ld\n", total);
                return 0;
            }
        """),
        "fast": _code(r"""
            #include <stdio.h>
            #include <stdlib.h>
            int main(void) {
                long n, total = 0;
                if (scanf("%ld", &n) != 1) return 1;
                long *phi = malloc(sizeof(long) * (n + 1));
                for (long i = 0; i <= n; i++) phi[i] = i;
                for (long p = 2; p <= n; p++)
                    if (phi[p] == p)
                        for (long m = p; m <= n; m += p) phi[m] -= phi[m] / p;
                for (long i = 1; i <= n; i++) total += phi[i];
                printf("%ld\n", total);
                free(phi);
                return 0;
            }
        """),
    },
    {
        "id": "codegym-optimize/c-trapped-water", "language": "c", "difficulty": "easy",
        "prompt": (
            "The first line holds n (n >= 1); the second, n non-negative integers, the heights of columns of width "
            "1 side by side. Print how many unit cells of water they hold after rain: above each column, water "
            "rises to the lower of the highest columns to its left and to its right (each including itself)."
        ),
        "bench_size": 4000, "test_sizes": [6, 8, 1, 2, 100, 800],
        "edge_inputs": ["1\n4\n", "3\n2 0 2\n", "5\n1 2 3 2 1\n", "4\n0 0 0 0\n"],
        "generator": _code(r"""
            def generate(size, rng):
                values = [rng.randint(0, 1000) for _ in range(size)]
                return f"{size}\n{' '.join(map(str, values))}\n"
        """),
        "reference": _code(r"""
            #include <stdio.h>
            #include <stdlib.h>
            int main(void) {
                int n;
                if (scanf("%d", &n) != 1) return 1;
                int *h = malloc(sizeof(int) * n);
                for (int i = 0; i < n; i++) scanf("%d", &h[i]);
                long long total = 0;
                for (int i = 0; i < n; i++) {
                    int left = 0, right = 0;
                    for (int j = 0; j <= i; j++)
                        if (h[j] > left) left = h[j];
                    for (int j = i; j < n; j++)
                        if (h[j] > right) right = h[j];
                    total += (left < right ? left : right) - h[i];
                }
                printf("%lld\n", total);
                free(h);
                return 0;
            }
        """),
        "fast": _code(r"""
            #include <stdio.h>
            #include <stdlib.h>
            int main(void) {
                int n;
                if (scanf("%d", &n) != 1) return 1;
                int *h = malloc(sizeof(int) * n);
                for (int i = 0; i < n; i++) scanf("%d", &h[i]);
                long long total = 0;
                int i = 0, j = n - 1, left = 0, right = 0;
                while (i <= j) {
                    if (h[i] > left) left = h[i];
                    if (h[j] > right) right = h[j];
                    if (left <= right) total += left - h[i++];
                    else total += right - h[j--];
                }
                printf("%lld\n", total);
                free(h);
                return 0;
            }
        """),
    },
    {
        "id": "codegym-optimize/c-longest-distinct-run", "language": "c", "difficulty": "medium",
        "prompt": (
            "The first line holds n (n >= 1); the second, n integers in 0..999999. Print the length of the longest "
            "run of consecutive integers in which no value appears twice."
        ),
        "bench_size": 6000, "test_sizes": [8, 10, 1, 2, 200, 1200],
        "edge_inputs": ["1\n0\n", "4\n5 5 5 5\n", "5\n1 2 3 4 5\n", "6\n1 2 1 3 4 2\n"],
        "generator": _code(r"""
            def generate(size, rng):
                top = min(5000, max(2, size // 2))
                values = [rng.randint(0, top - 1) for _ in range(size)]
                return f"{size}\n{' '.join(map(str, values))}\n"
        """),
        "reference": _code(r"""
            #include <stdio.h>
            #include <stdlib.h>
            int main(void) {
                int n;
                if (scanf("%d", &n) != 1) return 1;
                int *a = malloc(sizeof(int) * n);
                for (int i = 0; i < n; i++) scanf("%d", &a[i]);
                int best = 0;
                for (int i = 0; i < n; i++) {
                    int j = i;
                    while (j < n) {
                        int repeated = 0;
                        for (int k = i; k < j; k++)
                            if (a[k] == a[j]) { repeated = 1; break; }
                        if (repeated) break;
                        j++;
                    }
                    if (j - i > best) best = j - i;
                }
                printf("%d\n", best);
                free(a);
                return 0;
            }
        """),
        "fast": _code(r"""
            #include <stdio.h>
            static int last_seen[1000000];  /* 1 + the last index of each value, 0 for none yet */
            int main(void) {
                int n, best = 0, start = 0;
                if (scanf("%d", &n) != 1) return 1;
                for (int i = 0; i < n; i++) {
                    int x;
                    scanf("%d", &x);
                    if (last_seen[x] > start) start = last_seen[x];
                    last_seen[x] = i + 1;
                    if (i + 1 - start > best) best = i + 1 - start;
                }
                printf("%d\n", best);
                return 0;
            }
        """),
    },
    {
        "id": "codegym-optimize/c-josephus", "language": "c", "difficulty": "medium",
        "prompt": (
            "Read n and k (1 <= n <= 10^6, 1 <= k <= 10^9). People 1..n stand in a circle; counting starts at "
            "person 1, and every k-th person counted leaves the circle, the count going on from the next one. "
            "Print the last person left."
        ),
        "bench_size": 10000, "test_sizes": [6, 9, 1, 2, 300, 2000],
        "edge_inputs": ["1 1\n", "1 1000000000\n", "7 1\n", "7 3\n", "5 1000000000\n"],
        "generator": _code(r"""
            def generate(size, rng):
                return f"{rng.randint(max(1, size * 3 // 4), max(1, size))} {rng.randint(1, 1000)}\n"
        """),
        "reference": _code(r"""
            #include <stdio.h>
            #include <stdlib.h>
            int main(void) {
                int n;
                long long k;
                if (scanf("%d %lld", &n, &k) != 2) return 1;
                int *circle = malloc(sizeof(int) * n);
                for (int i = 0; i < n; i++) circle[i] = i + 1;
                int len = n, idx = 0;
                while (len > 1) {
                    idx = (int)((idx + k - 1) % len);
                    for (int i = idx; i + 1 < len; i++) circle[i] = circle[i + 1];
                    len--;
                    if (idx == len) idx = 0;
                }
                printf("%d\n", circle[0]);
                free(circle);
                return 0;
            }
        """),
        "fast": _code(r"""
            #include <stdio.h>
            int main(void) {
                int n;
                long long k, survivor = 0;  /* 0-based, among the first i people */
                if (scanf("%d %lld", &n, &k) != 2) return 1;
                for (long long i = 2; i <= n; i++) survivor = (survivor + k) % i;
                printf("%lld\n", survivor + 1);
                return 0;
            }
        """),
    },
]  # fmt: skip

# --- C++ ------------------------------------------------------------------------------------

# A reader of whitespace-separated integers from the whole of stdin, for the fast C++ solutions whose
# cost would otherwise be mostly scanf's.
CPP_READER = r"""
struct Reader {
    std::vector<char> data;
    size_t pos = 0;
    Reader() {
        char chunk[1 << 16];
        size_t got;
        while ((got = std::fread(chunk, 1, sizeof chunk, stdin)) > 0) data.insert(data.end(), chunk, chunk + got);
    }
    long long next() {
        while (pos < data.size() && data[pos] != '-' && (data[pos] < '0' || data[pos] > '9')) pos++;
        bool negative = pos < data.size() && data[pos] == '-';
        if (negative) pos++;
        long long x = 0;
        while (pos < data.size() && data[pos] >= '0' && data[pos] <= '9') x = x * 10 + (data[pos++] - '0');
        return negative ? -x : x;
    }
};
"""

CPP_TASKS = [
    {
        "id": "codegym-optimize/cpp-kth-largest-stream", "language": "cpp", "difficulty": "medium",
        "prompt": (
            "The first line holds n and k (1 <= k <= n); the second, n integers. For each i from k to n, print "
            "the k-th largest of the first i integers (repeated values counted separately); separate them by spaces."
        ),
        "bench_size": 1500, "test_sizes": [6, 8, 1, 2, 60, 300],
        "edge_inputs": ["1 1\n9\n", "4 2\n5 5 5 5\n", "5 5\n1 2 3 4 5\n"],
        "generator": _code(r"""
            def generate(size, rng):
                k = rng.randint(1, max(1, size // 2))
                values = [rng.randint(-10**6, 10**6) for _ in range(size)]
                return f"{size} {k}\n{' '.join(map(str, values))}\n"
        """),
        "reference": _code(r"""
            #include <algorithm>
            #include <cstdio>
            #include <functional>
            #include <vector>
            int main() {
                int n, k;
                if (std::scanf("%d %d", &n, &k) != 2) return 1;
                std::vector<long long> seen, out;
                for (int i = 0; i < n; i++) {
                    long long x;
                    std::scanf("%lld", &x);
                    seen.push_back(x);
                    if ((int)seen.size() >= k) {
                        std::vector<long long> ordered = seen;
                        std::sort(ordered.begin(), ordered.end(), std::greater<long long>());
                        out.push_back(ordered[k - 1]);
                    }
                }
                for (size_t i = 0; i < out.size(); i++) std::printf(i ? " %lld" : "%lld", out[i]);
                std::printf("\n");
            }
        """),
        "fast": _code(r"""
            #include <cstdio>
            #include <functional>
            #include <queue>
            #include <vector>
            int main() {
                int n, k;
                if (std::scanf("%d %d", &n, &k) != 2) return 1;
                std::priority_queue<long long, std::vector<long long>, std::greater<long long>> top;  // the k largest
                for (int i = 0; i < n; i++) {
                    long long x;
                    std::scanf("%lld", &x);
                    if ((int)top.size() < k) top.push(x);
                    else if (x > top.top()) { top.pop(); top.push(x); }
                    if (i >= k - 1) std::printf(i >= k ? " %lld" : "%lld", top.top());
                }
                std::printf("\n");
            }
        """),
    },
    {
        "id": "codegym-optimize/cpp-connectivity-queries", "language": "cpp", "difficulty": "medium",
        "prompt": (
            "The first line holds n and q; then q lines, each '1 u v' (add an edge between vertices u and v) or "
            "'2 u v' (are u and v connected? print YES or NO on a line of its own), with 1 <= u, v <= n. The "
            "graph starts with no edges."
        ),
        "bench_size": 3200, "test_sizes": [6, 8, 1, 2, 100, 640],
        "edge_inputs": ["1 1\n2 1 1\n", "3 4\n2 1 3\n1 1 2\n1 2 3\n2 3 1\n"],
        "generator": _code(r"""
            def generate(size, rng):
                n, q = size, 2 * size
                lines = [f"{n} {q}"]
                for _ in range(q):
                    kind = 1 if rng.random() < 0.5 else 2
                    lines.append(f"{kind} {rng.randint(1, n)} {rng.randint(1, n)}")
                return "\n".join(lines) + "\n"
        """),
        "reference": _code(r"""
            #include <cstdio>
            #include <vector>
            int main() {
                int n, q;
                if (std::scanf("%d %d", &n, &q) != 2) return 1;
                std::vector<std::vector<int>> adj(n + 1);
                for (int i = 0; i < q; i++) {
                    int kind, u, v;
                    std::scanf("%d %d %d", &kind, &u, &v);
                    if (kind == 1) {
                        adj[u].push_back(v);
                        adj[v].push_back(u);
                        continue;
                    }
                    std::vector<char> seen(n + 1, 0);
                    std::vector<int> stack = {u};
                    seen[u] = 1;
                    while (!stack.empty()) {
                        int x = stack.back();
                        stack.pop_back();
                        for (int y : adj[x])
                            if (!seen[y]) { seen[y] = 1; stack.push_back(y); }
                    }
                    std::puts(seen[v] ? "YES" : "NO");
                }
            }
        """),
        "fast": "#include <cstdio>\n#include <string>\n#include <vector>\n" + CPP_READER + _code(r"""
            static std::vector<int> parent;
            static int find(int x) {
                while (parent[x] != x) { parent[x] = parent[parent[x]]; x = parent[x]; }
                return x;
            }
            int main() {
                Reader in;
                int n = (int)in.next(), q = (int)in.next();
                parent.resize(n + 1);
                for (int i = 0; i <= n; i++) parent[i] = i;
                std::string out;
                for (int i = 0; i < q; i++) {
                    int kind = (int)in.next(), u = (int)in.next(), v = (int)in.next();
                    if (kind == 1) parent[find(u)] = find(v);
                    else out += find(u) == find(v) ? "YES\n" : "NO\n";
                }
                std::fwrite(out.data(), 1, out.size(), stdout);
            }
        """),
    },
    {
        "id": "codegym-optimize/cpp-anagram-classes", "language": "cpp", "difficulty": "easy",
        "prompt": (
            "The first line holds n; then n words of lowercase letters, one a line. Words are in the same class when "
            "they are anagrams (the same letters, each the same number of times). Print how many classes there are."
        ),
        "bench_size": 5000, "test_sizes": [6, 8, 1, 2, 100, 1000],
        "edge_inputs": ["1\nabc\n", "3\nab\nba\nab\n", "3\naab\nabb\nbab\n"],
        "generator": _code(r"""
            def generate(size, rng):
                letters, shortest, longest = ('abcdefghij', 3, 6) if size >= 50 else ('abc', 2, 3)
                words = []
                for _ in range(size):
                    words.append(''.join(rng.choice(letters) for _ in range(rng.randint(shortest, longest))))
                return f"{size}\n" + "\n".join(words) + "\n"
        """),
        "reference": _code(r"""
            #include <algorithm>
            #include <iostream>
            #include <string>
            #include <vector>
            int main() {
                std::ios::sync_with_stdio(false);
                int n;
                if (!(std::cin >> n)) return 1;
                std::vector<std::string> keys(n);
                for (auto &w : keys) {
                    std::cin >> w;
                    std::sort(w.begin(), w.end());
                }
                int classes = 0;
                for (int i = 0; i < n; i++) {
                    bool first = true;
                    for (int j = 0; j < i; j++)
                        if (keys[j] == keys[i]) { first = false; break; }
                    if (first) classes++;
                }
                std::cout << classes << "\n";
            }
        """),
        "fast": _code(r"""
            #include <algorithm>
            #include <iostream>
            #include <string>
            #include <vector>
            int main() {
                std::ios::sync_with_stdio(false);
                int n;
                if (!(std::cin >> n)) return 1;
                std::vector<std::string> keys(n);
                for (auto &w : keys) {
                    std::cin >> w;
                    std::sort(w.begin(), w.end());
                }
                std::sort(keys.begin(), keys.end());
                std::cout << std::unique(keys.begin(), keys.end()) - keys.begin() << "\n";
            }
        """),
    },
    {
        "id": "codegym-optimize/cpp-count-at-most", "language": "cpp", "difficulty": "easy",
        "prompt": (
            "The first line holds n and q; the second, n integers; the third, q integers x. For each x, print how "
            "many of the n integers are at most x, on a line of its own."
        ),
        "bench_size": 3500, "test_sizes": [6, 8, 1, 2, 100, 700],
        "edge_inputs": ["1 1\n5\n4\n", "3 3\n2 2 2\n1 2 3\n"],
        "generator": _code(r"""
            def generate(size, rng):
                values = [rng.randint(-10**6, 10**6) for _ in range(size)]
                queries = [rng.randint(-10**6, 10**6) for _ in range(size)]
                return f"{size} {size}\n{' '.join(map(str, values))}\n{' '.join(map(str, queries))}\n"
        """),
        "reference": _code(r"""
            #include <cstdio>
            #include <vector>
            int main() {
                int n, q;
                if (std::scanf("%d %d", &n, &q) != 2) return 1;
                std::vector<long long> a(n);
                for (auto &x : a) std::scanf("%lld", &x);
                while (q--) {
                    long long x;
                    std::scanf("%lld", &x);
                    int count = 0;
                    for (int i = 0; i < n; i++)
                        if (a[i] <= x) count++;
                    std::printf("%d\n", count);
                }
            }
        """),
        "fast": "#include <algorithm>\n#include <cstdio>\n#include <string>\n#include <vector>\n" + CPP_READER
        + _code(r"""
            int main() {
                Reader in;
                int n = (int)in.next(), q = (int)in.next();
                std::vector<long long> a(n);
                for (auto &x : a) x = in.next();
                std::sort(a.begin(), a.end());
                std::string out;
                while (q--) {
                    long long x = in.next();
                    out += std::to_string(std::upper_bound(a.begin(), a.end(), x) - a.begin());
                    out += '\n';
                }
                std::fwrite(out.data(), 1, out.size(), stdout);
            }
        """),
    },
    {
        "id": "codegym-optimize/cpp-at-most-k-distinct", "language": "cpp", "difficulty": "medium",
        "prompt": (
            "The first line holds n and k (n, k >= 1); the second, n integers in 0..10^6. Print the length of the "
            "longest run of consecutive integers that holds at most k distinct values."
        ),
        "bench_size": 2500, "test_sizes": [8, 10, 1, 2, 100, 500],
        "edge_inputs": ["1 1\n0\n", "5 1\n4 4 4 4 4\n", "6 2\n1 2 1 3 3 3\n", "3 5\n1 2 3\n"],
        "generator": _code(r"""
            def generate(size, rng):
                top = max(2, size // 4)
                k = rng.randint(max(1, top // 10), max(1, top // 5))
                values = [rng.randint(0, top - 1) for _ in range(size)]
                return f"{size} {k}\n{' '.join(map(str, values))}\n"
        """),
        "reference": _code(r"""
            #include <cstdio>
            #include <set>
            #include <vector>
            int main() {
                int n, k;
                if (std::scanf("%d %d", &n, &k) != 2) return 1;
                std::vector<int> a(n);
                for (auto &x : a) std::scanf("%d", &x);
                int best = 0;
                for (int i = 0; i < n; i++) {
                    std::set<int> distinct;
                    int j = i;
                    while (j < n) {
                        distinct.insert(a[j]);
                        if ((int)distinct.size() > k) break;
                        j++;
                    }
                    if (j - i > best) best = j - i;
                }
                std::printf("%d\n", best);
            }
        """),
        "fast": _code(r"""
            #include <cstdio>
            #include <vector>
            int main() {
                int n, k;
                if (std::scanf("%d %d", &n, &k) != 2) return 1;
                std::vector<int> a(n), count(1000001, 0);
                for (auto &x : a) std::scanf("%d", &x);
                int best = 0, distinct = 0, start = 0;
                for (int i = 0; i < n; i++) {
                    if (count[a[i]]++ == 0) distinct++;
                    while (distinct > k)
                        if (--count[a[start++]] == 0) distinct--;
                    if (i + 1 - start > best) best = i + 1 - start;
                }
                std::printf("%d\n", best);
            }
        """),
    },
    {
        "id": "codegym-optimize/cpp-range-add", "language": "cpp", "difficulty": "easy",
        "prompt": (
            "The first line holds n and q; the second, n integers; then q lines of l r v (1 <= l <= r <= n): add v "
            "to each of a_l..a_r. Print the n integers after all the updates, separated by spaces."
        ),
        "bench_size": 6500, "test_sizes": [5, 6, 1, 2, 100, 1300],
        "edge_inputs": ["1 1\n5\n1 1 -5\n", "3 2\n0 0 0\n1 3 2\n2 2 -7\n"],
        "generator": _code(r"""
            def generate(size, rng):
                n = q = size
                lines = [f"{n} {q}", " ".join(str(rng.randint(-1000, 1000)) for _ in range(n))]
                for _ in range(q):
                    l = rng.randint(1, max(1, n // 2))
                    lines.append(f"{l} {rng.randint(max(l, n // 2), n)} {rng.randint(-1000, 1000)}")
                return "\n".join(lines) + "\n"
        """),
        "reference": _code(r"""
            #include <cstdio>
            #include <vector>
            int main() {
                int n, q;
                if (std::scanf("%d %d", &n, &q) != 2) return 1;
                std::vector<long long> a(n);
                for (auto &x : a) std::scanf("%lld", &x);
                while (q--) {
                    int l, r;
                    long long v;
                    std::scanf("%d %d %lld", &l, &r, &v);
                    for (int i = l - 1; i < r; i++) a[i] += v;
                }
                for (int i = 0; i < n; i++) std::printf(i ? " %lld" : "%lld", a[i]);
                std::printf("\n");
            }
        """),
        "fast": "#include <cstdio>\n#include <string>\n#include <vector>\n" + CPP_READER + _code(r"""
            int main() {
                Reader in;
                int n = (int)in.next(), q = (int)in.next();
                std::vector<long long> a(n), delta(n + 1, 0);
                for (auto &x : a) x = in.next();
                while (q--) {
                    int l = (int)in.next(), r = (int)in.next();
                    long long v = in.next();
                    delta[l - 1] += v;
                    delta[r] -= v;
                }
                std::string out;
                long long shift = 0;
                for (int i = 0; i < n; i++) {
                    shift += delta[i];
                    if (i) out += ' ';
                    out += std::to_string(a[i] + shift);
                }
                out += '\n';
                std::fwrite(out.data(), 1, out.size(), stdout);
            }
        """),
    },
    {
        "id": "codegym-optimize/cpp-rectangle-sums", "language": "cpp", "difficulty": "easy",
        "prompt": (
            "The first line holds r, c and q; then r lines of c integers, a grid; then q lines of x1 y1 x2 y2 "
            "(1 <= x1 <= x2 <= r, 1 <= y1 <= y2 <= c). For each, print the sum of the grid's cells in rows x1..x2 "
            "and columns y1..y2, on a line of its own."
        ),
        "bench_size": 2400, "test_sizes": [5, 6, 1, 2, 100, 480],
        "edge_inputs": ["1 1 1\n-4\n1 1 1 1\n", "2 3 2\n1 2 3\n4 5 6\n1 1 2 3\n2 2 2 3\n"],
        "generator": _code(r"""
            def generate(size, rng):
                rows, cols, q = max(2, size // 20), max(2, size // 20 + 3), size
                lines = [f"{rows} {cols} {q}"]
                for _ in range(rows):
                    lines.append(" ".join(str(rng.randint(-1000, 1000)) for _ in range(cols)))
                for _ in range(q):
                    x1, y1 = rng.randint(1, max(1, rows // 4)), rng.randint(1, max(1, cols // 4))
                    x2, y2 = rng.randint(max(x1, rows * 3 // 4), rows), rng.randint(max(y1, cols * 3 // 4), cols)
                    lines.append(f"{x1} {y1} {x2} {y2}")
                return "\n".join(lines) + "\n"
        """),
        "reference": _code(r"""
            #include <cstdio>
            #include <vector>
            int main() {
                int rows, cols, q;
                if (std::scanf("%d %d %d", &rows, &cols, &q) != 3) return 1;
                std::vector<std::vector<long long>> grid(rows, std::vector<long long>(cols));
                for (auto &row : grid)
                    for (auto &x : row) std::scanf("%lld", &x);
                while (q--) {
                    int x1, y1, x2, y2;
                    std::scanf("%d %d %d %d", &x1, &y1, &x2, &y2);
                    long long total = 0;
                    for (int i = x1 - 1; i < x2; i++)
                        for (int j = y1 - 1; j < y2; j++) total += grid[i][j];
                    std::printf("%lld\n", total);
                }
            }
        """),
        "fast": "#include <cstdio>\n#include <string>\n#include <vector>\n" + CPP_READER + _code(r"""
            int main() {
                Reader in;
                int rows = (int)in.next(), cols = (int)in.next(), q = (int)in.next();
                std::vector<long long> sums((size_t)(rows + 1) * (cols + 1), 0);  // sums of the top-left corners
                auto at = [&](int i, int j) -> long long & { return sums[(size_t)i * (cols + 1) + j]; };
                for (int i = 1; i <= rows; i++)
                    for (int j = 1; j <= cols; j++)
                        at(i, j) = in.next() + at(i - 1, j) + at(i, j - 1) - at(i - 1, j - 1);
                std::string out;
                while (q--) {
                    int x1 = (int)in.next(), y1 = (int)in.next(), x2 = (int)in.next(), y2 = (int)in.next();
                    out += std::to_string(at(x2, y2) - at(x1 - 1, y2) - at(x2, y1 - 1) + at(x1 - 1, y1 - 1));
                    out += '\n';
                }
                std::fwrite(out.data(), 1, out.size(), stdout);
            }
        """),
    },
    {
        "id": "codegym-optimize/cpp-min-coins", "language": "cpp", "difficulty": "medium",
        "prompt": (
            "The first line holds n and s (s >= 0); the second, n distinct positive coin values. Print the fewest "
            "coins that pay exactly s, with any number of coins of each value, or -1 if s cannot be paid."
        ),
        "bench_size": 4500, "test_sizes": [10, 12, 1, 2, 200, 900],
        "edge_inputs": ["1 0\n5\n", "2 7\n2 4\n", "3 11\n1 5 6\n", "1 1\n1\n"],
        "generator": _code(r"""
            def generate(size, rng):
                n = rng.randint(3, 6)
                coins = rng.sample(range(5, 60) if size >= 50 else range(1, 10), n)
                s = size - rng.randint(0, size // 10)
                return f"{n} {s}\n{' '.join(map(str, coins))}\n"
        """),
        "reference": _code(r"""
            #include <cstdio>
            #include <vector>
            int main() {
                int n, s;
                if (std::scanf("%d %d", &n, &s) != 2) return 1;
                std::vector<int> best(s + 1, -1);  // the fewest coins for each amount, -1 for none
                best[0] = 0;
                for (int i = 0; i < n; i++) {
                    int c;
                    std::scanf("%d", &c);
                    if (c <= s) best[c] = 1;
                }
                for (int a = 1; a <= s; a++) {
                    if (best[a] == 1) continue;
                    for (int b = 1; b <= a / 2; b++)
                        if (best[b] > 0 && best[a - b] > 0 && (best[a] < 0 || best[b] + best[a - b] < best[a]))
                            best[a] = best[b] + best[a - b];
                }
                std::printf("%d\n", best[s]);
            }
        """),
        "fast": _code(r"""
            #include <cstdio>
            #include <vector>
            int main() {
                int n, s;
                if (std::scanf("%d %d", &n, &s) != 2) return 1;
                std::vector<int> coins(n), best(s + 1, -1);
                for (auto &c : coins) std::scanf("%d", &c);
                best[0] = 0;
                for (int a = 1; a <= s; a++)
                    for (int c : coins)
                        if (c <= a && best[a - c] >= 0 && (best[a] < 0 || best[a - c] + 1 < best[a]))
                            best[a] = best[a - c] + 1;
                std::printf("%d\n", best[s]);
            }
        """),
    },
    {
        "id": "codegym-optimize/cpp-count-triangles", "language": "cpp", "difficulty": "medium",
        "prompt": (
            "The first line holds n; the second, n positive integers, the lengths of n sticks. Print how many "
            "triples i < j < k of sticks can form a triangle of positive area."
        ),
        "bench_size": 340, "test_sizes": [6, 8, 1, 3, 40, 68],
        "edge_inputs": ["3\n1 2 3\n", "4\n5 5 5 5\n", "2\n1 1\n"],
        "generator": _code(r"""
            def generate(size, rng):
                values = [rng.randint(1, 1000) for _ in range(size)]
                return f"{size}\n{' '.join(map(str, values))}\n"
        """),
        "reference": _code(r"""
            #include <cstdio>
            #include <vector>
            int main() {
                int n;
                if (std::scanf("%d", &n) != 1) return 1;
                std::vector<long long> a(n);
                for (auto &x : a) std::scanf("%lld", &x);
                long long count = 0;
                for (int i = 0; i < n; i++)
                    for (int j = i + 1; j < n; j++)
                        for (int k = j + 1; k < n; k++)
                            if (a[i] + a[j] > a[k] && a[i] + a[k] > a[j] && a[j] + a[k] > a[i]) count++;
                std::printf("%lld\n", count);
            }
        """),
        "fast": _code(r"""
            #include <algorithm>
            #include <cstdio>
            #include <vector>
            int main() {
                int n;
                if (std::scanf("%d", &n) != 1) return 1;
                std::vector<long long> a(n);
                for (auto &x : a) std::scanf("%lld", &x);
                std::sort(a.begin(), a.end());
                long long count = 0;
                for (int k = 2; k < n; k++) {
                    int i = 0, j = k - 1;
                    while (i < j) {
                        if (a[i] + a[j] > a[k]) { count += j - i; j--; }
                        else i++;
                    }
                }
                std::printf("%lld\n", count);
            }
        """),
    },
    {
        "id": "codegym-optimize/cpp-binomial-queries", "language": "cpp", "difficulty": "medium",
        "prompt": (
            "The first line holds q; then q lines of n k (0 <= k <= n <= 10^6). For each, print the binomial "
            "coefficient C(n, k) modulo 1000000007 on a line of its own."
        ),
        "bench_size": 80000, "test_sizes": [6, 8, 1, 2, 1000, 16000],
        "edge_inputs": ["1\n0 0\n", "3\n5 0\n5 5\n1000000 500000\n", "2\n1 1\n10 3\n"],
        "generator": _code(r"""
            def generate(size, rng):
                q = min(100, size)
                lines = [str(q)]
                for _ in range(q):
                    n = rng.randint(0, size)
                    lines.append(f"{n} {rng.randint(0, n)}")
                return "\n".join(lines) + "\n"
        """),
        "reference": _code(r"""
            #include <cstdio>
            const long long MOD = 1000000007;
            static long long power(long long base, long long e) {
                long long result = 1;
                base %= MOD;
                while (e > 0) {
                    if (e & 1) result = result * base % MOD;
                    base = base * base % MOD;
                    e >>= 1;
                }
                return result;
            }
            int main() {
                int q;
                if (std::scanf("%d", &q) != 1) return 1;
                while (q--) {
                    long long n, k, num = 1, den = 1;
                    std::scanf("%lld %lld", &n, &k);
                    for (long long i = 0; i < k; i++) {
                        num = num * ((n - i) % MOD) % MOD;
                        den = den * ((i + 1) % MOD) % MOD;
                    }
                    std::printf("%lld\n", num * power(den, MOD - 2) % MOD);
                }
            }
        """),
        "fast": _code(r"""
            #include <cstdio>
            #include <vector>
            const long long MOD = 1000000007;
            static long long power(long long base, long long e) {
                long long result = 1;
                base %= MOD;
                while (e > 0) {
                    if (e & 1) result = result * base % MOD;
                    base = base * base % MOD;
                    e >>= 1;
                }
                return result;
            }
            int main() {
                int q;
                if (std::scanf("%d", &q) != 1) return 1;
                std::vector<long long> ns(q), ks(q);
                long long top = 0;
                for (int i = 0; i < q; i++) {
                    std::scanf("%lld %lld", &ns[i], &ks[i]);
                    if (ns[i] > top) top = ns[i];
                }
                std::vector<long long> fact(top + 1), inverse(top + 1);
                fact[0] = 1;
                for (long long i = 1; i <= top; i++) fact[i] = fact[i - 1] * i % MOD;
                inverse[top] = power(fact[top], MOD - 2);
                for (long long i = top; i > 0; i--) inverse[i - 1] = inverse[i] * i % MOD;
                for (int i = 0; i < q; i++)
                    std::printf("%lld\n", fact[ns[i]] * inverse[ks[i]] % MOD * inverse[ns[i] - ks[i]] % MOD);
            }
        """),
    },
    {
        "id": "codegym-optimize/cpp-most-frequent", "language": "cpp", "difficulty": "easy",
        "prompt": (
            "The first line holds n (n >= 1); the second, n integers. Print the value that occurs most often and "
            "how many times it occurs; when several values tie, print the smallest of them."
        ),
        "bench_size": 3500, "test_sizes": [6, 8, 1, 2, 100, 700],
        "edge_inputs": ["1\n-3\n", "4\n2 1 2 1\n", "5\n9 9 9 9 9\n"],
        "generator": _code(r"""
            def generate(size, rng):
                values = [rng.randint(-max(1, size // 6), max(1, size // 6)) for _ in range(size)]
                return f"{size}\n{' '.join(map(str, values))}\n"
        """),
        "reference": _code(r"""
            #include <cstdio>
            #include <vector>
            int main() {
                int n;
                if (std::scanf("%d", &n) != 1) return 1;
                std::vector<long long> a(n);
                for (auto &x : a) std::scanf("%lld", &x);
                long long best_value = 0;
                int best_count = 0;
                for (int i = 0; i < n; i++) {
                    int count = 0;
                    for (int j = 0; j < n; j++)
                        if (a[j] == a[i]) count++;
                    if (count > best_count || (count == best_count && a[i] < best_value)) {
                        best_value = a[i];
                        best_count = count;
                    }
                }
                std::printf("%lld %d\n", best_value, best_count);
            }
        """),
        "fast": _code(r"""
            #include <algorithm>
            #include <cstdio>
            #include <vector>
            int main() {
                int n;
                if (std::scanf("%d", &n) != 1) return 1;
                std::vector<long long> a(n);
                for (auto &x : a) std::scanf("%lld", &x);
                std::sort(a.begin(), a.end());
                long long best_value = 0;
                int best_count = 0;
                for (int i = 0; i < n;) {
                    int j = i;
                    while (j < n && a[j] == a[i]) j++;
                    if (j - i > best_count) {  // (ascending: a tie keeps the smaller value)
                        best_value = a[i];
                        best_count = j - i;
                    }
                    i = j;
                }
                std::printf("%lld %d\n", best_value, best_count);
            }
        """),
    },
]  # fmt: skip

TASKS = [*PY_TASKS, *C_TASKS, *CPP_TASKS]
