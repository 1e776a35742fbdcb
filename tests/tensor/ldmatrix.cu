// ldmatrix and movmatrix as inline PTX: every count with and without `.trans`, and the
// movmatrix transpose. Each kernel is one warp, so tests/sim_tensor.rs can compare the
// registers with the matrices in memory.
typedef unsigned short u16;
typedef unsigned int u32;

__device__ u32 lane() { return threadIdx.x & 31; }
__device__ u32 pack(u16 lo, u16 hi) { return (u32)lo | (u32)hi << 16; }

// ldmatrix and movmatrix: `m` holds four 8x8 matrices of 16-bit elements, row-major, matrix j
// at m[64 j]. ldmatrix copies them to shared memory and loads them (lanes 8j..8j+7 address the
// rows of matrix j, rows padded to 32 bytes (16-byte aligned, as ldmatrix requires) so the addresses are not contiguous); out[32 r +
// lane] is register r. movmatrix transposes matrix 0 from the mma layout (row g, columns 2t,
// 2t + 1).

#define LDMATRIX(name, COUNT, TRANS, N)                                                            \
  extern "C" __global__ void name(const u16 *m, u32 *out) {                                        \
    __shared__ u16 s[4 * 8 * 16];                                                                    \
    for (u32 i = lane(); i < 4 * 64; i += 32) s[(i / 8) * 16 + i % 8] = m[i];                      \
    __syncwarp();                                                                                   \
    u32 l = lane();                                                                                 \
    u32 addr = (u32)__cvta_generic_to_shared(&s[l * 16]);                                          \
    u32 r[4] = {0, 0, 0, 0};                                                                        \
    LDMATRIX_ASM_##N(COUNT, TRANS);                                                                 \
    for (int j = 0; j < N; j++) out[32 * j + l] = r[j];                                             \
  }
#define LDMATRIX_ASM_1(COUNT, TRANS)                                                               \
  asm volatile("ldmatrix.sync.aligned.m8n8." COUNT TRANS ".shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr))
#define LDMATRIX_ASM_2(COUNT, TRANS)                                                               \
  asm volatile("ldmatrix.sync.aligned.m8n8." COUNT TRANS ".shared.b16 {%0,%1}, [%2];"              \
               : "=r"(r[0]), "=r"(r[1]) : "r"(addr))
#define LDMATRIX_ASM_4(COUNT, TRANS)                                                               \
  asm volatile("ldmatrix.sync.aligned.m8n8." COUNT TRANS ".shared.b16 {%0,%1,%2,%3}, [%4];"        \
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr))

LDMATRIX(ldmatrix_x1, "x1", "", 1)
LDMATRIX(ldmatrix_x2, "x2", "", 2)
LDMATRIX(ldmatrix_x4, "x4", "", 4)
LDMATRIX(ldmatrix_x1_trans, "x1", ".trans", 1)
LDMATRIX(ldmatrix_x2_trans, "x2", ".trans", 2)
LDMATRIX(ldmatrix_x4_trans, "x4", ".trans", 4)

extern "C" __global__ void movmatrix_trans(const u16 *m, u32 *out) {
  u32 l = lane(), g = l / 4, t = l % 4;
  u32 x = pack(m[8 * g + 2 * t], m[8 * g + 2 * t + 1]), y;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(y) : "r"(x));
  out[l] = y;
}
