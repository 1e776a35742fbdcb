"""Triton kernels compiled by ptxc posing as ptxas, run on ptxc's simulator, checked with numpy.

Usage: python kernels.py PTXC WORKDIR [--arch sm_XX] [KERNEL...]

PTXC is the ptxc executable. A symlink named `ptxas` to it goes into WORKDIR/bin and
TRITON_PTXAS_PATH (and TRITON_PTXAS_BLACKWELL_PATH, which Triton uses from sm_90 on) points
at it, so Triton's own ptxas never runs (the script checks that
Triton picked ours and that each cubin was written by ptxc). Each kernel is compiled for
the target (`--arch`, default sm_75) on this machine (no GPU needed), launched with `ptxc run`
from a launch spec (Triton's two trailing scratch pointers are null: `{ u64 = 0 }`) on the
target's default device model, and its outputs compared with numpy. Without KERNEL names it
runs the target's set ([`DEFAULTS`]). Prints one line per kernel and `N passed, N failed` at
the end; exits 1 if any failed.
"""

import os
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

import numpy as np

PTXC = Path(sys.argv[1]).resolve()
ARGS = sys.argv[3:]
ARCH = "sm_75"
if ARGS[:1] == ["--arch"] and len(ARGS) > 1:
    ARCH, ARGS = ARGS[1], ARGS[2:]
WORK = Path(sys.argv[2]).resolve() / ARCH
BIN = WORK / "bin"
BIN.mkdir(parents=True, exist_ok=True)
LINK = BIN / "ptxas"
if LINK.is_symlink() or LINK.exists():
    LINK.unlink()
LINK.symlink_to(PTXC)
os.environ["TRITON_PTXAS_PATH"] = str(LINK)
# Triton 3.9 runs another tool for sm_90 and newer (its `ptxas_blackwell` knob).
os.environ["TRITON_PTXAS_BLACKWELL_PATH"] = str(LINK)
# A fresh cache: Triton's cache key names ptxas's version, not which ptxc build it is.
shutil.rmtree(WORK / "triton-cache", ignore_errors=True)
os.environ["TRITON_CACHE_DIR"] = str(WORK / "triton-cache")

import triton  # noqa: E402  (after TRITON_PTXAS_PATH is set)
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
from definitions import attention_fwd, histogram, matmul, matmul_dot, softmax_rows, vector_add  # noqa: E402

TARGET = GPUTarget("cuda", int(ARCH.removeprefix("sm_")), 32)


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


def bf16_bits(x):
    """The bf16 bit patterns (uint16) of f32 `x`, rounded to nearest even (finite inputs)."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    """The f32 values of bf16 bit patterns."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def dot_test(name, ty, rng):
    """`matmul_dot` on `ty` (fp16 or bf16) inputs: the tensor cores' f32 sums, rounded once."""
    m, n, kk = 96, 80, 72
    bm, bn, bk = 64, 64, 32
    a32 = rng.standard_normal((m, kk)).astype(np.float32)
    b32 = rng.standard_normal((kk, n)).astype(np.float32)
    if ty == "fp16":
        a, b = a32.astype(np.float16), b32.astype(np.float16)
        a_val, b_val, out_dtype = a.astype(np.float64), b.astype(np.float64), ("f16", m * n)
    else:
        a, b = bf16_bits(a32), bf16_bits(b32)
        a_val, b_val, out_dtype = bf16_value(a).astype(np.float64), bf16_value(b).astype(np.float64), ("u16", m * n)
    k = compile_kernel(matmul_dot, {"a_ptr": f"*{ty}", "b_ptr": f"*{ty}", "c_ptr": f"*{ty}", "M": "i32",
                                    "N": "i32", "K": "i32", "BM": "constexpr", "BN": "constexpr",
                                    "BK": "constexpr"}, {"BM": bm, "BN": bn, "BK": bk})
    out = run(name, k, [triton.cdiv(m, bm), triton.cdiv(n, bn), 1],
              ['{ ptr = "a" }', '{ ptr = "b" }', '{ ptr = "c" }', f"{{ i32 = {m} }}", f"{{ i32 = {n} }}",
               f"{{ i32 = {kk} }}"],
              {"a": a.ravel(), "b": b.ravel(), "c": out_dtype})
    got = out["c"].astype(np.float64) if ty == "fp16" else bf16_value(out["c"]).astype(np.float64)
    want = a_val @ b_val
    # One rounding of the f32 sum to the output type (2^-11 or 2^-8 relative), plus the f32 sums.
    tol = 2.0 ** -10 if ty == "fp16" else 2.0 ** -7
    np.testing.assert_allclose(got.reshape(m, n), want, rtol=tol, atol=tol * np.abs(want).max() / 16)


