// malloc and free in a kernel: each thread allocates n ints, fills and sums them, frees
// them and writes the sum (or -1 if malloc returned NULL); with `twice` nonzero, thread 0
// frees its block a second time.
#include <cstdio>

extern "C" __global__ void malloc_free(int *out, int n, int twice) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int *p = (int *)malloc(n * sizeof(int));
    if (p == nullptr) {
        out[t] = -1;
        return;
    }
    for (int i = 0; i < n; i++) p[i] = i + t;
    int s = 0;
    for (int i = 0; i < n; i++) s += p[i];
    free(p);
    if (twice && t == 0) free(p);
    out[t] = s;
}
