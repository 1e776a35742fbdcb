// Special registers and clocks: lane and warp ids, SM id, clock64, global timer, 3-D thread
// and block indices, grid dimensions and dynamic shared-memory size.
extern "C" __global__ void special_regs(unsigned* __restrict__ out, long long* __restrict__ clocks)
{
    extern __shared__ unsigned dyn[];
    unsigned lane, warp, sm, nsm, smem;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm("mov.u32 %0, %%warpid;" : "=r"(warp));
    asm("mov.u32 %0, %%smid;" : "=r"(sm));
    asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(smem));
    long long t0 = clock64();
    unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    dyn[tid] = lane ^ warp;
    __syncthreads();
    unsigned g = bid * blockDim.x * blockDim.y * blockDim.z + tid;
    out[4 * g + 0] = dyn[(tid + 1) % (blockDim.x * blockDim.y * blockDim.z)];
    out[4 * g + 1] = sm + nsm * 100u;
    out[4 * g + 2] = smem + (unsigned)clock();
    unsigned long long gt;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
    out[4 * g + 3] = (unsigned)gt;
    clocks[g] = clock64() - t0;
}
