/* How ptxc's libcuda.so.1 reports errors to a C program: entry points it does not support
 * return CUDA_ERROR_NOT_SUPPORTED (and name themselves on stderr), and a fault in a kernel
 * fails the launch with the hardware's error code, names kernel, block, thread and address on
 * stderr, and stays the context's sticky error until the context is destroyed. The
 * declarations are this test's own (no NVIDIA header). Prints one line per check, the faulting
 * addresses ("oob address 0x..."), and "errors: N passed, N failed". */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef uint64_t CUdeviceptr;
typedef struct Opaque *Handle;
typedef Handle CUcontext, CUmodule, CUfunction, CUgraph;

CUresult cuInit(unsigned flags);
CUresult cuDeviceGet(CUdevice *dev, int ordinal);
CUresult cuCtxCreate_v2(CUcontext *ctx, unsigned flags, CUdevice dev);
CUresult cuCtxDestroy_v2(CUcontext ctx);
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoadData(CUmodule *mod, const void *image);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule mod, const char *name);
CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, Handle s, void **params, void **extra);
CUresult cuGetErrorName(CUresult error, const char **name);
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags, int *status);
/* Not supported by the library. */
CUresult cuGraphCreate(CUgraph *graph, unsigned flags);

/* Thread (WHO % 1024) of block (WHO / 1024) stores a word at p + off; the others do nothing. */
static const char *PTX =
    ".version 8.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    ".visible .entry poke(.param .u64 p, .param .u64 off, .param .u32 who)\n"
    "{\n"
    "  .reg .pred %p1;\n"
    "  .reg .b32 %r<6>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [p];\n"
    "  ld.param.u64 %rd2, [off];\n"
    "  ld.param.u32 %r1, [who];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  mov.u32 %r3, %ctaid.x;\n"
    "  shl.b32 %r4, %r3, 10;\n"
    "  add.u32 %r4, %r4, %r2;\n"
    "  setp.ne.u32 %p1, %r4, %r1;\n"
    "  @%p1 bra DONE;\n"
    "  add.u64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r4;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";

static int passed, failed;

static void check(int ok, const char *what) {
    printf("%s: %s\n", what, ok ? "ok" : "FAILED");
    if (ok)
        passed++;
    else
        failed++;
}

static const char *name_of(CUresult r) {
    const char *n = "?";
    cuGetErrorName(r, &n);
    return n;
}

#define CU(call)                                                                                      \
    do {                                                                                              \
        CUresult r_ = (call);                                                                         \
        if (r_ != 0) {                                                                                \
            printf("%s failed: %s\nerrors: %d passed, %d failed\n", #call, name_of(r_), passed,       \
                   failed + 1);                                                                       \
            return 1;                                                                                 \
        }                                                                                             \
    } while (0)

/* A fresh context with the poke kernel and a 256-byte buffer. */
static CUresult setup(CUcontext *ctx, CUfunction *f, CUdeviceptr *buf) {
    CUdevice dev;
    CUmodule mod;
    CUresult r;
    if ((r = cuDeviceGet(&dev, 0)) || (r = cuCtxCreate_v2(ctx, 0, dev)) || (r = cuModuleLoadData(&mod, PTX)) ||
        (r = cuModuleGetFunction(f, mod, "poke")) || (r = cuMemAlloc_v2(buf, 256)))
        return r;
    return 0;
}

static CUresult poke(CUfunction f, CUdeviceptr p, uint64_t off, unsigned who) {
    void *params[] = {&p, &off, &who};
    return cuLaunchKernel(f, 2, 1, 1, 64, 1, 1, 0, NULL, params, NULL);
}

int main(void) {
    CUcontext ctx;
    CUfunction f;
    CUdeviceptr buf;
    CU(cuInit(0));

    CUgraph graph;
    CUdeviceptr managed;
    CUresult r = cuGraphCreate(&graph, 0);
    printf("cuGraphCreate: %s\n", name_of(r));
    check(r == 801, "unsupported entry point");
    CUresult (*alloc_managed)(CUdeviceptr *, size_t, unsigned) = NULL;
    int status = -1;
    CU(cuGetProcAddress_v2("cuMemAllocManaged", (void **)&alloc_managed, 12000, 0, &status));
    r = alloc_managed ? alloc_managed(&managed, 64, 1) : -1;
    check(status == 0 && r == 801, "unsupported entry point by cuGetProcAddress");

    /* Thread 37 of block 1 writes 1 MiB past the end of the buffer. */
    CU(setup(&ctx, &f, &buf));
    CU(poke(f, buf, 8, 1024 + 5));
    unsigned word = 0;
    CU(cuMemcpyDtoH_v2(&word, buf + 8, 4));
    check(word == 1024 + 5, "a store in bounds");
    printf("oob address %#llx\n", (unsigned long long)(buf + (1 << 20)));
    r = poke(f, buf, 1 << 20, 1024 + 37);
    printf("out-of-bounds store: %s\n", name_of(r));
    check(r == 700, "a fault fails the launch with CUDA_ERROR_ILLEGAL_ADDRESS");
    r = cuCtxSynchronize();
    CUresult again = poke(f, buf, 8, 0);
    check(r == 700 && again == 700, "the fault is sticky");
    CU(cuCtxDestroy_v2(ctx));

    /* A fresh context works again; thread 5 of block 0 stores a word at an odd address. */
    CU(setup(&ctx, &f, &buf));
    CU(poke(f, buf, 0, 0));
    printf("misaligned address %#llx\n", (unsigned long long)(buf + 2));
    r = poke(f, buf, 2, 5);
    printf("misaligned store: %s\n", name_of(r));
    check(r == 716, "a misaligned store fails with CUDA_ERROR_MISALIGNED_ADDRESS");
    CU(cuCtxDestroy_v2(ctx));
    printf("errors: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
