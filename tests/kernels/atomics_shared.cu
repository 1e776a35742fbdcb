// A 64-bin histogram built with shared-memory atomics (add, min, max, exchange, CAS, float
// add through CAS loops), merged into global memory at the end.
extern "C" __global__ void atomics_shared(const unsigned char* __restrict__ data, unsigned* __restrict__ hist,
                                          int* __restrict__ extrema, float* __restrict__ fsum, int n)
{
    __shared__ unsigned bins[64];
    __shared__ int lo, hi, last;
    __shared__ float total;
    __shared__ unsigned long long wide;
    int t = threadIdx.x;
    if (t < 64) bins[t] = 0;
    if (t == 0) { lo = 0x7fffffff; hi = -0x7fffffff; last = 0; total = 0.0f; wide = 0; }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        unsigned v = data[i];
        atomicAdd(&bins[v & 63], 1u);
        atomicMin(&lo, (int)v);
        atomicMax(&hi, (int)v);
        atomicExch(&last, i);
        atomicCAS(&bins[(v >> 2) & 63], 0u, 1u);
        atomicAdd(&total, (float)v);
        atomicAdd(&wide, (unsigned long long)v);
        atomicInc(&bins[0], 1000u);
    }
    __syncthreads();
    if (t < 64) atomicAdd(&hist[t], bins[t]);
    if (t == 0) {
        atomicMin(&extrema[0], lo);
        atomicMax(&extrema[1], hi);
        extrema[2] = last + (int)wide;
        atomicAdd(fsum, total);
    }
}
