"""Optimize-v0: does the instruction count rank programs as the clock does? Variants of a few
tasks, from slow to fast (written for this benchmark), each counted by the env's meter and
timed natively on the same benchmark inputs, the median of ``--runs`` runs (Python: in one
interpreter, its start-up left out; C: the built binary, less the median time of a program
that only reads its input). Two rank correlations (Spearman's) per language: of the
count with the wall time over every variant ("pooled": tasks of unlike code mixed), and of
the speedups the count and the clock give each variant over its task's slowest ("speedups":
what a reward compares).

    python benchmarks/optimize_fidelity.py [--runs 7]

Run it on a quiet machine: the clock is the noisy side. The goal (issue 32): a rank
correlation of at least 0.9.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from codegym.envs.optimize.env import OptimizeEnv

PAIRS = "codegym-optimize/py-pair-count"
PRIMES = "codegym-optimize/py-count-primes"
WINDOW = "codegym-optimize/py-best-window"
C_PRIMES = "codegym-optimize/c-count-primes"
C_PAIRS = "codegym-optimize/c-pair-count"
C_LIS = "codegym-optimize/c-longest-increasing"

READ_PAIRS = "n, t = map(int, input().split())\na = list(map(int, input().split()))\n"
READ_WINDOW = "n, k = map(int, input().split())\na = list(map(int, input().split()))\n"
VARIANTS: dict[str, dict[str, str]] = {
    PAIRS: {
        "double loop": READ_PAIRS + "c = 0\nfor i in range(n):\n    for j in range(i + 1, n):\n"
        "        if a[i] + a[j] == t:\n            c += 1\nprint(c)\n",
        "double loop, value first": READ_PAIRS + "c = 0\nfor i in range(n):\n    x = a[i]\n    for y in a[i + 1:]:\n"
        "        if x + y == t:\n            c += 1\nprint(c)\n",
        "count per element": READ_PAIRS + "c = 0\nfor i in range(n):\n    c += a[i + 1:].count(t - a[i])\nprint(c)\n",
        "counter of values": READ_PAIRS + "from collections import Counter\nc = 0\nm = Counter(a)\n"
        "for x in m:\n    y = t - x\n    if x < y:\n        c += m[x] * m.get(y, 0)\n"
        "    elif x == y:\n        c += m[x] * (m[x] - 1) // 2\nprint(c)\n",
        "dict, one pass": READ_PAIRS + "seen, c = {}, 0\nfor x in a:\n    c += seen.get(t - x, 0)\n"
        "    seen[x] = seen.get(x, 0) + 1\nprint(c)\n",
    },
    PRIMES: {
        "trial division to sqrt": "n = int(input())\nc = 0\nfor k in range(2, n + 1):\n    d = 2\n"
        "    while d * d <= k:\n        if k % d == 0:\n            break\n        d += 1\n    else:\n        c += 1\nprint(c)\n",
        "odd divisors to sqrt": "n = int(input())\nc = 1 if n >= 2 else 0\nfor k in range(3, n + 1, 2):\n    d = 3\n"
        "    while d * d <= k:\n        if k % d == 0:\n            break\n        d += 2\n    else:\n        c += 1\nprint(c)\n",
        "sieve, list": "n = int(input())\nif n < 2:\n    print(0)\nelse:\n    s = [True] * (n + 1)\n    s[0] = s[1] = False\n"
        "    for p in range(2, int(n ** 0.5) + 1):\n        if s[p]:\n            for m in range(p * p, n + 1, p):\n"
        "                s[m] = False\n    print(sum(s))\n",
        "sieve, slices": "n = int(input())\nif n < 2:\n    print(0)\nelse:\n    s = bytearray([1]) * (n + 1)\n"
        "    s[0] = s[1] = 0\n    for p in range(2, int(n ** 0.5) + 1):\n        if s[p]:\n"
        "            s[p * p::p] = bytes(len(range(p * p, n + 1, p)))\n    print(sum(s))\n",
    },
    WINDOW: {
        "every window summed": READ_WINDOW + "best = None\nfor i in range(n - k + 1):\n    s = 0\n"
        "    for j in range(i, i + k):\n        s += a[j]\n    if best is None or s > best:\n        best = s\nprint(best)\n",
        "every window, sum()": READ_WINDOW + "print(max(sum(a[i:i + k]) for i in range(n - k + 1)))\n",
        "sliding window": READ_WINDOW + "s = best = sum(a[:k])\nfor i in range(k, n):\n    s += a[i] - a[i - k]\n"
        "    if s > best:\n        best = s\nprint(best)\n",
        "prefix sums": READ_WINDOW + "p = [0]\nfor x in a:\n    p.append(p[-1] + x)\n"
        "print(max(p[i + k] - p[i] for i in range(n - k + 1)))\n",
    },
    C_PRIMES: {
        "trial division to sqrt": '#include <stdio.h>\nint main(void){long n,c=0;scanf("%ld",&n);for(long k=2;k<=n;k++){int p=1;'
        'for(long d=2;d*d<=k;d++)if(k%d==0){p=0;break;}c+=p;}printf("%ld\\n",c);}\n',
        "odd divisors to sqrt": '#include <stdio.h>\nint main(void){long n,c;scanf("%ld",&n);c=n>=2;'
        'for(long k=3;k<=n;k+=2){int p=1;for(long d=3;d*d<=k;d+=2)if(k%d==0){p=0;break;}c+=p;}printf("%ld\\n",c);}\n',
        "sieve": '#include <stdio.h>\n#include <stdlib.h>\nint main(void){long n,c=0;scanf("%ld",&n);if(n<2){puts("0");'
        "return 0;}char*s=calloc(n+1,1);for(long p=2;p<=n;p++){if(s[p])continue;c++;for(long m=p*p;m<=n;m+=p)s[m]=1;}"
        'printf("%ld\\n",c);}\n',
    },
    C_PAIRS: {
        "double loop": '#include <stdio.h>\nint a[100000];int main(void){int n,t;scanf("%d %d",&n,&t);'
        'for(int i=0;i<n;i++)scanf("%d",&a[i]);long long c=0;for(int i=0;i<n;i++)for(int j=i+1;j<n;j++)'
        'if(a[i]+a[j]==t)c++;printf("%lld\\n",c);}\n',
        "double loop, all pairs halved": '#include <stdio.h>\nint a[100000];int main(void){int n,t;scanf("%d %d",&n,&t);'
        'for(int i=0;i<n;i++)scanf("%d",&a[i]);long long c=0,d=0;for(int i=0;i<n;i++){for(int j=0;j<n;j++)'
        'if(a[i]+a[j]==t)c++;if(2*a[i]==t)d++;}printf("%lld\\n",(c-d)/2);}\n',
        "counts": '#include <stdio.h>\nint main(void){int n,t,x;static long long s[201];scanf("%d %d",&n,&t);long long c=0;'
        'for(int i=0;i<n;i++){scanf("%d",&x);int w=t-x;if(w>=-100&&w<=100)c+=s[w+100];s[x+100]++;}'
        'printf("%lld\\n",c);}\n',
    },
    C_LIS: {
        "quadratic": '#include <stdio.h>\nint a[100000],l[100000];int main(void){int n,b=0;scanf("%d",&n);'
        'for(int i=0;i<n;i++)scanf("%d",&a[i]);for(int i=0;i<n;i++){l[i]=1;for(int j=0;j<i;j++)'
        'if(a[j]<a[i]&&l[j]+1>l[i])l[i]=l[j]+1;if(l[i]>b)b=l[i];}printf("%d\\n",b);}\n',
        "tails, linear scan": '#include <stdio.h>\nint t[100000];int main(void){int n,x,s=0;scanf("%d",&n);'
        'for(int i=0;i<n;i++){scanf("%d",&x);int j=0;while(j<s&&t[j]<x)j++;t[j]=x;if(j==s)s++;}printf("%d\\n",s);}\n',
        "tails, binary search": '#include <stdio.h>\nint t[100000];int main(void){int n,x,s=0;scanf("%d",&n);'
        'for(int i=0;i<n;i++){scanf("%d",&x);int lo=0,hi=s;while(lo<hi){int m=(lo+hi)/2;if(t[m]<x)lo=m+1;else hi=m;}'
        't[lo]=x;if(lo==s)s++;}printf("%d\\n",s);}\n',
    },
}


def spearman(xs: list[float], ys: list[float]) -> float:
    def ranks(values: list[float]) -> list[float]:
        order = sorted(range(len(values)), key=values.__getitem__)
        result = [0.0] * len(values)
        for rank, index in enumerate(order):
            result[index] = float(rank)
        return result

    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    return cov / (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5


# Times a Python program in one interpreter, its start-up left out: each run executes the
# program's code object in a fresh namespace with the input as sys.stdin.
PYTHON_TIMER = """
import io, json, statistics, sys, time
code = compile(open(sys.argv[1]).read(), "main.py", "exec")
inputs, runs = json.loads(open(sys.argv[2]).read()), int(sys.argv[3])
out = sys.stdout
times = []
for _ in range(runs):
    started = time.perf_counter()
    for text in inputs:
        sys.stdin, sys.stdout = io.StringIO(text), io.StringIO()
        exec(code, {"__name__": "__main__"})
    times.append(time.perf_counter() - started)
