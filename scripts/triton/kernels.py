"""Triton kernels compiled by ptxc posing as ptxas, run on ptxc's simulator, checked with numpy.

Usage: python kernels.py PTXC WORKDIR [KERNEL...]

PTXC is the ptxc executable. A symlink named `ptxas` to it goes into WORKDIR/bin and
TRITON_PTXAS_PATH points at it, so Triton's own ptxas never runs (the script checks that
Triton picked ours and that each cubin was written by ptxc). Each kernel is compiled for
sm_75 on this machine (no GPU needed), launched with `ptxc run` from a launch spec (Triton's
two trailing scratch pointers are null: `{ u64 = 0 }`), and its outputs compared with numpy.
Prints one line per kernel and `N passed, N failed` at the end; exits 1 if any failed.
"""

import os
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

import numpy as np

PTXC = Path(sys.argv[1]).resolve()
WORK = Path(sys.argv[2]).resolve()
BIN = WORK / "bin"
BIN.mkdir(parents=True, exist_ok=True)
LINK = BIN / "ptxas"
if LINK.is_symlink() or LINK.exists():
    LINK.unlink()
LINK.symlink_to(PTXC)
os.environ["TRITON_PTXAS_PATH"] = str(LINK)
# A fresh cache: Triton's cache key names ptxas's version, not which ptxc build it is.
shutil.rmtree(WORK / "triton-cache", ignore_errors=True)
os.environ["TRITON_CACHE_DIR"] = str(WORK / "triton-cache")

import triton  # noqa: E402  (after TRITON_PTXAS_PATH is set)
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
from definitions import histogram, matmul, softmax_rows, vector_add  # noqa: E402

TARGET = GPUTarget("cuda", 75, 32)


def compile_kernel(fn, signature, constexprs, num_warps=4):
    src = ASTSource(fn=fn, signature=signature, constexprs=constexprs)
    return triton.compile(src, target=TARGET, options={"num_warps": num_warps})


def run(name, compiled, grid, params, buffers):
    """Writes the cubin, the inputs and a launch spec; runs `ptxc run`; returns the outputs."""
    d = WORK / name
    d.mkdir(parents=True, exist_ok=True)
    cubin = compiled.asm["cubin"]
    assert b"ptxc" in cubin, "the cubin was not written by ptxc"
    (d / f"{name}.cubin").write_bytes(cubin)
    (d / f"{name}.ptx").write_text(compiled.asm["ptx"])
    lines = [
        f'kernel = "{compiled.metadata.name}"',
        f"grid = {list(grid)}",
        f"block = [{compiled.metadata.num_warps * 32}, 1, 1]",
        f"dynamic_shared_bytes = {compiled.metadata.shared}",
        # Triton's last two parameters are its global and profile scratch pointers: null.
        "params = [ " + ", ".join(params + ["{ u64 = 0 }", "{ u64 = 0 }"]) + " ]",
    ]
    for b, value in buffers.items():
        if isinstance(value, np.ndarray):
            np.save(d / f"{b}.npy", value)
            lines += [f"[buffers.{b}]", f'file = "{b}.npy"']
        else:
            dtype, length = value
            lines += [f"[buffers.{b}]", f'dtype = "{dtype}"', f"len = {length}"]
    (d / "launch.toml").write_text("\n".join(lines) + "\n")
    out = d / "out"
    r = subprocess.run([str(PTXC), "run", str(d / f"{name}.cubin"), "--launch", str(d / "launch.toml"),
                        "--out", str(out)], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"ptxc run failed:\n{r.stdout}{r.stderr}")
    if "hazards 0" not in r.stdout:
        raise RuntimeError(f"the simulator reported hazards:\n{r.stdout}")
    return {b: np.load(out / f"{b}.npy") for b in buffers}


def test_vector_add(rng):
    n, block = 1000, 256
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    k = compile_kernel(vector_add, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
                                    "BLOCK": "constexpr"}, {"BLOCK": block})
    out = run("vector_add", k, [triton.cdiv(n, block), 1, 1],
              ['{ ptr = "x" }', '{ ptr = "y" }', '{ ptr = "out" }', f"{{ i32 = {n} }}"],
              {"x": x, "y": y, "out": ("f32", n)})
    np.testing.assert_array_equal(out["out"], x + y)


def test_softmax(rng):
    rows, cols, block = 64, 200, 256
    x = rng.standard_normal((rows, cols)).astype(np.float32) * 4
    k = compile_kernel(softmax_rows, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": "i32", "stride": "i32",
                                      "BLOCK": "constexpr"}, {"BLOCK": block})
    out = run("softmax", k, [rows, 1, 1],
              ['{ ptr = "x" }', '{ ptr = "out" }', f"{{ i32 = {cols} }}", f"{{ i32 = {cols} }}"],
              {"x": x.ravel(), "out": ("f32", rows * cols)})
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out["out"].reshape(rows, cols), want, rtol=2e-6, atol=1e-7)


def test_matmul(rng):
    m, n, kk = 64, 48, 40
    bm, bn, bk = 32, 32, 16
    a = rng.standard_normal((m, kk)).astype(np.float32)
    b = rng.standard_normal((kk, n)).astype(np.float32)
    k = compile_kernel(matmul, {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "i32", "N": "i32",
                                "K": "i32", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
                       {"BM": bm, "BN": bn, "BK": bk})
    out = run("matmul", k, [triton.cdiv(m, bm), triton.cdiv(n, bn), 1],
              ['{ ptr = "a" }', '{ ptr = "b" }', '{ ptr = "c" }', f"{{ i32 = {m} }}", f"{{ i32 = {n} }}",
               f"{{ i32 = {kk} }}"],
              {"a": a.ravel(), "b": b.ravel(), "c": ("f32", m * n)})
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(out["c"].reshape(m, n), want, rtol=1e-4, atol=1e-4)


def test_histogram(rng):
    n, bins, block = 3000, 32, 512
    x = rng.integers(0, 1000, n).astype(np.int32)
    k = compile_kernel(histogram, {"x_ptr": "*i32", "hist_ptr": "*i32", "n": "i32", "BINS": "constexpr",
                                   "BLOCK": "constexpr"}, {"BINS": bins, "BLOCK": block})
    out = run("histogram", k, [triton.cdiv(n, block), 1, 1],
              ['{ ptr = "x" }', '{ ptr = "hist" }', f"{{ i32 = {n} }}"],
              {"x": x, "hist": ("i32", bins)})
    np.testing.assert_array_equal(out["hist"], np.bincount(x % bins, minlength=bins))


TESTS = {
    "vector_add": test_vector_add,
    "softmax": test_softmax,
    "matmul": test_matmul,
    "histogram": test_histogram,
}


def main():
    tool = triton.knobs.nvidia.ptxas
    if Path(tool.path) != LINK:
        print(f"Triton picked {tool.path}, not {LINK}: is `{LINK} --version` broken?")
        return 1
    print(f"Triton {triton.__version__}, ptxas = {tool.path} (release {tool.version})")
    wanted = sys.argv[3:] or list(TESTS)
    passed = failed = 0
    for name in wanted:
        try:
            TESTS[name](np.random.default_rng(11))
            print(f"{name}: ok")
            passed += 1
        except Exception:  # noqa: BLE001 (report every kernel, then fail)
            print(f"{name}: FAILED")
            traceback.print_exc(file=sys.stdout)
            failed += 1
    print(f"triton: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