def test_matmul_fp16(rng):
    dot_test("matmul_fp16", "fp16", rng)


def test_matmul_bf16(rng):
    dot_test("matmul_bf16", "bf16", rng)


def test_attention(rng):
    n_ctx, d, bm, bn = 100, 64, 64, 32
    scale = float(1.0 / np.sqrt(d))
    q, kk, v = (rng.standard_normal((n_ctx, d)).astype(np.float16) for _ in range(3))
    k = compile_kernel(attention_fwd, {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16",
                                       "n_ctx": "i32", "sm_scale": "fp32", "D": "constexpr", "BM": "constexpr",
                                       "BN": "constexpr"}, {"D": d, "BM": bm, "BN": bn})
    out = run("attention", k, [triton.cdiv(n_ctx, bm), 1, 1],
              ['{ ptr = "q" }', '{ ptr = "k" }', '{ ptr = "v" }', '{ ptr = "o" }', f"{{ i32 = {n_ctx} }}",
               f"{{ f32 = {scale!r} }}"],
              {"q": q, "k": kk, "v": v, "o": ("f16", n_ctx * d)})
    s = q.astype(np.float64) @ kk.astype(np.float64).T * scale
    p = np.exp(s - s.max(axis=1, keepdims=True))
    want = (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)
    # P is rounded to fp16 before the second product (as FlashAttention does): about 2^-11
    # relative per term, and O once more at the end.
    np.testing.assert_allclose(out["o"].astype(np.float64).reshape(n_ctx, d), want, rtol=1e-2, atol=4e-3)


TESTS = {
    "vector_add": test_vector_add,
    "softmax": test_softmax,
    "matmul": test_matmul,
    "histogram": test_histogram,
    "matmul_fp16": test_matmul_fp16,
    "matmul_bf16": test_matmul_bf16,
    "attention": test_attention,
}

# What runs when no kernel is named: Turing's original four; on Ampere, Ada and Hopper also
# the tensor-core kernels (`tl.dot` on fp16 and bf16, fused attention; on Hopper Triton
# compiles for sm_90a and lowers them to `wgmma`).
DEFAULTS = {
    "sm_75": ["vector_add", "softmax", "matmul", "histogram"],
}
AMPERE = ["vector_add", "softmax", "matmul", "histogram", "matmul_fp16", "matmul_bf16", "attention"]


def main():
    from triton.backends.nvidia.compiler import get_ptxas  # noqa: PLC0415 (after the knobs are set)

    tool = get_ptxas(TARGET.arch)
    if Path(tool.path) != LINK:
        print(f"Triton picked {tool.path}, not {LINK}: is `{LINK} --version` broken?")
        return 1
    print(f"Triton {triton.__version__}, ptxas = {tool.path} (release {tool.version}), target {ARCH}")
    wanted = ARGS or DEFAULTS.get(ARCH, AMPERE)
    passed = failed = 0
    for name in wanted:
        try:
            if name not in TESTS:
                raise KeyError(f"no Triton test named {name!r}; known: {', '.join(TESTS)}")
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
