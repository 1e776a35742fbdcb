// Inclusive prefix sum of one block (Hillis-Steele in shared memory, double-buffered).
extern "C" __global__ void scan_block(const int* __restrict__ in, int* __restrict__ out, int n)
{
    __shared__ int buf[2][512];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int cur = 0;
    buf[0][t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        int v = buf[cur][t];
        if (t >= off) v += buf[cur][t - off];
        buf[cur ^ 1][t] = v;
        cur ^= 1;
        __syncthreads();
    }
    if (i < n) out[i] = buf[cur][t];
}
