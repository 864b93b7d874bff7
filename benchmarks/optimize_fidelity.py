"""Optimize-v0: does the meter's cost rank programs as the clock does? Variants of a few
tasks, from slow to fast (written for this benchmark, or the task's own reference), each
counted by the env's meter and timed natively on the same benchmark inputs, the median of
``--runs`` runs (Python: in one interpreter, its start-up left out; C and C++: inside the
built binary, from a constructor to a destructor linked beside the program, so that the exec
and the dynamic linker are left out). Two rank correlations (Spearman's) per language, and
for C and C++ together (one meter): of the cost with the wall time over every variant
("pooled": tasks of unlike code mixed), and of the speedups the cost and the clock give each
variant over its task's slowest ("speedups": what a reward compares).

    python benchmarks/optimize_fidelity.py [--runs 7] [--language all|python|native]

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
from pathlib import Path

from codegym.envs.optimize.env import OptimizeEnv

PAIRS = "codegym-optimize/py-pair-count"
PRIMES = "codegym-optimize/py-count-primes"
WINDOW = "codegym-optimize/py-best-window"
C_PRIMES = "codegym-optimize/c-count-primes"
C_PAIRS = "codegym-optimize/c-pair-count"
C_LIS = "codegym-optimize/c-longest-increasing"
C_SUBARRAY = "codegym-optimize/c-max-subarray"
C_WATER = "codegym-optimize/c-trapped-water"
C_GCD = "codegym-optimize/c-range-gcd"
CPP_INVERSIONS = "codegym-optimize/cpp-inversions"
REFERENCE = ""  # (a variant that is the task's own reference)
READ_GCD = (
    "#include <stdio.h>\n#include <stdlib.h>\nstatic long long gcd(long long a,long long b){while(b){long long t=a%b;"
    'a=b;b=t;}return a;}\nint main(void){int n,q;scanf("%d %d",&n,&q);long long*a=malloc(8*n);'
    'for(int i=0;i<n;i++)scanf("%lld",&a[i]);'
)
READ_CPP = (
    '#include <algorithm>\n#include <cstdio>\n#include <vector>\nint main(){int n;std::scanf("%d",&n);'
    'std::vector<long long> a(n);for(auto&x:a)std::scanf("%lld",&x);'
)
READ_C = '#include <stdio.h>\n#include <stdlib.h>\nint main(void){int n;scanf("%d",&n);long long*a=malloc(8*n);'
READ_C += 'for(int i=0;i<n;i++)scanf("%lld",&a[i]);'

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
    C_SUBARRAY: {
        "every run summed": READ_C + "long long b=a[0];for(int i=0;i<n;i++)for(int j=i;j<n;j++){long long s=0;"
        "for(int k=i;k<=j&&k<i+4;k++)s+=a[k];if(j<i+4&&s>b)b=s;}for(int i=0;i<n;i++){long long s=0;"
        'for(int j=i;j<n;j++){s+=a[j];if(s>b)b=s;}}printf("%lld\\n",b);}\n',
        "every run, running sum": READ_C + "long long b=a[0];for(int i=0;i<n;i++){long long s=0;"
        'for(int j=i;j<n;j++){s+=a[j];if(s>b)b=s;}}printf("%lld\\n",b);}\n',
        "prefix minimum": READ_C + "long long b=a[0],p=0,m=0;for(int i=0;i<n;i++){p+=a[i];if(p-m>b)b=p-m;if(p<m)m=p;}"
        'printf("%lld\\n",b);}\n',
        "Kadane": READ_C + "long long b=a[0],s=0;for(int i=0;i<n;i++){s=s>0?s+a[i]:a[i];if(s>b)b=s;}"
        'printf("%lld\\n",b);}\n',
    },
    C_WATER: {
        "both maxima per column": READ_C + "long long w=0;for(int i=0;i<n;i++){long long l=0,r=0;"
        "for(int j=0;j<=i;j++)if(a[j]>l)l=a[j];for(int j=i;j<n;j++)if(a[j]>r)r=a[j];w+=(l<r?l:r)-a[i];}"
        'printf("%lld\\n",w);}\n',
        "prefix and suffix maxima": READ_C + "long long*l=malloc(8*n),*r=malloc(8*n),w=0;l[0]=a[0];r[n-1]=a[n-1];"
        "for(int i=1;i<n;i++)l[i]=a[i]>l[i-1]?a[i]:l[i-1];for(int i=n-2;i>=0;i--)r[i]=a[i]>r[i+1]?a[i]:r[i+1];"
        'for(int i=0;i<n;i++)w+=(l[i]<r[i]?l[i]:r[i])-a[i];printf("%lld\\n",w);}\n',
        "two pointers": READ_C + "long long w=0,lm=0,rm=0;int i=0,j=n-1;while(i<=j){if(a[i]<=a[j]){if(a[i]>lm)lm=a[i];"
        'else w+=lm-a[i];i++;}else{if(a[j]>rm)rm=a[j];else w+=rm-a[j];j--;}}printf("%lld\\n",w);}\n',
    },
    C_GCD: {
        "the task's reference": REFERENCE,
        "gcd of every range, a running table": READ_GCD
        + "long long*g=malloc(8*(size_t)n*n);for(int i=0;i<n;i++){long long x=0;"
        "for(int j=i;j<n;j++){x=gcd(x,a[j]);g[(size_t)i*n+j]=x;}}"
        'while(q--){int l,r;scanf("%d %d",&l,&r);printf("%lld\\n",g[(size_t)(l-1)*n+r-1]);}}\n',
        "sparse table": READ_GCD + "int k=1;while((1<<k)<=n)k++;long long*t=malloc(8*(size_t)k*n);"
        "for(int i=0;i<n;i++)t[i]=a[i];for(int j=1;j<k;j++)for(int i=0;i+(1<<j)<=n;i++)"
        "t[(size_t)j*n+i]=gcd(t[(size_t)(j-1)*n+i],t[(size_t)(j-1)*n+i+(1<<(j-1))]);"
        'while(q--){int l,r;scanf("%d %d",&l,&r);l--;int j=31-__builtin_clz(r-l);'
        'printf("%lld\\n",gcd(t[(size_t)j*n+l],t[(size_t)j*n+r-(1<<j)]));}}\n',
    },
    CPP_INVERSIONS: {
        "the task's reference": REFERENCE,
        "insertion into a sorted vector": READ_CPP + "std::vector<long long> s;long long c=0;for(long long x:a){"
        "auto it=std::upper_bound(s.begin(),s.end(),x);c+=s.end()-it;s.insert(it,x);}"
        'std::printf("%lld\\n",c);}\n',
        "merge sort": READ_CPP + "std::vector<long long> b(n);long long c=0;for(int w=1;w<n;w*=2)"
        "{for(int lo=0;lo<n-w;lo+=2*w){int m=lo+w,hi=std::min(lo+2*w,n),i=lo,j=m,k=lo;"
        "while(i<m&&j<hi){if(a[i]<=a[j])b[k++]=a[i++];else{c+=m-i;b[k++]=a[j++];}}"
        "while(i<m)b[k++]=a[i++];while(j<hi)b[k++]=a[j++];std::copy(b.begin()+lo,b.begin()+hi,a.begin()+lo);}}"
        'std::printf("%lld\\n",c);}\n',
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


# Times a C program inside its own process, from before main to its exit, so the exec and the
# dynamic linker's start-up (a millisecond of noise) are left out. Linked in beside the program.
C_TIMER = r"""
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <time.h>
static struct timespec started;
__attribute__((constructor)) static void timer_start(void) { clock_gettime(CLOCK_MONOTONIC, &started); }
__attribute__((destructor)) static void timer_stop(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    fprintf(stderr, "\n%lld\n", (now.tv_sec - started.tv_sec) * 1000000000LL + (now.tv_nsec - started.tv_nsec));
}
"""


def native_time(source: str, inputs: tuple[str, ...], runs: int, language: str) -> float:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder)
        main_file = path / ("main.c" if language == "c" else "main.cpp")
        main_file.write_text(source)
        (path / "timer.c").write_text(C_TIMER)
        for index, text in enumerate(inputs):
            (path / f"{index}.in").write_text(text)
        compiler = ["gcc", "-O2", "-std=c17"] if language == "c" else ["g++", "-O2", "-std=c++17"]
        command = [*compiler, "-o", str(path / "main"), str(main_file), str(path / "timer.c")]
        subprocess.run([*command, "-lm"], check=True)
        times = []
        for _ in range(runs):
            total = 0
            for index in range(len(inputs)):
                with (path / f"{index}.in").open("rb") as stdin:
                    done = subprocess.run([str(path / "main")], stdin=stdin, capture_output=True, check=True)
                total += int(done.stderr.split()[-1])
            times.append(total / 1e9)
        return statistics.median(times)


def report(language: str, found: list[tuple[str, float, float]], what: str = "count") -> None:
    pooled = spearman([r[1] for r in found], [r[2] for r in found])
    slowest: dict[str, tuple[float, float]] = {}
    for name, count, seconds in found:
        task = name.split(":")[0]
        slowest[task] = max(slowest.get(task, (0.0, 0.0)), (count, seconds))
    counted = [slowest[n.split(":")[0]][0] / c for n, c, _ in found]
    clocked = [slowest[n.split(":")[0]][1] / max(s, 1e-6) for n, _, s in found]
    speedups = spearman(counted, clocked)
    print(
        f"{language}: {len(found)} variants, Spearman's rank correlation of {what} and median wall time: "
        f"pooled {pooled:.3f}, speedups {speedups:.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--language", choices=("all", "python", "native"), default="all")
    args = parser.parse_args()
    env = OptimizeEnv()
    rows: dict[str, list[tuple[str, float, float]]] = {"python": [], "c": [], "cpp": []}
    unweighed: list[tuple[str, float, float]] = []  # (C and C++: instructions alone)
    for task_id, variants in VARIANTS.items():
        task = env.tasks.get(task_id)
        if args.language not in ("all", "python" if task.language == "python" else "native"):
            continue
        for name, variant in variants.items():
            source = variant or task.reference or ""
            grade, _ = env.evaluate_task(task, source)
            assert grade.status.value == "OK", (task_id, name, grade.message)
            _, inputs, _ = env._baseline(task)
            if task.language == "python":
                seconds = python_time(source, inputs, args.runs)
            else:
                seconds = native_time(source, inputs, args.runs, task.language)
            rows[task.language].append((f"{task_id.split('/')[-1]}: {name}", grade.metrics["cost"], seconds))
            if task.language != "python":
                unweighed.append((f"{task_id.split('/')[-1]}: {name}", grade.metrics["instructions"], seconds))
            print(f"{task_id.split('/')[-1]:22} {name:36} {grade.metrics['cost']:>14,.0f} {1000 * seconds:9.1f} ms")
    for language, found in rows.items():
        if found:
            report(language, found)
    if rows["c"] and rows["cpp"]:
        report("native (C and C++)", rows["c"] + rows["cpp"])
    if unweighed:
        report("native (C and C++)", unweighed, "instructions alone (unweighed)")


if __name__ == "__main__":
    main()
