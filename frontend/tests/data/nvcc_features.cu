#include <cstdio>
extern "C" __global__ void atomics(int* a, unsigned* u, unsigned long long* ull, float* f, double* d, int v) {
  atomicAdd(a, v); atomicSub(a, v); atomicExch(a, v); atomicMin(a, v); atomicMax(a, v);
  atomicInc(u, 17u); atomicDec(u, 17u); atomicCAS(a, v, v + 1); atomicAnd(a, v); atomicOr(a, v); atomicXor(a, v);
  a[1] = atomicAdd(a + 2, v);
  atomicAdd(ull, 5ull); ull[1] = atomicCAS(ull + 2, 1ull, 2ull); atomicMin(ull+3, 4ull); atomicMax((long long*)ull+3, 4ll);
  atomicAdd(f, 1.5f); f[1] = atomicExch(f + 2, 2.5f); atomicAdd(d, 2.0); d[1] = atomicAdd(d + 2, 3.0);
  __shared__ int s[64]; __shared__ float sf[64];
  s[threadIdx.x] = 0; __syncthreads(); atomicAdd(&s[threadIdx.x % 7], v); atomicAdd(&sf[threadIdx.x % 5], 1.0f);
  atomicCAS(&s[3], 1, v); __syncthreads(); a[threadIdx.x] = s[threadIdx.x] + (int)sf[threadIdx.x];
  atomicAdd_block(a, 1); atomicAdd_system(a, 1);
}
__device__ unsigned lanemask() { unsigned r; asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r)); return r; }
__device__ unsigned long long gt() { unsigned long long r; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r)); unsigned w; asm volatile("mov.u32 %0, %%warpid;" : "=r"(w)); return r + w; }
extern "C" __global__ void warp(int* out, float* fo, int v) {
  unsigned m = __activemask();
  int x = __shfl_sync(0xffffffff, v, 3); x += __shfl_up_sync(0xffffffff, x, 1); x += __shfl_down_sync(0xffffffff, x, 2, 16);
  x += __shfl_xor_sync(0xffffffff, x, 4);
  float f = __shfl_sync(m, fo[threadIdx.x], 0); double dd = __shfl_down_sync(m, (double)f, 1);
  x += __all_sync(m, v > 0) + __any_sync(m, v < 0) + __popc(__ballot_sync(m, v == 3)) + __uni_sync(m, v);
  x += __match_any_sync(m, v); int pred; x += __match_all_sync(m, v, &pred) + pred;
  x += __syncthreads_count(v > 2) + __syncthreads_and(v) + __syncthreads_or(v);
  __syncwarp(); __threadfence(); __threadfence_block(); __threadfence_system();
  out[threadIdx.x] = x + lanemask(); fo[threadIdx.x] = f + (float)dd;
  __nanosleep(100);
  out[0] += clock() + (int)clock64() + (int)gt();
}

