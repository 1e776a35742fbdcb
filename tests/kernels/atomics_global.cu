// Atomic read-modify-write operations on global memory: integer add/min/max/and/or/xor/
// exch/cas/inc/dec of 32 and 64 bits, float and double atomicAdd, and reductions whose
// result is unused (RED), at device, block and system scope.
extern "C" __global__ void atomics_global(int* __restrict__ iv, unsigned* __restrict__ uv,
                                          unsigned long long* __restrict__ lv, float* __restrict__ fv,
                                          double* __restrict__ dv, int* __restrict__ old, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int k = i & 15;
    old[8 * i + 0] = atomicAdd(&iv[k], i);
    old[8 * i + 1] = atomicMin(&iv[16 + k], i);
    old[8 * i + 2] = atomicMax(&iv[32 + k], -i);
    old[8 * i + 3] = (int)atomicCAS(&uv[k], (unsigned)i, (unsigned)(i + 1));
    old[8 * i + 4] = (int)atomicExch(&uv[16 + k], (unsigned)i);
    old[8 * i + 5] = (int)atomicInc(&uv[32 + k], 100u) + (int)atomicDec(&uv[48 + k], 100u);
    old[8 * i + 6] = (int)atomicAdd(&lv[k], 3ull) + (int)atomicCAS(&lv[16 + k], 1ull, (unsigned long long)i);
    old[8 * i + 7] = (int)atomicAdd(&fv[k], 0.5f) + (int)atomicAdd(&dv[k], 0.25);
    atomicAnd(&uv[64 + k], 0xffu << (i & 7));
    atomicOr(&uv[80 + k], 1u << (i & 31));
    atomicXor(&uv[96 + k], (unsigned)i);
    atomicMin(&lv[32 + k], (unsigned long long)i);
    atomicMax(&lv[48 + k], (unsigned long long)i);
    atomicAdd(&fv[16 + k], 1.0f);
    atomicAdd(&dv[16 + k], 2.0);
    atomicAdd_block(&iv[48 + k], 1);
    atomicAdd_system(&iv[64 + k], 1);
}