out.write(repr(statistics.median(times)))
"""


def python_time(source: str, inputs: tuple[str, ...], runs: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder)
        (path / "main.py").write_text(source)
        (path / "inputs.json").write_text(json.dumps(list(inputs)))
        argv = [sys.executable, "-c", PYTHON_TIMER, str(path / "main.py"), str(path / "inputs.json"), str(runs)]
        return float(subprocess.run(argv, capture_output=True, check=True, text=True).stdout)


def native_time(language: str, source: str, inputs: tuple[str, ...], runs: int) -> float:
    if language == "python":
        return python_time(source, inputs, runs)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder)
        if language == "python":
            (path / "main.py").write_text(source)
            argv = [sys.executable, str(path / "main.py")]
        else:
            (path / "main.c").write_text(source)
            subprocess.run(
                ["gcc", "-O2", "-std=c17", "-o", str(path / "main"), str(path / "main.c"), "-lm"], check=True
            )
            argv = [str(path / "main")]
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            for text in inputs:
                subprocess.run(argv, input=text.encode(), capture_output=True, check=True)
            times.append(time.perf_counter() - started)
        return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    env = OptimizeEnv()
    rows: dict[str, list[tuple[str, float, float]]] = {"python": [], "c": []}
    empty = {
        "python": "import sys\nsys.stdin.read()\n",
        "c": "#include <stdio.h>\nint main(void){int c;while((c=getchar())!=EOF);}\n",
    }
    for task_id, variants in VARIANTS.items():
        task = env.tasks.get(task_id)
        for name, source in variants.items():
            grade, _ = env.evaluate_task(task, source)
            assert grade.status.value == "OK", (task_id, name, grade.message)
            _, inputs, _ = env._baseline(task)
            seconds = native_time(task.language, source, inputs, args.runs)
            if task.language != "python":  # (a Python run is timed without its start-up)
                seconds -= native_time(task.language, empty[task.language], inputs, args.runs)
            rows[task.language].append((f"{task_id.split('/')[-1]}: {name}", grade.metrics["cost"], seconds))
            print(f"{task_id.split('/')[-1]:22} {name:30} {grade.metrics['cost']:>14,.0f} {1000 * seconds:9.1f} ms")
    for language, found in rows.items():
        pooled = spearman([r[1] for r in found], [r[2] for r in found])
        slowest: dict[str, tuple[float, float]] = {}
        for name, count, seconds in found:
            task = name.split(":")[0]
            slowest[task] = max(slowest.get(task, (0.0, 0.0)), (count, seconds))
        counted = [slowest[n.split(":")[0]][0] / c for n, c, _ in found]
        clocked = [slowest[n.split(":")[0]][1] / max(s, 1e-4) for n, _, s in found]
        speedups = spearman(counted, clocked)
        print(
            f"{language}: {len(found)} variants, Spearman's rank correlation of count and median wall time: "
            f"pooled {pooled:.3f}, speedups {speedups:.3f}"
        )


if __name__ == "__main__":
    main()
