// Bit manipulation: population count, leading zeros, bit reverse, find-first-set, byte
// permute, funnel shifts and bit-field extract/insert, on 32 and 64 bits.
extern "C" __global__ void bit_ops(const unsigned* __restrict__ x, const unsigned long long* __restrict__ y,
                                   unsigned* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned a = x[i];
    unsigned long long b = y[i];
    out[8 * i + 0] = __popc(a) + __popcll(b);
    out[8 * i + 1] = __clz(a) + __clzll(b);
    out[8 * i + 2] = __brev(a) ^ (unsigned)__brevll(b);
    out[8 * i + 3] = __ffs(a) + __ffsll(b);
    out[8 * i + 4] = __byte_perm(a, (unsigned)b, 0x5140);
    out[8 * i + 5] = __funnelshift_l(a, (unsigned)b, i) ^ __funnelshift_rc(a, (unsigned)(b >> 32), i);
    unsigned f1, f2;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(f1) : "r"(a), "r"(i & 31), "r"(5));
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(f2) : "r"(a), "r"((unsigned)b), "r"(i & 15), "r"(7));
    int s;
    asm("bfe.s32 %0, %1, 4, 9;" : "=r"(s) : "r"((int)a));
    out[8 * i + 6] = f1 + f2 + (unsigned)s + ((a >> 3) & 0x1f);
    out[8 * i + 7] = (unsigned)(b >> (i & 63)) + (unsigned)(b << (a & 63));
}
