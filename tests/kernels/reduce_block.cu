// Block-wide sum: shared-memory tree down to one warp, shuffles within the warp, and one
// atomicAdd per block into the result.
extern "C" __global__ void reduce_block(const float* __restrict__ x, float* __restrict__ result, int n)
{
    __shared__ float partial[256];
    int t = threadIdx.x;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) v += x[i];
    partial[t] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s >= 32; s >>= 1) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t < 32) {
        v = partial[t];
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (t == 0) atomicAdd(result, v);
    }
}
