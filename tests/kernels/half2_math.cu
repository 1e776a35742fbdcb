// Packed half-precision (f16x2) arithmetic: add, sub, mul, fma (plain and saturating),
// negation, comparisons, lane swizzles and conversions to and from float. The operations are
// written as PTX f16x2 instructions (what cuda_fp16.h's __half2 intrinsics expand to).
typedef unsigned h2;
__device__ h2 hadd2(h2 a, h2 b) { h2 r; asm("add.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ h2 hsub2(h2 a, h2 b) { h2 r; asm("sub.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ h2 hmul2(h2 a, h2 b) { h2 r; asm("mul.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ h2 hadd2_sat(h2 a, h2 b) { h2 r; asm("add.sat.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ h2 hfma2(h2 a, h2 b, h2 c) { h2 r; asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ h2 hfma2_sat(h2 a, h2 b, h2 c) { h2 r; asm("fma.rn.sat.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ h2 hneg2(h2 a) { h2 r; asm("neg.f16x2 %0, %1;" : "=r"(r) : "r"(a)); return r; }
__device__ h2 hgt2(h2 a, h2 b) { h2 r; asm("set.gt.f16x2.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ h2 hle2(h2 a, h2 b) { h2 r; asm("{.reg .pred p, q;\n setp.le.f16x2 p|q, %1, %2;\n selp.u32 %0, 1, 0, p;\n @q add.u32 %0, %0, 2;}" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ h2 swap_halves(h2 a) { return (a >> 16) | (a << 16); }
__device__ h2 low_both(h2 a) { return (a & 0xffffu) * 0x10001u; }
__device__ h2 pack_f32(float lo, float hi)
{
    unsigned short l, h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(l) : "f"(lo));
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(hi));
    return (h2)l | ((h2)h << 16);
}
__device__ float lo_f32(h2 a) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)a)); return f; }
__device__ float hi_f32(h2 a) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)(a >> 16))); return f; }

extern "C" __global__ void half2_math(const unsigned* __restrict__ a, const unsigned* __restrict__ b,
                                      const float* __restrict__ f, unsigned* __restrict__ out,
                                      float* __restrict__ fo, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    h2 x = a[i], y = b[i];
    h2 s = hadd2(x, y);
    h2 p = hmul2(x, swap_halves(y));
    h2 q = hfma2(s, p, pack_f32(0.5f, 0.5f));
    h2 r = hsub2(hneg2(q), low_both(x));
    h2 c = hgt2(r, x);
    h2 sat = hadd2_sat(r, c);
    out[3 * i + 0] = hfma2_sat(sat, y, x);
    out[3 * i + 1] = pack_f32(f[i], f[i] * 2.0f);
    out[3 * i + 2] = hle2(x, y);
    fo[2 * i + 0] = lo_f32(sat) + hi_f32(q);
    fo[2 * i + 1] = lo_f32(hmul2(x, y)) * f[i];
}
