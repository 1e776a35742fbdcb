"""The Triton kernels of tests/triton.rs launched by Triton's own launcher on ptxc's libcuda.so.1.

Usage: python triton_kernels.py PTXAS WORKDIR [KERNEL...]

LD_LIBRARY_PATH must name the folder of ptxc's libcuda.so.1; PTXAS is ptxc's ptxas
(`ptxc-ptxas`), which Triton runs to turn its PTX into a cubin. No GPU and no PyTorch: Triton's
driver sees ptxc's simulated device (compute capability 7.5), compiles its C launcher with the
host compiler against libcuda.so.1, loads each cubin with cuModuleLoadData and launches it with
cuLaunchKernelEx. Buffers are allocated and copied with the driver API through ctypes, and
passed to the kernels as objects with `data_ptr()` and `dtype`, as Triton takes them. Prints
one line per kernel and `N passed, N failed`; exits 1 if any failed.
"""

import ctypes
import os
import shutil
import sys
import traceback
from pathlib import Path

import numpy as np

PTXAS = Path(sys.argv[1]).resolve()
WORK = Path(sys.argv[2]).resolve()
os.environ["TRITON_PTXAS_PATH"] = str(PTXAS)
shutil.rmtree(WORK / "triton-cache", ignore_errors=True)
os.environ["TRITON_CACHE_DIR"] = str(WORK / "triton-cache")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "triton"))

import triton  # noqa: E402  (after TRITON_PTXAS_PATH is set)
from definitions import histogram, matmul, softmax_rows, vector_add  # noqa: E402

CUDA = ctypes.CDLL("libcuda.so.1")


def check(result, what):
    if result != 0:
        raise RuntimeError(f"{what} failed with CUresult {result}")


class DeviceArray:
    """A device buffer holding a copy of a numpy array: what Triton needs of a tensor."""

    def __init__(self, host):
        self.host = np.ascontiguousarray(host)
        self.dtype = self.host.dtype
        self.ptr = ctypes.c_uint64()
        check(CUDA.cuMemAlloc_v2(ctypes.byref(self.ptr), ctypes.c_size_t(max(self.host.nbytes, 1))), "cuMemAlloc")
        check(CUDA.cuMemcpyHtoD_v2(self.ptr, self.host.ctypes.data_as(ctypes.c_void_p),
                                   ctypes.c_size_t(self.host.nbytes)), "cuMemcpyHtoD")

    def data_ptr(self):
        return self.ptr.value

    def numpy(self):
        out = np.empty_like(self.host)
        check(CUDA.cuMemcpyDtoH_v2(out.ctypes.data_as(ctypes.c_void_p), self.ptr, ctypes.c_size_t(out.nbytes)),
              "cuMemcpyDtoH")
        return out

    def __del__(self):
        CUDA.cuMemFree_v2(self.ptr)


def test_vector_add(rng):
    n, block = 1000, 256
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = DeviceArray(np.zeros(n, np.float32))
    vector_add[(triton.cdiv(n, block),)](DeviceArray(x), DeviceArray(y), out, n, BLOCK=block)
    np.testing.assert_array_equal(out.numpy(), x + y)


def test_softmax(rng):
    rows, cols, block = 64, 200, 256
    x = rng.standard_normal((rows, cols)).astype(np.float32) * 4
    out = DeviceArray(np.zeros(rows * cols, np.float32))
    softmax_rows[(rows,)](DeviceArray(x.ravel()), out, cols, cols, BLOCK=block)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out.numpy().reshape(rows, cols), want, rtol=2e-6, atol=1e-7)


def test_matmul(rng):
    m, n, kk = 64, 48, 40
    a = rng.standard_normal((m, kk)).astype(np.float32)
    b = rng.standard_normal((kk, n)).astype(np.float32)
    c = DeviceArray(np.zeros(m * n, np.float32))
    matmul[(triton.cdiv(m, 32), triton.cdiv(n, 32))](DeviceArray(a.ravel()), DeviceArray(b.ravel()), c, m, n, kk,
                                                     BM=32, BN=32, BK=16)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c.numpy().reshape(m, n), want, rtol=1e-4, atol=1e-4)


def test_histogram(rng):
    n, bins, block = 3000, 32, 512
    x = rng.integers(0, 1000, n).astype(np.int32)
    hist = DeviceArray(np.zeros(bins, np.int32))
    histogram[(triton.cdiv(n, block),)](DeviceArray(x), hist, n, BINS=bins, BLOCK=block)
    np.testing.assert_array_equal(hist.numpy(), np.bincount(x % bins, minlength=bins))


TESTS = {
    "vector_add": test_vector_add,
    "softmax": test_softmax,
    "matmul": test_matmul,
    "histogram": test_histogram,
}


def main():
    driver = triton.runtime.driver.active
    target = driver.get_current_target()
    name = ctypes.create_string_buffer(256)
    check(CUDA.cuDeviceGetName(name, 256, 0), "cuDeviceGetName")
    if b"ptxc" not in name.value:
        print(f"libcuda.so.1 is not ptxc's (device `{name.value.decode()}`): is LD_LIBRARY_PATH set?")
        return 1
    print(f"Triton {triton.__version__} on `{name.value.decode()}` ({target}), ptxas = {PTXAS}")
    wanted = sys.argv[3:] or list(TESTS)
    passed = failed = 0
    for t in wanted:
        try:
            TESTS[t](np.random.default_rng(11))
            print(f"{t}: ok")
            passed += 1
        except Exception:  # noqa: BLE001 (report every kernel, then fail)
            print(f"{t}: FAILED")
            traceback.print_exc(file=sys.stdout)
            failed += 1
    print(f"triton: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
