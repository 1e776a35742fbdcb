// printf of every conversion, flag, width, precision and length modifier CUDA supports
// (printf_cases.h), for threads 0..n-1 of one block; out[t] gets the last call's return
// value (the number of arguments it parsed). Compare with printf_host.c, which prints the
// same calls on the host.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include "printf_cases.h"

#define ONE(s) r = s

extern "C" __global__ void printf_all(int *out) {
    int t = threadIdx.x;
    int r = 0;
    PRINTF_CASES(ONE)
    out[t] = r;
}
