// Non-inlined device functions (CALL.REL / RET.REL), a recursive one, and a function
// pointer table (indirect call).
__device__ __noinline__ float poly(float x, int k)
{
    float r = 1.0f;
    for (int i = 0; i < k; ++i) r = r * x + (float)i;
    return r;
}
__device__ __noinline__ int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }
__device__ float twice(float x) { return 2.0f * x; }
__device__ float square(float x) { return x * x; }
typedef float (*unary)(float);
__device__ unary table[2] = {twice, square};
extern "C" __global__ void device_calls(const float* __restrict__ x, const int* __restrict__ a,
                                        float* __restrict__ y, int* __restrict__ g, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = poly(x[i], i & 7) + table[i & 1](x[i]);
    g[i] = gcd(a[i], a[(i + 1) % n]);
}
