#!/bin/bash
set -euo pipefail
cat > /app/nge.c <<'C'
/* nge: for each element of a sequence, how far to the right the next strictly greater element is.
 *
 * Input (stdin): n, then n integers (each fits in a signed 32-bit int), whitespace separated.
 * Output (stdout): n lines; line i holds j - i for the smallest j > i with a[j] > a[i], or 0 if
 * there is none.
 *
 * A stack of indices whose answer is still open, their values non-increasing from bottom to top:
 * each new element closes every open index with a smaller value. O(n).
 */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int n;
    if (scanf("%d", &n) != 1 || n < 0) {
        fprintf(stderr, "nge: expected n\n");
        return 1;
    }
    size_t cap = (size_t)(n ? n : 1);
    int *a = malloc(cap * sizeof *a), *ans = calloc(cap, sizeof *ans), *stack = malloc(cap * sizeof *stack);
    if (!a || !ans || !stack) { perror("malloc"); return 1; }
    for (int i = 0; i < n; i++)
        if (scanf("%d", &a[i]) != 1) {
            fprintf(stderr, "nge: expected %d integers\n", n);
            return 1;
        }
    int top = 0;
    for (int j = 0; j < n; j++) {
        while (top > 0 && a[stack[top - 1]] < a[j]) {
            top--;
            ans[stack[top]] = j - stack[top];
        }
        stack[top++] = j;
    }
    for (int i = 0; i < n; i++)
        printf("%d\n", ans[i]);
    free(a);
    free(ans);
    free(stack);
    return 0;
}
C
make -C /app -B
