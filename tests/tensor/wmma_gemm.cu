// WMMA GEMM: C = A * B for n x n matrices (n a multiple of 64), A and B f16 row-major, C f32
// row-major. A block of 128 threads (4 warps, 2 x 2) computes a 64 x 64 tile of C; each warp
// a 32 x 32 part as 2 x 2 m16n16k16 accumulators. A and B stream through shared memory in
// 32-deep slices (rows padded by 8 halves against bank conflicts); every warp loads its
// fragments from shared memory with wmma.load and stores C with wmma.store.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

#define BM 64
#define BN 64
#define BK 32
#define PAD 8

extern "C" __global__ void __launch_bounds__(128) wmma_gemm(const __half *__restrict__ a,
                                                            const __half *__restrict__ b,
                                                            float *__restrict__ c, int n) {
  __shared__ __half sa[BM][BK + PAD];
  __shared__ __half sb[BK][BN + PAD];
  int warp = threadIdx.x / 32;
  int wy = warp / 2, wx = warp % 2;
  int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  for (int k0 = 0; k0 < n; k0 += BK) {
    // 64 x 32 halves of A and 32 x 64 of B, 8 halves (16 bytes) per thread and step.
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
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[2];
#pragma unroll
      for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], &sa[wy * 32 + i * 16][kk], BK + PAD);
#pragma unroll
      for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], &sb[kk][wx * 32 + j * 16], BN + PAD);
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(&c[(row0 + wy * 32 + i * 16) * n + col0 + wx * 32 + j * 16], acc[i][j], n,
                              wmma::mem_row_major);
}
