/* nge: for each element of a sequence, how far to the right the next strictly greater element is.
 *
 * Input (stdin): n, then n integers (each fits in a signed 32-bit int), whitespace separated.
 * Output (stdout): n lines; line i holds j - i for the smallest j > i with a[j] > a[i], or 0 if
 * there is none.
 */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int n;
    if (scanf("%d", &n) != 1 || n < 0) {
        fprintf(stderr, "nge: expected n\n");
        return 1;
    }
    int *a = malloc((size_t)(n ? n : 1) * sizeof *a);
    if (!a) { perror("malloc"); return 1; }
    for (int i = 0; i < n; i++)
        if (scanf("%d", &a[i]) != 1) {
            fprintf(stderr, "nge: expected %d integers\n", n);
            return 1;
        }
    for (int i = 0; i < n; i++) {
        int d = 0;
        for (int j = i + 1; j < n; j++)
            if (a[j] > a[i]) { d = j - i; break; }
        printf("%d\n", d);
    }
    free(a);
    return 0;
}
