// The integer mma.sync shapes as inline PTX: m8n8k16 (s8/u8), m8n8k32 (s4/u4), m8n8k128 (b1
// .xor.popc), every type pair, with and without .satfinite. Each kernel is one warp; lanes
// gather their fragment registers from memory by the fragment layouts of the PTX ISA, run one
// instruction and scatter D back row-major, so tests/sim_tensor.rs can compare with a plain
// matrix product. Storage: A 8xK packed in 32-bit words per row (4 bytes, 8 nibbles, 32 bits
// a word, low first): a[(K / per) * r + w]; B stored transposed (column n's K elements the
// same way): b[(K / per) * n + w]; C and D 8x8 s32.
typedef unsigned int u32;

__device__ u32 lane() { return threadIdx.x & 31; }

// ------------------------------------------------------------------------------------------
// m8n8k16 (8-bit), m8n8k32 (4-bit), m8n8k128 (1-bit): A row-major, B column-major; one word
// of A and of B per lane (row g, word t; column g, word t), C and D (g, 2t), (g, 2t + 1).

#define IMMA(name, SHAPE, TYPES, SAT)                                                              \
  extern "C" __global__ void name(const u32 *a, const u32 *b, const int *c, int *d) {              \
    u32 l = lane(), g = l / 4, t = l % 4;                                                           \
    u32 ra = a[4 * g + t], rb = b[4 * g + t];                                                       \
    int c0 = c[8 * g + 2 * t], c1 = c[8 * g + 2 * t + 1], d0, d1;                                   \
    asm volatile("mma.sync.aligned." SHAPE ".row.col" SAT ".s32." TYPES ".s32 {%0,%1}, {%2}, {%3}, {%4,%5};" \
                 : "=r"(d0), "=r"(d1)                                                               \
                 : "r"(ra), "r"(rb), "r"(c0), "r"(c1));                                            \
    d[8 * g + 2 * t] = d0;                                                                          \
    d[8 * g + 2 * t + 1] = d1;                                                                      \
  }

IMMA(mma_m8n8k16_s8_s8, "m8n8k16", "s8.s8", "")
IMMA(mma_m8n8k16_u8_s8_sat, "m8n8k16", "u8.s8", ".satfinite")
IMMA(mma_m8n8k16_s8_u8, "m8n8k16", "s8.u8", "")
IMMA(mma_m8n8k16_u8_u8_sat, "m8n8k16", "u8.u8", ".satfinite")
IMMA(mma_m8n8k32_s4_s4_sat, "m8n8k32", "s4.s4", ".satfinite")
IMMA(mma_m8n8k32_u4_s4, "m8n8k32", "u4.s4", "")
IMMA(mma_m8n8k32_s4_u4, "m8n8k32", "s4.u4", "")
IMMA(mma_m8n8k32_u4_u4, "m8n8k32", "u4.u4", "")

extern "C" __global__ void mma_m8n8k128_b1(const u32 *a, const u32 *b, const int *c, int *d) {
  u32 l = lane(), g = l / 4, t = l % 4;
  u32 ra = a[4 * g + t], rb = b[4 * g + t];
  int c0 = c[8 * g + 2 * t], c1 = c[8 * g + 2 * t + 1], d0, d1;
  asm volatile("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%0,%1}, {%2}, {%3}, {%4,%5};"
               : "=r"(d0), "=r"(d1)
               : "r"(ra), "r"(rb), "r"(c0), "r"(c1));
  d[8 * g + 2 * t] = d0;
  d[8 * g + 2 * t + 1] = d1;
}
