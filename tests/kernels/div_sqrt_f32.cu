// IEEE-754 single-precision division, square root and reciprocal square root (Newton-Raphson
// sequences with slow paths), plus the fast approximate variants.
extern "C" __global__ void div_sqrt_f32(const float* __restrict__ x, const float* __restrict__ y,
                                        float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    out[4 * i + 0] = a / b;
    out[4 * i + 1] = sqrtf(a);
    out[4 * i + 2] = rsqrtf(b) + 1.0f / a;
    out[4 * i + 3] = __fdividef(a, b) + __fsqrt_rn(b) + __frcp_rn(a);
}
