// Warp votes: ballot, any, all, activemask, match, and population counts of the results.
extern "C" __global__ void warp_vote(const int* __restrict__ x, unsigned* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? x[i] : 0;
    unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
    int any = __any_sync(0xffffffffu, v == 3);
    int all = __all_sync(0xffffffffu, v != 0);
    unsigned active = __activemask();
    unsigned peers = __match_any_sync(0xffffffffu, v & 7);
    int pred;
    unsigned same = __match_all_sync(0xffffffffu, v >> 4, &pred);
    unsigned lt;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    if (i < n) {
        out[4 * i + 0] = ballot;
        out[4 * i + 1] = __popc(ballot & lt) + any + 2 * all;
        out[4 * i + 2] = active ^ peers;
        out[4 * i + 3] = same + pred;
    }
}