extern "C" __global__ void bits(unsigned* o, unsigned long long* o64, int* si, unsigned a, unsigned b, unsigned long long c, int s) {
  o[0] = __popc(a) + __popcll(c) + __clz(a) + __clzll(c) + __brev(a) + __ffs(a) + __ffsll(c) + (unsigned)__brevll(c);
  o[1] = __byte_perm(a, b, 0x3210 + a) + __byte_perm(a, b, 0x5140);
  o[2] = __funnelshift_l(a, b, s) + __funnelshift_r(a, b, s) + __funnelshift_lc(a, b, s) + __funnelshift_rc(a, b, s);
  o[3] = __umulhi(a, b) + __mulhi(s, (int)a) + __umul24(a, b) + __mul24(s, (int)b) + __sad(s, (int)a, b) + __usad(a, b, 3);
  o[4] = __dp4a(a, b, 5u) + __dp2a_lo(a, b, 3u) + __dp2a_hi((int)a, (int)b, s);
  o64[0] = __umul64hi(c, c + a) + __mul64hi((long long)c, -3ll);
  o[5] = (a >> s) ^ (a << (s & 7)) ^ ((int)a >> s) ^ (~a & b | (a ^ 0xf0f0));
  o[6] = (a / b) + (a % b) + (unsigned)(s / 7) + (unsigned)(s % 9) + (unsigned)(c / a) + (unsigned)((long long)c % s);
  o[7] = (a >> 3) & 0x1f; o[8] = (a & ~(0xfu << 8)) | ((b & 0xf) << 8);
  si[0] = abs(s) + max(s, (int)a) + min(s, 3) + (int)umax(a, b) + (int)umin(a, 9u);
  o64[1] = (c >> 17) | (c << (a & 63)) ; o64[2] = c * a + (c >> 60); si[1] = (short)s * (short)a; si[2] = (signed char)s;
  si[3] = __hadd(s, (int)a) + __rhadd(s, 2) + (int)__uhadd(a, b) + (int)__urhadd(a, b);
}
extern "C" __global__ void fmath(float* f, double* d, unsigned* u, int* i, long long* l) {
  float x = f[threadIdx.x], y = f[threadIdx.x + 1];
  double p = d[threadIdx.x], q = d[threadIdx.x + 1];
  f[0] = sinf(x) + cosf(y) + expf(x) + logf(y) + sqrtf(x) + rsqrtf(y) + x / y + powf(x, y) + tanhf(x) + exp2f(y) + log2f(x);
  f[1] = __sinf(x) + __cosf(y) + __expf(x) + __logf(y) + __fdividef(x, y) + __frcp_rn(x) + __fsqrt_rn(y) + __fdiv_rn(x, y) + __fdiv_rz(x,y);
  f[2] = fmaf(x, y, 1.0f) + __fmaf_rz(x, y, 2.0f) + __fadd_rd(x, y) + __fmul_ru(x, y) + fabsf(x) + copysignf(x, y) + fminf(x, y) + fmaxf(x, y);
  f[3] = truncf(x) + floorf(y) + ceilf(x) + rintf(y) + roundf(x) + __saturatef(x) + (float)p + __double2float_rz(q) + (float)i[0] + (float)u[0] + (float)l[0];
  d[0] = sin(p) + exp(q) + sqrt(p) + p / q + fma(p, q, 1.0) + fabs(p) + floor(q) + rsqrt(p) + 1.0 / q + (double)x + (double)i[1] + (double)u[1] + (double)l[1];
  d[1] = __dadd_rn(p, q) + __dmul_rz(p, q) + __ddiv_ru(p, q) + __dsqrt_rd(p) + fmin(p, q) + fmax(p, q) + copysign(p, q) + trunc(q) + round(p);
  i[0] = (int)x + __float2int_rn(y) + __float2int_rd(x) + (int)p + __double2int_ru(q); u[0] = (unsigned)x + __float2uint_rz(y) + (unsigned)(p);
  l[0] = (long long)x + (long long)p + __float2ll_rn(y) + (long long)__double2ull_rd(q);
  u[1] = isnan(x) + isinf(y) * 2 + isfinite(p) * 4 + signbit(q) * 8 + (x < y) + (p >= q) + (x != x) + __float_as_uint(x) + (unsigned)__double_as_longlong(p) + __double2hiint(p) + __double2loint(q);
  d[2] = __hiloint2double(i[3], i[4]) + __longlong_as_double(l[2]) ;
  f[4] = __uint_as_float(u[5]) + __int2float_rz(i[5]) + __uint2float_rd(u[6]) + __ll2float_ru(l[3]) + __ull2double_rn(u[7]) + __int2double_rn(i[6]);
}
extern "C" __global__ void halfs(unsigned short* h, unsigned* h2, float* f) {
  unsigned short a = h[0], b = h[1], r; unsigned c = h2[0], e = h2[1], r2; float x;
  asm("add.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); h[2] = r;
  asm("fma.rn.f16x2 %0, %1, %2, %1;" : "=r"(r2) : "r"(c), "r"(e)); h2[2] = r2;
  asm("cvt.f32.f16 %0, %1;" : "=f"(x) : "h"(a)); f[0] = x;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(f[1])); h[3] = r;
  asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(r2) : "r"(c), "r"(e)); h2[3] = r2;
  asm("neg.f16 %0, %1;" : "=h"(r) : "h"(a)); h[4] = r;
  asm("ex2.approx.f16x2 %0, %1;" : "=r"(r2) : "r"(c)); h2[5] = r2;
  asm("tanh.approx.f16 %0, %1;" : "=h"(r) : "h"(b)); h[5] = r;
  asm("{ .reg .pred p; setp.lt.f16 p, %1, %2; selp.u16 %0, 1, 0, p; }" : "=h"(r) : "h"(a), "h"(b)); h[6] = r;
}
struct S { int a; float b; double c; char d[3]; };
__device__ __noinline__ float helper(float x, int n, S s) { float r = x; for (int i = 0; i < n; ++i) r = r * x + s.b; return r + s.a + (float)s.c + s.d[1]; }
__device__ __noinline__ S make_s(int k) { S s; s.a = k; s.b = k * 0.5f; s.c = k * 0.25; s.d[0] = 1; s.d[1] = 2; s.d[2] = 3; return s; }
__constant__ float cst[16];
__constant__ int cst_init[4] = {1, 2, 3, 4};
__device__ int gdata[32] = {5, 6, 7};
__device__ int* gptr = &gdata[2];
__device__ float gf = 1.5f;
extern __shared__ float dyn[];
extern "C" __global__ void __launch_bounds__(256, 2) calls(float* out, const float* __restrict__ in, S s, int n, volatile int* vol, int4* v4, double2* d2, char* c8, short* s16) {
  int t = threadIdx.x + blockIdx.y * blockDim.y + gridDim.z;
  float local[20];
  for (int i = 0; i < 20; ++i) local[i] = in[(i * t) & 31] + __ldg(in + i) + __ldcs(in + 2*i) + __ldcg(in + 3) + __ldca(in + 4) + __ldlu(in + 5) + __ldcv(in+6);
  __stcs(out + 7, 1.0f); __stwb(out + 8, 2.0f); __stcg(out + 9, 3.f); __stwt(out+10, 4.f);
  S r = make_s(n);
  dyn[threadIdx.x] = local[n & 15] + helper(cst[t & 15], n, r) + cst_init[t & 3] + gdata[t & 31] + *gptr + gf;
  __syncthreads();
  out[t] = dyn[(threadIdx.x + 1) % blockDim.x] + s.b + (float)s.c + s.d[2];
  *vol = 5; while (*vol != 6) { __nanosleep(10); }
  int4 q = v4[t]; q.x += q.w; v4[t + 1] = q; double2 dd = d2[t]; dd.y += dd.x; d2[t+1] = dd;
  c8[t] = c8[t+1] + 1; s16[t] = s16[t + 2] * 3;
  if (n == 99) { printf("hello %d %f\n", t, (double)out[t]); }
  if (n == 100) __trap();
  if (n == 101) asm volatile("exit;");
  if (n == 102) __brkpt();
  int* m = (int*)malloc(16); m[0] = 1; out[0] += m[0]; free(m);
  __prof_trigger(3);
  out[1] = __isGlobal(out) + __isShared(dyn) + __isLocal(local) + __isConstant(cst);
}
