// Conversions of every kind: float <-> integer of each width with each rounding mode,
// float <-> double, float <-> half, integer widening/narrowing with saturation.
// Half-precision conversions through PTX (cuda_fp16.h needs headers the oracle lacks).
__device__ short f32_to_f16_rn(float x) { short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x)); return h; }
__device__ short f32_to_f16_rz(float x) { short h; asm("cvt.rz.f16.f32 %0, %1;" : "=h"(h) : "f"(x)); return h; }
__device__ float f16_to_f32(unsigned short h) { float x; asm("cvt.f32.f16 %0, %1;" : "=f"(x) : "h"(h)); return x; }
extern "C" __global__ void conversions(const float* __restrict__ f, const double* __restrict__ d,
                                       const long long* __restrict__ l, int* __restrict__ oi,
                                       float* __restrict__ of, double* __restrict__ od,
                                       long long* __restrict__ ol, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = f[i];
    double y = d[i];
    long long z = l[i];
    oi[8 * i + 0] = __float2int_rn(x);
    oi[8 * i + 1] = __float2int_rz(x) + __float2int_rd(x) + __float2int_ru(x);
    oi[8 * i + 2] = (int)__float2uint_rz(x) + (int)__float2uint_rn(x);
    oi[8 * i + 3] = __double2int_rn(y) + (int)__double2uint_rz(y);
    oi[8 * i + 4] = (int)(signed char)x + (int)(unsigned short)x;
    oi[8 * i + 5] = f32_to_f16_rn(x) + f32_to_f16_rz(x);
    oi[8 * i + 6] = (int)(short)z + (int)(unsigned char)(z >> 8);
    oi[8 * i + 7] = __float2int_rn(f16_to_f32((unsigned short)z));
    of[4 * i + 0] = (float)z + __int2float_rz((int)z) + __uint2float_rd((unsigned)z);
    of[4 * i + 1] = (float)y + __double2float_rz(y) + __double2float_ru(y);
    of[4 * i + 2] = __ll2float_rd(z) + __ull2float_ru((unsigned long long)z);
    of[4 * i + 3] = (float)(short)z + (float)(unsigned char)z + rintf(x) + truncf(x) + floorf(x) + ceilf(x);
    od[3 * i + 0] = (double)x + (double)(int)z + (double)(unsigned)z;
    od[3 * i + 1] = (double)z + __ull2double_rz((unsigned long long)z);
    od[3 * i + 2] = rint(y) + trunc(y) + floor(y) + ceil(y);
    ol[3 * i + 0] = (long long)x + __float2ll_rd(x);
    ol[3 * i + 1] = (long long)y + (long long)__double2ull_ru(y);
    ol[3 * i + 2] = (long long)__float2ull_rz(x) + llrintf(x);
}
