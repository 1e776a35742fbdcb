// Sorts each block's 256 unsigned keys ascending in shared memory (bitonic network;
// block = 256 threads, one key per thread).
extern "C" __global__ void bitonic_sort(unsigned *keys)
{
    __shared__ unsigned s[256];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * 256;
    s[t] = keys[base + t];
    __syncthreads();
    for (unsigned k = 2; k <= 256; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned p = t ^ j;
            if (p > t) {
                unsigned a = s[t], b = s[p];
                bool up = (t & k) == 0;
                if ((a > b) == up) {
                    s[t] = b;
                    s[p] = a;
                }
            }
            __syncthreads();
        }
    }
    keys[base + t] = s[t];
}
