"""numba-cuda kernels launched through numba's normal API on ptxc's libcuda.so.1, checked with numpy.

Usage: python numba_kernels.py [KERNEL...]

LD_LIBRARY_PATH must name the folder of ptxc's libcuda.so.1 (the script checks that the device
numba sees is ptxc's simulated one). numba compiles each kernel to PTX with libNVVM; the driver
library compiles the PTX with ptxc and runs it on the simulator. Covered: 1D and 2D arrays,
static and dynamic shared memory with barriers, integer and float atomics, math functions in
float32 and float64, local arrays and device functions, constant memory, streams, events and
pinned host memory, and `print()` in a kernel (numba's vprintf calls, whose output the library
writes to the process's standard output at synchronisation). Prints one line per kernel and `N passed, N failed` at the end; exits 1 if
any failed.
"""

import math
import os
import sys
import tempfile
import traceback

import numpy as np
from numba import cuda, float32, int32

RNG = np.random.default_rng(7)


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def test_arrays_1d():
    n = 5000
    x = RNG.standard_normal(n).astype(np.float32)
    y = RNG.standard_normal(n).astype(np.float32)
    out = np.zeros_like(x)
    saxpy[(n + 255) // 256, 256](np.float32(2.5), x, y, out)
    # NVVM contracts a * x + y into one fused multiply-add: one rounding of the exact value
    # (the float64 product of two floats is exact).
    fused = (2.5 * x.astype(np.float64) + y.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(out, fused)


@cuda.jit
def transpose(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[j, i] = a[i, j] * 2 + i - j


def test_arrays_2d():
    a = RNG.integers(-1000, 1000, (37, 53)).astype(np.int64)
    d_a = cuda.to_device(a)
    d_out = cuda.device_array((53, 37), dtype=np.int64)
    transpose[(3, 4), (16, 16)](d_a, d_out)
    i, j = np.indices(a.shape)
    np.testing.assert_array_equal(d_out.copy_to_host(), (a * 2 + i - j).T)


@cuda.jit
def block_sum(x, out):
    buf = cuda.shared.array(256, dtype=float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    s = 128
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = buf[0]


def test_shared_memory():
    n = 256 * 12 - 7
    x = RNG.integers(-50, 50, n).astype(np.float32)
    out = np.zeros(12, dtype=np.float32)
    block_sum[12, 256](x, out)
    want = np.add.reduceat(np.concatenate([x, np.zeros(7, np.float32)]), np.arange(0, 256 * 12, 256))
    np.testing.assert_array_equal(out, want)


@cuda.jit
def reverse_dynamic(x, out):
    buf = cuda.shared.array(0, dtype=int32)
    t = cuda.threadIdx.x
    n = cuda.blockDim.x
    base = cuda.blockIdx.x * n
    buf[t] = x[base + t]
    cuda.syncthreads()
    out[base + t] = buf[n - 1 - t]


def test_dynamic_shared_memory():
    x = np.arange(4 * 96, dtype=np.int32)
    out = np.zeros_like(x)
    reverse_dynamic[4, 96, 0, 96 * 4](x, out)
    np.testing.assert_array_equal(out, x.reshape(4, 96)[:, ::-1].ravel())


@cuda.jit
def histogram(x, bins, total, biggest):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        cuda.atomic.add(bins, v % bins.size, 1)
        cuda.atomic.add(total, 0, float32(v) * float32(0.5))
        cuda.atomic.max(biggest, 0, v)


def test_atomics():
    x = RNG.integers(0, 1000, 4000).astype(np.int32)
    bins = np.zeros(17, dtype=np.int32)
    total = np.zeros(1, dtype=np.float32)
    biggest = np.zeros(1, dtype=np.int32)
    histogram[(x.size + 127) // 128, 128](x, bins, total, biggest)
    np.testing.assert_array_equal(bins, np.bincount(x % 17, minlength=17))
    # Halves of integers below 2^23 add exactly in float32, in any order.
    assert total[0] == np.float32(x.sum() * 0.5), (total[0], x.sum() * 0.5)
    assert biggest[0] == x.max()


@cuda.jit
def math_f32(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[0, i] = math.sin(v)
        out[1, i] = math.exp(v)
        out[2, i] = math.log(abs(v) + float32(1))
        out[3, i] = math.sqrt(abs(v))
        out[4, i] = math.tanh(v)
        out[5, i] = math.pow(abs(v), float32(1.5))
        out[6, i] = math.atan2(v, float32(0.75))
        out[7, i] = math.erf(v)


@cuda.jit
def math_f64(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[0, i] = math.sin(v)
        out[1, i] = math.exp(v)
        out[2, i] = math.log(abs(v) + 1.0)
        out[3, i] = math.sqrt(abs(v))
        out[4, i] = math.tanh(v)
        out[5, i] = math.pow(abs(v), 1.5)
        out[6, i] = math.atan2(v, 0.75)
        out[7, i] = math.erf(v)


def math_reference(v):
    erf = np.vectorize(math.erf)
    return np.stack([np.sin(v), np.exp(v), np.log(np.abs(v) + 1), np.sqrt(np.abs(v)), np.tanh(v),
                     np.abs(v) ** 1.5, np.arctan2(v, 0.75), erf(v)])


def test_math_functions():
    x64 = np.concatenate([RNG.uniform(-4, 4, 500), [0.0, 1.0, -1.0, 1e-3, 3.1]])
    x32 = x64.astype(np.float32)
    out32 = np.zeros((8, x32.size), dtype=np.float32)
    out64 = np.zeros((8, x64.size), dtype=np.float64)
    math_f32[(x32.size + 127) // 128, 128](x32, out32)
    math_f64[(x64.size + 127) // 128, 128](x64, out64)
    # libdevice's float functions are within a few ulp; double ones within 2 ulp.
    np.testing.assert_allclose(out32, math_reference(x32.astype(np.float64)), rtol=4e-6, atol=1e-7)
    np.testing.assert_allclose(out64, math_reference(x64), rtol=1e-14, atol=1e-300)


@cuda.jit(device=True)
def poly(v, coeffs):
    acc = 0.0
    for c in coeffs:
        acc = acc * v + c
    return acc


COEFFS = np.array([0.5, -1.25, 2.0, 3.0], dtype=np.float64)


@cuda.jit
def horner(x, out):
    coeffs = cuda.const.array_like(COEFFS)
    local = cuda.local.array(4, dtype=np.float64)
    for k in range(4):
        local[k] = coeffs[k]
    i = cuda.grid(1)
    if i < x.size:
        out[i] = poly(x[i], local)


def test_device_functions_local_and_constant_memory():
    x = RNG.uniform(-2, 2, 300)
    out = np.zeros_like(x)
    horner[3, 128](x, out)
    np.testing.assert_allclose(out, np.polyval(COEFFS, x), rtol=1e-15, atol=1e-15)


def test_streams_events_pinned_memory():
    n = 2048
    x = cuda.pinned_array(n, dtype=np.float32)
    x[:] = RNG.standard_normal(n)
    stream = cuda.stream()
    start, end = cuda.event(), cuda.event()
    d_x = cuda.to_device(x, stream=stream)
    d_y = cuda.device_array_like(x, stream=stream)
    d_out = cuda.device_array_like(x, stream=stream)
    d_y.copy_to_device(np.ones(n, dtype=np.float32), stream=stream)
    start.record(stream)
    saxpy[n // 128, 128, stream](np.float32(-1), d_x, d_y, d_out)
    end.record(stream)
    out = d_out.copy_to_host(stream=stream)
    stream.synchronize()
    end.synchronize()
    np.testing.assert_array_equal(out, np.float32(-1) * x + 1)
    ms = cuda.event_elapsed_time(start, end)
    assert 0 < ms < 1, f"simulated kernel time {ms} ms"


@cuda.jit
def print_values(ints, floats):
    i = cuda.grid(1)
    if i < ints.size:
        print("lane", i, "int", ints[i], "float", floats[i])


def captured_stdout(run):
    """What `run` writes to file descriptor 1 (the library writes kernel output there)."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), 1)
        try:
            run()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        f.seek(0)
        return f.read().decode()


def test_print():
    ints = np.array([0, -7, 2**40, 123456789, -(2**62)], dtype=np.int64)
    floats = np.array([0.5, -1.25, 1e-3, 3.0e10, -0.0], dtype=np.float64)

    def launch():
        print_values[1, 32](ints, floats)
        cuda.synchronize()

    out = captured_stdout(launch)
    # numba prints through vprintf with "%s %lld %s %lld %s %f\n"; the host's printf of the
    # same arguments, lane by lane in warp order:
    want = "".join("lane %d int %d float %f\n" % (i, v, f) for i, (v, f) in enumerate(zip(ints, floats)))
    assert out == want, f"kernel printed {out!r}, the host's printf gives {want!r}"


TESTS = {
    "arrays_1d": test_arrays_1d,
    "arrays_2d": test_arrays_2d,
    "shared_memory": test_shared_memory,
    "dynamic_shared_memory": test_dynamic_shared_memory,
    "atomics": test_atomics,
    "math_functions": test_math_functions,
    "device_functions_local_and_constant_memory": test_device_functions_local_and_constant_memory,
    "streams_events_pinned_memory": test_streams_events_pinned_memory,
    "print": test_print,
}


def main():
    dev = cuda.get_current_device()
    name = dev.name.decode() if isinstance(dev.name, bytes) else dev.name
    if "ptxc" not in name:
        print(f"numba found the device `{name}`, not ptxc's: is LD_LIBRARY_PATH set?")
        return 1
    print(f"numba-cuda on `{name}`, compute capability {dev.compute_capability}")
    wanted = sys.argv[1:] or list(TESTS)
    passed = failed = 0
    for t in wanted:
        try:
            TESTS[t]()
            print(f"{t}: ok")
            passed += 1
        except Exception:  # noqa: BLE001 (report every kernel, then fail)
            print(f"{t}: FAILED")
            traceback.print_exc(file=sys.stdout)
            failed += 1
    print(f"numba: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
