// min, max and abs on int, unsigned, long long, float and double, plus clamps.
extern "C" __global__ void minmax_abs(const int* __restrict__ a, const long long* __restrict__ l,
                                      const float* __restrict__ f, const double* __restrict__ d,
                                      int* __restrict__ oi, long long* __restrict__ ol, float* __restrict__ of,
                                      double* __restrict__ od, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    unsigned ux = (unsigned)x;
    long long y = l[i];
    float u = f[i];
    double v = d[i];
    oi[3 * i + 0] = min(x, 100) + max(x, -100) + abs(x);
    oi[3 * i + 1] = (int)(min(ux, 77u) + max(ux, (unsigned)i));
    oi[3 * i + 2] = min(max(x, 0), 255);
    ol[2 * i + 0] = min(y, (long long)i) + max(y, 5LL);
    ol[2 * i + 1] = llabs(y) + (long long)max((unsigned long long)y, 9ull);
    of[2 * i + 0] = fminf(u, 1.0f) + fmaxf(u, -1.0f) + fabsf(u);
    of[2 * i + 1] = __saturatef(u) + copysignf(2.0f, u);
    od[2 * i + 0] = fmin(v, 1.0) + fmax(v, -1.0) + fabs(v);
    od[2 * i + 1] = copysign(3.0, v);
}
