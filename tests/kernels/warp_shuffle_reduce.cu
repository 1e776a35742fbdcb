// Warp reductions and scans with every shuffle mode: xor butterfly, down, up and indexed
// broadcast, on ints, floats and doubles.
extern "C" __global__ void warp_shuffle_reduce(const float* __restrict__ x, const double* __restrict__ d,
                                               float* __restrict__ sums, double* __restrict__ dsums,
                                               int* __restrict__ scans, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    float v = i < n ? x[i] : 0.0f;
    double w = i < n ? d[i] : 0.0;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    for (int off = 16; off > 0; off >>= 1) w += __shfl_down_sync(0xffffffffu, w, off);
    int s = i;
    for (int off = 1; off < 32; off <<= 1) {
        int t = __shfl_up_sync(0xffffffffu, s, off);
        if (lane >= off) s += t;
    }
    int src = (lane * 7) & 31;
    s += __shfl_sync(0xffffffffu, s, src) + __shfl_sync(0xffffffffu, s, 0, 16);
    if (i < n) scans[i] = s;
    if (lane == 0) {
        sums[i >> 5] = v;
        dsums[i >> 5] = w;
    }
}
