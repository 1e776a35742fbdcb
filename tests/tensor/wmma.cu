// WMMA tiles: one warp computes D = A * B + C for one tile of every shape and element type
// sm_75 supports (f16 with f16 or f32 accumulators, s8/u8, s4/u4, b1), in every layout
// combination the test needs, through global memory with leading dimensions given as
// parameters (strides wider than the tile), and once through shared memory.
//
// Storage: A row-major is a[i * lda + k], column-major a[k * lda + i]; B row-major
// b[k * ldb + j], column-major b[j * ldb + k]; C and D row-major c[i * ldc + j], column-major
// c[j * ldc + i]. Sub-byte elements are packed low first (4-bit: two per byte; 1-bit: bit i
// of a 32-bit word is element 32w + i). tests/sim_tensor.rs checks the results.
#include <mma.h>
using namespace nvcuda;
namespace exp_ = nvcuda::wmma::experimental;

#define WMMA_TILE(name, M, N, K, T, PT, TC, PC, LA, LB, LC, LD, SATF)                              \
  extern "C" __global__ void name(const PT *a, const PT *b, const PC *c, PC *d, unsigned lda,     \
                                  unsigned ldb, unsigned ldc) {                                   \
    wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::LA> fa;                                      \
    wmma::fragment<wmma::matrix_b, M, N, K, T, wmma::LB> fb;                                      \
    wmma::fragment<wmma::accumulator, M, N, K, TC> fc;                                            \
    wmma::load_matrix_sync(fa, a, lda);                                                           \
    wmma::load_matrix_sync(fb, b, ldb);                                                           \
    wmma::load_matrix_sync(fc, c, ldc, wmma::LC);                                                 \
    wmma::mma_sync(fc, fa, fb, fc SATF);                                                          \
    wmma::store_matrix_sync(d, fc, ldc, wmma::LD);                                                \
  }

#define NOSAT
#define SAT , true

WMMA_TILE(wmma_f16_f32_m16n16k16_rc, 16, 16, 16, __half, __half, float, float, row_major, col_major,
          mem_row_major, mem_row_major, NOSAT)
WMMA_TILE(wmma_f16_f16_m16n16k16_cr, 16, 16, 16, __half, __half, __half, __half, col_major, row_major,
          mem_col_major, mem_col_major, NOSAT)
WMMA_TILE(wmma_f16_f32_m32n8k16_rr, 32, 8, 16, __half, __half, float, float, row_major, row_major,
          mem_row_major, mem_col_major, NOSAT)
WMMA_TILE(wmma_f16_f16_m8n32k16_cc, 8, 32, 16, __half, __half, __half, __half, col_major, col_major,
          mem_col_major, mem_row_major, NOSAT)
WMMA_TILE(wmma_f16_f16_m32n8k16_rc, 32, 8, 16, __half, __half, __half, __half, row_major, col_major,
          mem_row_major, mem_row_major, NOSAT)
WMMA_TILE(wmma_f16_f32_m8n32k16_cr, 8, 32, 16, __half, __half, float, float, col_major, row_major,
          mem_row_major, mem_row_major, NOSAT)
WMMA_TILE(wmma_s8_m16n16k16_rc, 16, 16, 16, signed char, signed char, int, int, row_major, col_major,
          mem_row_major, mem_row_major, SAT)
WMMA_TILE(wmma_u8_m16n16k16_cr, 16, 16, 16, unsigned char, unsigned char, int, int, col_major,
          row_major, mem_col_major, mem_row_major, NOSAT)
WMMA_TILE(wmma_u8_m32n8k16_rr, 32, 8, 16, unsigned char, unsigned char, int, int, row_major, row_major,
          mem_row_major, mem_row_major, NOSAT)
WMMA_TILE(wmma_s8_m8n32k16_cc, 8, 32, 16, signed char, signed char, int, int, col_major, col_major,
          mem_row_major, mem_col_major, NOSAT)
WMMA_TILE(wmma_s4_m8n8k32, 8, 8, 32, exp_::precision::s4, void, int, int, row_major, col_major,
          mem_row_major, mem_row_major, SAT)
WMMA_TILE(wmma_u4_m8n8k32, 8, 8, 32, exp_::precision::u4, void, int, int, row_major, col_major,
          mem_row_major, mem_col_major, NOSAT)

// b1: D = C + popc(A_row XOR B_col).
extern "C" __global__ void wmma_b1_m8n8k128(const void *a, const void *b, const int *c, int *d,
                                            unsigned lda, unsigned ldb, unsigned ldc) {
  wmma::fragment<wmma::matrix_a, 8, 8, 128, exp_::precision::b1, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 128, exp_::precision::b1, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 128, int> fc;
  wmma::load_matrix_sync(fa, a, lda);
  wmma::load_matrix_sync(fb, b, ldb);
  wmma::load_matrix_sync(fc, c, ldc, wmma::mem_row_major);
  wmma::bmma_sync(fc, fa, fb, fc, exp_::bmmaBitOpXOR, exp_::bmmaAccumulateOpPOPC);
  wmma::store_matrix_sync(d, fc, ldc, wmma::mem_row_major);
}

// The f16 m16n16k16 tile through shared memory (A row-major, B column-major, f32 C and D
// row-major); the tiles keep the global leading dimensions.
extern "C" __global__ void wmma_f16_f32_m16n16k16_shared(const __half *a, const __half *b,
                                                         const float *c, float *d, unsigned lda,
                                                         unsigned ldb, unsigned ldc) {
  __shared__ __half sa[16 * 64], sb[16 * 64];
  __shared__ float sc[16 * 64];
  for (unsigned i = threadIdx.x; i < 16 * lda; i += 32) sa[i] = a[i];
  for (unsigned i = threadIdx.x; i < 16 * ldb; i += 32) sb[i] = b[i];
  for (unsigned i = threadIdx.x; i < 16 * ldc; i += 32) sc[i] = c[i];
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, sa, lda);
  wmma::load_matrix_sync(fb, sb, ldb);
  wmma::load_matrix_sync(fc, sc, ldc, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(sc, fc, ldc, wmma::mem_row_major);
  __syncwarp();
  for (unsigned i = threadIdx.x; i < 16 * ldc; i += 32) d[i] = sc[i];
}
