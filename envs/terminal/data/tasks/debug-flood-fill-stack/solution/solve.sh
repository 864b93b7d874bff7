#!/bin/bash
set -e
cd /app
python3 - <<'PY'
p = "src/regions.c"
s = open(p).read()
start = s.index("static long fill(")
end = s.index("int main(void)")
s = s[:start] + """static long fill(int x0, int y0) {
    if (x0 < 0 || y0 < 0 || x0 >= w || y0 >= h) return 0;
    long i0 = (long)y0 * w + x0;
    if (seen[i0] || grid[i0] != '#') return 0;
    long cap = 1024, top = 0, n = 0;
    long *stack = malloc(cap * sizeof *stack);
    seen[i0] = 1;
    stack[top++] = i0;
    while (top) {
        long i = stack[--top];
        int x = (int)(i % w), y = (int)(i / w);
        n++;
        long nb[4];
        int k = 0;
        if (x + 1 < w) nb[k++] = i + 1;
        if (x > 0) nb[k++] = i - 1;
        if (y + 1 < h) nb[k++] = i + w;
        if (y > 0) nb[k++] = i - w;
        for (int j = 0; j < k; j++) {
            long m = nb[j];
            if (seen[m] || grid[m] != '#') continue;
            seen[m] = 1;
            if (top == cap) {
                cap *= 2;
                stack = realloc(stack, cap * sizeof *stack);
            }
            stack[top++] = m;
        }
    }
    free(stack);
    return n;
}

""" + s[end:]
s = s.replace("    seen = malloc((size_t)w * h);", "    seen = calloc((size_t)w * h, 1);")
open(p, "w").write(s)
PY
make -B
