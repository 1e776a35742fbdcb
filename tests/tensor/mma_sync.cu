// mma.sync.m8n8k4 as inline PTX (m16n8k8 is in mma_1688.cu, the integer shapes in
// mma_int.cu, ldmatrix and movmatrix in ldmatrix.cu). Each kernel is one warp; lanes gather
// their fragment registers from row-major matrices in global memory by the fragment layouts
// of the PTX ISA ("Matrix fragments for mma.m8n8k4"), run one instruction and scatter D back
// row-major, so tests/sim_tensor.rs can compare with a plain matrix product.
//
// Storage (row-major throughout; f16 as raw 16-bit patterns):
// - m8n8k4: four independent products, one per quad-pair q (lanes 4q..4q+3, 16+4q..16+4q+3):
//   A[q] 8x4 at a[32q + 4r + k], B[q] 4x8 at b[32q + 8k + n], C[q], D[q] 8x8 at c[64q + 8r + n].
typedef unsigned short u16;
typedef unsigned int u32;

__device__ u32 lane() { return threadIdx.x & 31; }
__device__ u32 pack(u16 lo, u16 hi) { return (u32)lo | (u32)hi << 16; }

// ------------------------------------------------------------------------------------------
// m8n8k4 (f16 multiplicands).

// A element i of this lane: (row, k) of the lane's quad-pair matrix.
__device__ u16 a884(const u16 *a, bool col, u32 i) {
  u32 l = lane(), q = (l % 16) / 4, hi = l >= 16 ? 4 : 0;
  u32 r = col ? i + hi : l % 4 + hi, k = col ? l % 4 : i;
  return a[32 * q + 4 * r + k];
}
__device__ u16 b884(const u16 *b, bool col, u32 i) {
  u32 l = lane(), q = (l % 16) / 4, hi = l >= 16 ? 4 : 0;
  u32 k = col ? i : l % 4, n = col ? l % 4 + hi : i + hi;
  return b[32 * q + 8 * k + n];
}
// Offset of accumulator element i (8 per lane): f16 rows, or the f32 layout.
__device__ u32 c884(bool f32, u32 i) {
  u32 l = lane(), q = (l % 16) / 4, hi = l >= 16 ? 4 : 0;
  u32 r = f32 ? (l % 2) + (i & 2) + hi : l % 4 + hi;
  u32 n = f32 ? (i & 4) + (l & 2) + (i & 1) : i;
  return 64 * q + 8 * r + n;
}

#define MMA884(name, AL, BL, DT, CT)                                                               \
  extern "C" __global__ void name(const u16 *a, const u16 *b, const void *c, void *d) {            \
    bool acol = AL[0] == 'c', bcol = BL[0] == 'c';                                                  \
    bool d32 = #DT[1] == '3', c32 = #CT[1] == '3';                                                  \
    u32 ra[2], rb[2], rc[8], rd[8];                                                                 \
    for (int j = 0; j < 2; j++) {                                                                   \
      ra[j] = pack(a884(a, acol, 2 * j), a884(a, acol, 2 * j + 1));                                 \
      rb[j] = pack(b884(b, bcol, 2 * j), b884(b, bcol, 2 * j + 1));                                 \
    }                                                                                               \
    for (int j = 0; j < 8; j++) {                                                                   \
      if (c32) rc[j] = ((const u32 *)c)[c884(true, j)];                                             \
      else if (j < 4)                                                                               \
        rc[j] = pack(((const u16 *)c)[c884(false, 2 * j)], ((const u16 *)c)[c884(false, 2 * j + 1)]); \
    }                                                                                               \
    MMA884_ASM_##DT##_##CT(AL, BL);                                                                 \
    for (int j = 0; j < 8; j++) {                                                                   \
      if (d32) ((u32 *)d)[c884(true, j)] = rd[j];                                                   \
      else if (j < 4) {                                                                             \
        ((u16 *)d)[c884(false, 2 * j)] = (u16)rd[j];                                                \
        ((u16 *)d)[c884(false, 2 * j + 1)] = (u16)(rd[j] >> 16);                                    \
      }                                                                                             \
    }                                                                                               \
  }

#define MMA884_ASM_f16_f16(AL, BL)                                                                   \
  asm volatile("mma.sync.aligned.m8n8k4." AL "." BL ".f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%8,%9,%10,%11};" \
               : "=r"(rd[0]), "=r"(rd[1]), "=r"(rd[2]), "=r"(rd[3])                                 \
               : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), "r"(rb[1]), "r"(rc[0]), "r"(rc[1]), "r"(rc[2]), "r"(rc[3]))
#define MMA884_ASM_f32_f32(AL, BL)                                                                   \
  asm volatile("mma.sync.aligned.m8n8k4." AL "." BL ".f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15,%16,%17,%18,%19};" \
               : "=r"(rd[0]), "=r"(rd[1]), "=r"(rd[2]), "=r"(rd[3]), "=r"(rd[4]), "=r"(rd[5]), "=r"(rd[6]), "=r"(rd[7]) \
               : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), "r"(rb[1]), "r"(rc[0]), "r"(rc[1]), "r"(rc[2]), "r"(rc[3]), "r"(rc[4]), "r"(rc[5]), "r"(rc[6]), "r"(rc[7]))
#define MMA884_ASM_f32_f16(AL, BL)                                                                   \
  asm volatile("mma.sync.aligned.m8n8k4." AL "." BL ".f32.f16.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15};" \
               : "=r"(rd[0]), "=r"(rd[1]), "=r"(rd[2]), "=r"(rd[3]), "=r"(rd[4]), "=r"(rd[5]), "=r"(rd[6]), "=r"(rd[7]) \
               : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), "r"(rb[1]), "r"(rc[0]), "r"(rc[1]), "r"(rc[2]), "r"(rc[3]))

MMA884(mma_m8n8k4_row_col_f16_f16, "row", "col", f16, f16)
MMA884(mma_m8n8k4_col_row_f16_f16, "col", "row", f16, f16)
MMA884(mma_m8n8k4_row_row_f32_f32, "row", "row", f32, f32)
MMA884(mma_m8n8k4_col_col_f32_f32, "col", "col", f32, f32)
MMA884(mma_m8n8k4_row_col_f32_f16, "row", "col", f32, f16)
MMA884(mma_m8n8k4_col_row_f32_f16, "col", "row", f32, f16)
