// IEEE-754 double-precision division, square root and reciprocal (DFMA refinement around
// MUFU.RCP64H / MUFU.RSQ64H with slow paths).
extern "C" __global__ void div_sqrt_f64(const double* __restrict__ x, const double* __restrict__ y,
                                        double* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double a = x[i], b = y[i];
    out[3 * i + 0] = a / b;
    out[3 * i + 1] = sqrt(a);
    out[3 * i + 2] = 1.0 / b + rsqrt(a);
}
