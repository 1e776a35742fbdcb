// 64-bin histogram of bytes: per-block shared-memory histogram with atomicAdd, merged
// into the global one with atomicAdd (grid-stride over n bytes).
extern "C" __global__ void histogram_atomic(const unsigned char *data, int n, unsigned *hist)
{
    __shared__ unsigned local[64];
    for (int b = threadIdx.x; b < 64; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i] & 63], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 64; b += blockDim.x)
        if (local[b])
            atomicAdd(&hist[b], local[b]);
}
