// Integer division and remainder: signed and unsigned, 32 and 64 bit, by a runtime divisor
// and by constants (multiply-high sequences).
extern "C" __global__ void int_divmod(const int* __restrict__ a, const int* __restrict__ b,
                                      const long long* __restrict__ c, int* __restrict__ q32,
                                      long long* __restrict__ q64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    unsigned ux = (unsigned)x, uy = (unsigned)y | 1u;
    long long z = c[i];
    q32[6 * i + 0] = x / y;
    q32[6 * i + 1] = x % y;
    q32[6 * i + 2] = (int)(ux / uy);
    q32[6 * i + 3] = (int)(ux % uy);
    q32[6 * i + 4] = x / 7 + x % 10;
    q32[6 * i + 5] = (int)(ux / 1000u) + (int)(ux % 3u);
    q64[3 * i + 0] = z / (long long)(y | 1);
    q64[3 * i + 1] = (long long)((unsigned long long)z % (unsigned long long)uy);
    q64[3 * i + 2] = z / 12345LL;
}
