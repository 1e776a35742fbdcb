// Tensor-core GEMM with mma.sync and ldmatrix: C = A * B for n x n matrices (n a multiple of
// 64), A and B f16 row-major, C f32 row-major. A block of 128 threads (4 warps, 2 x 2)
// computes a 64 x 64 tile of C; each warp a 32 x 32 part as 2 x 4 m16n8k8 accumulators.
// A and B stream through shared memory in 32-deep slices (rows padded by 8 halves against
// bank conflicts); A fragments come from ldmatrix.x4 (two k-steps of a 16-row block), B
// fragments from ldmatrix.x4.trans (four 8-column blocks of one k-step).
#include <cuda_fp16.h>

#define BM 64
#define BN 64
#define BK 32
#define PAD 8

__device__ __forceinline__ unsigned smem(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}

extern "C" __global__ void __launch_bounds__(128) mma_gemm(const __half *__restrict__ a,
                                                           const __half *__restrict__ b,
                                                           float *__restrict__ c, int n) {
  __shared__ __half sa[BM][BK + PAD];
  __shared__ __half sb[BK][BN + PAD];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int wy = warp / 2, wx = warp % 2;
  int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[2][4][4];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[i][j][q] = 0.0f;
  for (int k0 = 0; k0 < n; k0 += BK) {
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      int e = (threadIdx.x + 128 * s) * 8;
      int ar = e / BK, ac = e % BK;
      *(uint4 *)&sa[ar][ac] = *(const uint4 *)&a[(row0 + ar) * n + k0 + ac];
      int br = e / BN, bc = e % BN;
      *(uint4 *)&sb[br][bc] = *(const uint4 *)&b[(k0 + br) * n + col0 + bc];
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      // A: matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15).
      unsigned fa[2][4];
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const __half *p = &sa[wy * 32 + i * 16 + (lane % 8) + 8 * ((lane / 8) % 2)][kk + 8 * (lane / 16)];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(fa[i][0]), "=r"(fa[i][1]), "=r"(fa[i][2]), "=r"(fa[i][3])
                     : "r"(smem(p)));
      }
      // B: for each k-step of 8, the four 8-column blocks of the warp's 32 columns.
#pragma unroll
      for (int ks = 0; ks < 2; ++ks) {
        unsigned fb[4];
        const __half *p = &sb[kk + 8 * ks + (lane % 8)][wx * 32 + 8 * (lane / 8)];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(fb[0]), "=r"(fb[1]), "=r"(fb[2]), "=r"(fb[3])
                     : "r"(smem(p)));
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
          for (int j = 0; j < 4; ++j)
            asm volatile(
                "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
                "{%0, %1, %2, %3};"
                : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
                : "r"(fa[i][2 * ks]), "r"(fa[i][2 * ks + 1]), "r"(fb[j]));
      }
    }
    __syncthreads();
  }
  int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      int r = row0 + wy * 32 + i * 16 + g, col = col0 + wx * 32 + j * 8 + 2 * t;
      *(float2 *)&c[r * n + col] = make_float2(acc[i][j][0], acc[i][j][1]);
      *(float2 *)&c[(r + 8) * n + col] = make_float2(acc[i][j][2], acc[i][j][3]);
    }
}
