// Fast hardware approximations (__expf, __sinf, __cosf, __logf, __powf, __tanf) beside the
// precise library functions (expf, sinf, cosf, logf, powf, tanhf, exp, log).
extern "C" __global__ void transcendental(const float* __restrict__ x, const double* __restrict__ d,
                                          float* __restrict__ fast, float* __restrict__ precise,
                                          double* __restrict__ dp, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    fast[3 * i + 0] = __expf(v) + __logf(v);
    fast[3 * i + 1] = __sinf(v) * __cosf(v);
    fast[3 * i + 2] = __powf(v, 1.5f) + __tanf(v) + exp2f(v) + __log2f(v);
    precise[3 * i + 0] = expf(v) + logf(v);
    precise[3 * i + 1] = sinf(v) * cosf(v);
    precise[3 * i + 2] = powf(v, 2.5f) + tanhf(v);
    dp[i] = exp(d[i]) + log(d[i]);
}
