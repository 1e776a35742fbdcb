// Coefficients in __constant__ memory read with uniform and with per-thread (divergent)
// indices, and a polynomial evaluated with them.
__constant__ float coeff[64];
__constant__ int offsets[16];
extern "C" __global__ void const_lookup(const float* __restrict__ x, const int* __restrict__ sel,
                                        float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float p = coeff[0];
#pragma unroll
    for (int k = 1; k < 8; ++k) p = p * v + coeff[k];
    int s = sel[i] & 15;
    y[i] = p + coeff[offsets[s] & 63] + (float)offsets[s];
}
