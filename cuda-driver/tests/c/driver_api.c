/* A C program using the CUDA driver API, linked against ptxc's libcuda.so.1. The declarations
 * below are this test's own (the subset it calls, with the driver API's C signatures); no
 * NVIDIA header is used. Prints one line per check and "c: N passed, N failed". */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef uint64_t CUdeviceptr;
typedef struct Opaque *Handle;
typedef Handle CUcontext, CUmodule, CUfunction, CUstream, CUevent;

CUresult cuInit(unsigned flags);
CUresult cuDriverGetVersion(int *version);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGet(CUdevice *dev, int ordinal);
CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice dev);
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev);
CUresult cuCtxCreate_v2(CUcontext *ctx, unsigned flags, CUdevice dev);
CUresult cuCtxDestroy_v2(CUcontext ctx);
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoadDataEx(CUmodule *mod, const void *image, unsigned n, int *options, void **values);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule mod, const char *name);
CUresult cuModuleGetGlobal_v2(CUdeviceptr *ptr, size_t *bytes, CUmodule mod, const char *name);
CUresult cuModuleUnload(CUmodule mod);
CUresult cuFuncGetAttribute(int *value, int attribute, CUfunction f);
CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes);
CUresult cuMemFree_v2(CUdeviceptr ptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes);
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned value, size_t count);
CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned flags);
CUresult cuMemFreeHost(void *p);
CUresult cuStreamCreate(CUstream *s, unsigned flags);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuStreamDestroy_v2(CUstream s);
CUresult cuEventCreate(CUevent *e, unsigned flags);
CUresult cuEventRecord(CUevent e, CUstream s);
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, CUstream s, void **params, void **extra);
CUresult cuGetErrorName(CUresult error, const char **name);
CUresult cuGetErrorString(CUresult error, const char **text);

/* y[i] = scale * x[i] + c_offset[i % 4], through a shared-memory staging buffer. */
static const char *PTX =
    ".version 8.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    ".const .align 4 .f32 c_offset[4];\n"
    ".visible .entry scale(.param .u64 px, .param .u64 py, .param .f32 pscale, .param .u32 pn)\n"
    "{\n"
    "  .shared .align 4 .f32 buf[128];\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<10>;\n"
    "  .reg .f32 %f<6>;\n"
    "  .reg .b64 %rd<10>;\n"
    "  ld.param.u64 %rd1, [px];\n"
    "  ld.param.u64 %rd2, [py];\n"
    "  ld.param.f32 %f1, [pscale];\n"
    "  ld.param.u32 %r1, [pn];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  mov.u32 %r3, %ctaid.x;\n"
    "  mov.u32 %r4, %ntid.x;\n"
    "  mad.lo.u32 %r5, %r3, %r4, %r2;\n"
    "  setp.ge.u32 %p1, %r5, %r1;\n"
    "  mul.wide.u32 %rd3, %r5, 4;\n"
    "  mul.wide.u32 %rd6, %r2, 4;\n"
    "  mov.u64 %rd7, buf;\n"
    "  add.u64 %rd7, %rd7, %rd6;\n"
    "  mov.f32 %f2, 0f00000000;\n"
    "  @%p1 bra STAGE;\n"
    "  cvta.to.global.u64 %rd4, %rd1;\n"
    "  add.u64 %rd4, %rd4, %rd3;\n"
    "  ld.global.f32 %f2, [%rd4];\n"
    "STAGE:\n"
    "  st.shared.f32 [%rd7], %f2;\n"
    "  bar.sync 0;\n"
    "  @%p1 bra DONE;\n"
    "  ld.shared.f32 %f3, [%rd7];\n"
    "  and.b32 %r6, %r5, 3;\n"
    "  mul.wide.u32 %rd8, %r6, 4;\n"
    "  mov.u64 %rd9, c_offset;\n"
    "  add.u64 %rd9, %rd9, %rd8;\n"
    "  ld.const.f32 %f4, [%rd9];\n"
    "  mul.rn.f32 %f5, %f3, %f1;\n"
    "  add.rn.f32 %f5, %f5, %f4;\n"
    "  cvta.to.global.u64 %rd5, %rd2;\n"
    "  add.u64 %rd5, %rd5, %rd3;\n"
    "  st.global.f32 [%rd5], %f5;\n"
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

