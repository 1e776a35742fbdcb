// Work driven by kernel parameters only (uniform across the warp): the compiler keeps the
// loop counters and addresses in uniform registers (ULDC, UIADD3, UMOV, USHF, UISETP).
extern "C" __global__ void uniform_params(float* __restrict__ out, const float* __restrict__ table,
                                          int rows, int cols, int stride, unsigned seed)
{
    float acc = 0.0f;
    unsigned h = seed;
    for (int r = 0; r < rows; ++r) {
        h = h * 1664525u + 1013904223u;
        const float* row = table + (long long)r * stride;
        for (int c = 0; c < cols; c += 4) acc += row[c] * (float)(h >> 16);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc + (float)blockIdx.x;
}
