/* The host reference for printf_all.cu: the same printf calls (printf_cases.h) with the
   same arguments, each for threads 0..N-1 in turn. Compiled with the host's cc by
   tests/sim_driver.rs; N is the block size (argv[1]). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "printf_cases.h"

#define ALL(s)                            \
    for (t = 0; t < n; t++) {             \
        s;                                \
    }

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4;
    int t;
    PRINTF_CASES(ALL)
    return 0;
}