#define CU(call)                                                                                \
    do {                                                                                        \
        CUresult r_ = (call);                                                                   \
        if (r_ != 0) {                                                                          \
            const char *n_ = "?";                                                               \
            cuGetErrorName(r_, &n_);                                                            \
            printf("%s failed: %s\nc: %d passed, %d failed\n", #call, n_, passed, failed + 1);  \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

int main(void) {
    enum { N = 1000 };
    int version = 0, count = 0, major = 0, minor = 0, regs = -1;
    char name[128];
    size_t total = 0, const_bytes = 0;
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f;
    CUstream stream;
    CUevent start, end;
    CUdeviceptr dx, dy, dz, doff;
    char log[4096] = "";
    int options[] = {5, 6}; /* CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES */
    void *values[] = {log, (void *)(uintptr_t)sizeof log};

    CU(cuInit(0));
    CU(cuDriverGetVersion(&version));
    CU(cuDeviceGetCount(&count));
    CU(cuDeviceGet(&dev, 0));
    CU(cuDeviceGetName(name, sizeof name, dev));
    CU(cuDeviceGetAttribute(&major, 75, dev));
    CU(cuDeviceGetAttribute(&minor, 76, dev));
    CU(cuDeviceTotalMem_v2(&total, dev));
    printf("driver %d, %d device(s): %s, sm_%d%d, %zu MiB\n", version, count, name, major, minor, total >> 20);
    check(count == 1 && strstr(name, "ptxc") && major * 10 + minor == 75 && total > 0, "device");

    CU(cuCtxCreate_v2(&ctx, 0, dev));
    CU(cuModuleLoadDataEx(&mod, PTX, 2, options, values));
    CU(cuModuleGetFunction(&f, mod, "scale"));
    CU(cuFuncGetAttribute(&regs, 4, f)); /* CU_FUNC_ATTRIBUTE_NUM_REGS */
    check(regs > 0, "module from PTX");

    float offsets[4] = {0.5f, -1.0f, 2.0f, 0.25f};
    CU(cuModuleGetGlobal_v2(&doff, &const_bytes, mod, "c_offset"));
    CU(cuMemcpyHtoD_v2(doff, offsets, sizeof offsets));
    check(const_bytes == sizeof offsets, "constant variable");

    float *x = NULL, y[N], z[N];
    CU(cuMemHostAlloc((void **)&x, N * sizeof(float), 0));
    for (int i = 0; i < N; i++)
        x[i] = (float)i * 0.25f - 7.0f;
    CU(cuMemAlloc_v2(&dx, N * sizeof(float)));
    CU(cuMemAlloc_v2(&dy, N * sizeof(float)));
    CU(cuMemAlloc_v2(&dz, N * sizeof(float)));
    CU(cuMemsetD32_v2(dy, 0x7fc00000u, N)); /* NaN everywhere: every element must be written */
    CU(cuMemcpyHtoD_v2(dx, x, N * sizeof(float)));

    CU(cuStreamCreate(&stream, 0));
    CU(cuEventCreate(&start, 0));
    CU(cuEventCreate(&end, 0));
    float s = 3.0f;
    unsigned n = N;
    void *params[] = {&dx, &dy, &s, &n};
    CU(cuEventRecord(start, stream));
    CU(cuLaunchKernel(f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, stream, params, NULL));
    CU(cuEventRecord(end, stream));
    CU(cuStreamSynchronize(stream));
    CU(cuMemcpyDtoD_v2(dz, dy, N * sizeof(float)));
    CU(cuMemcpyDtoH_v2(y, dy, N * sizeof(float)));
    CU(cuMemcpyDtoH_v2(z, dz, N * sizeof(float)));
    int same = 1;
    for (int i = 0; i < N; i++)
        same &= y[i] == x[i] * s + offsets[i % 4] && z[i] == y[i];
    check(same, "kernel results");

    float ms = -1;
    CU(cuEventElapsedTime(&ms, start, end));
    printf("simulated kernel time %.6f ms\n", ms);
    check(ms > 0 && ms < 1, "event timing");

    /* A second launch sees memory the first wrote: device memory persists. */
    void *params2[] = {&dy, &dz, &s, &n};
    CU(cuLaunchKernel(f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params2, NULL));
    CU(cuCtxSynchronize());
    CU(cuMemcpyDtoH_v2(z, dz, N * sizeof(float)));
    same = 1;
    for (int i = 0; i < N; i++)
        same &= z[i] == y[i] * s + offsets[i % 4];
    check(same, "memory persists across launches");

    const char *ename = NULL, *etext = NULL;
    CUresult bad = cuMemcpyHtoD_v2(dx + N * sizeof(float) + 4096, x, 4);
    cuGetErrorName(bad, &ename);
    cuGetErrorString(bad, &etext);
    printf("out-of-range copy: %s (%s)\n", ename, etext);
    check(bad == 1 && strcmp(ename, "CUDA_ERROR_INVALID_VALUE") == 0, "errors");

    CUmodule broken;
    values[1] = (void *)(uintptr_t)sizeof log; /* the driver stored the bytes written there */
    CUresult r = cuModuleLoadDataEx(&broken, ".version 8.0\n.target sm_75\n.address_size 64\n.entry k() { bogus; }\n",
                                    2, options, values);
    printf("error log: %s\n", log);
    check(r == 218 && strstr(log, "bogus") != NULL, "PTX errors reach the error log");

    CU(cuMemFree_v2(dx));
    CU(cuMemFree_v2(dy));
    CU(cuMemFree_v2(dz));
    CU(cuMemFreeHost(x));
    CU(cuStreamDestroy_v2(stream));
    CU(cuModuleUnload(mod));
    CU(cuCtxDestroy_v2(ctx));
    printf("c: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
