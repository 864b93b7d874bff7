#include <stdio.h>
#include <stdlib.h>

long lookup(int i);
long sum_all(void);

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) printf("%ld\n", lookup(atoi(argv[i])));
    printf("sum %ld\n", sum_all());
    return 0;
}
