// Memory ordering: thread fences at block, device and system scope, volatile loads and
// stores, and a flag-based producer/consumer hand-off between blocks.
extern "C" __global__ void fences_volatile(volatile int* flags, int* data, int* out, int n)
{
    int b = blockIdx.x;
    if (threadIdx.x == 0) {
        data[b] = b * 10;
        __threadfence();
        flags[b] = 1;
        __threadfence_block();
        if (b > 0) {
            int spins = 0;
            while (flags[b - 1] == 0 && spins < 1000) {
                __nanosleep(32);
                ++spins;
            }
            __threadfence_system();
            out[b] = data[b - 1] + spins;
        }
    }
    __syncthreads();
    int cnt = __syncthreads_count(threadIdx.x < (unsigned)n);
    int all = __syncthreads_and(threadIdx.x < 1024u);
    int any = __syncthreads_or(threadIdx.x == 5u);
    if (threadIdx.x == 1) out[n + b] = cnt + 2 * all + 4 * any;
}
