// Divergent control flow: per-thread trip counts, break and continue inside nested loops,
// then warp-synchronous shuffles after reconvergence (BSSY/BSYNC, WARPSYNC).
extern "C" __global__ void divergent_loops(const int* __restrict__ trips, const float* __restrict__ x,
                                           float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    if (i < n) {
        int m = trips[i];
        for (int k = 0; k < m; ++k) {
            if ((k ^ i) & 1) continue;
            float v = x[(i + k) % n];
            if (v < 0.0f) break;
            for (int j = 0; j < (k & 3); ++j) {
                acc += v * (float)j;
                if (acc > 1000.0f) goto done;
            }
            acc += v;
        }
    }
done:
    __syncwarp();
    acc += __shfl_down_sync(0xffffffffu, acc, 1);
    unsigned mask = __ballot_sync(0xffffffffu, acc > 1.0f);
    if (acc > 0.5f) {
        __syncwarp(mask);
        acc = __shfl_sync(mask, acc, __ffs(mask) - 1);
    }
    if (i < n) out[i] = acc;
}
