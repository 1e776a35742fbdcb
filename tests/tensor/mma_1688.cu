// mma.sync.m16n8k8 (f16 multiplicands, f16 or f32 accumulator) as inline PTX. Each kernel is
// one warp; lanes gather their fragment registers from row-major matrices in global memory by
// the fragment layouts of the PTX ISA ("Matrix fragments for mma.m16n8k8"), run one
// instruction and scatter D back row-major, so tests/sim_tensor.rs can compare with a plain
// matrix product. Storage (row-major, f16 as raw 16-bit patterns): A 16x8, B 8x8 (k, n), C
// and D 16x8.
typedef unsigned short u16;
typedef unsigned int u32;

__device__ u32 lane() { return threadIdx.x & 31; }
__device__ u32 pack(u16 lo, u16 hi) { return (u32)lo | (u32)hi << 16; }

// ------------------------------------------------------------------------------------------
// m16n8k8 (f16 multiplicands; A row-major, B column-major as PTX requires; ptxas 13.5 wants
// the accumulator and result types equal for this shape).

__device__ void load1688(const u16 *a, const u16 *b, u32 *ra, u32 &rb) {
  u32 l = lane(), g = l / 4, t = l % 4;
  for (int j = 0; j < 2; j++) ra[j] = pack(a[(g + 8 * j) * 8 + 2 * t], a[(g + 8 * j) * 8 + 2 * t + 1]);
  rb = pack(b[(2 * t) * 8 + g], b[(2 * t + 1) * 8 + g]);
}
// Offset of accumulator element j (0..4) of this lane in the 16x8 matrix.
__device__ u32 c1688(u32 j) {
  u32 l = lane(), g = l / 4, t = l % 4;
  return (g + 8 * (j / 2)) * 8 + 2 * t + j % 2;
}
__device__ void load_c32(const float *c, u32 *rc) {
  for (int j = 0; j < 4; j++) rc[j] = __float_as_uint(c[c1688(j)]);
}
__device__ void load_c16(const u16 *c, u32 *rc) {
  for (int j = 0; j < 2; j++) rc[j] = pack(c[c1688(2 * j)], c[c1688(2 * j + 1)]);
}
__device__ void store_d32(float *d, const u32 *rd) {
  for (int j = 0; j < 4; j++) d[c1688(j)] = __uint_as_float(rd[j]);
}
__device__ void store_d16(u16 *d, const u32 *rd) {
  for (int j = 0; j < 2; j++) {
    d[c1688(2 * j)] = (u16)rd[j];
    d[c1688(2 * j + 1)] = (u16)(rd[j] >> 16);
  }
}

extern "C" __global__ void mma_m16n8k8_f32_f32(const u16 *a, const u16 *b, const float *c, float *d) {
  u32 ra[2], rb, rc[4], rd[4];
  load1688(a, b, ra, rb);
  load_c32(c, rc);
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
               : "=r"(rd[0]), "=r"(rd[1]), "=r"(rd[2]), "=r"(rd[3])
               : "r"(ra[0]), "r"(ra[1]), "r"(rb), "r"(rc[0]), "r"(rc[1]), "r"(rc[2]), "r"(rc[3]));
  store_d32(d, rd);
}
extern "C" __global__ void mma_m16n8k8_f16_f16(const u16 *a, const u16 *b, const u16 *c, u16 *d) {
  u32 ra[2], rb, rc[2], rd[2];
  load1688(a, b, ra, rb);
  load_c16(c, rc);
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};"
               : "=r"(rd[0]), "=r"(rd[1])
               : "r"(ra[0]), "r"(ra[1]), "r"(rb), "r"(rc[0]), "r"(rc[1]));
  store_d16(d, rd);
}
