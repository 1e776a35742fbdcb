//! Malformed inputs: each gives exactly the expected first diagnostic, at the expected line and
//! column (1-based).

/// The kernel every `Kernel` case's body goes into; the body starts on line 11.
const KERNEL_HEAD: &str = ".version 7.8
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
.reg .b16 %rs<4>;
.reg .b32 %r<4>;
.reg .b64 %rd<4>;
.reg .f32 %f<4>;
.reg .pred %p<4>;
";

enum Src {
    /// Lines placed in a kernel body starting at line 11.
    Kernel(&'static str),
    /// A whole file.
    Whole(&'static str),
}

use Src::*;

/// (source, message, line, column)
const CASES: &[(Src, &str, u32, u32)] = &[
    (Kernel("frob.u32 %r1, %r2;"), "unknown instruction `frob`", 11, 1),
    (
        Kernel("add.wat.u32 %r1, %r2, 1;"),
        "unknown modifier `.wat` on `add`",
        11,
        5,
    ),
    (
        Kernel("add.wide.u32 %r1, %r2, 1;"),
        "`add` does not take `.wide`",
        11,
        5,
    ),
    (
        Kernel("add %r1, %r2, 1;"),
        "`add` needs a type suffix (e.g. `.s16`)",
        11,
        1,
    ),
    (
        Kernel("add.s32.s32 %r1, %r2, 1;"),
        "`add` takes 1 type suffix, found 2",
        11,
        9,
    ),
    (
        Kernel("and.f32 %f1, %f2, %f3;"),
        "`.f32` is not a valid type for `and`",
        11,
        5,
    ),
    (
        Kernel("ld.global.global.u32 %r1, [%rd1];"),
        "`.global` written twice",
        11,
        11,
    ),
    (
        Kernel("ld.global.shared.u32 %r1, [%rd1];"),
        "`.shared` conflicts with the state space written before",
        11,
        11,
    ),
    (
        Kernel("setp.s32 %p1, %r1, %r2;"),
        "`setp` needs a comparison (e.g. `.lt`)",
        11,
        1,
    ),
    (Kernel("add.s32 %r1, %r2;"), "`add` takes 3 operands, found 2", 11, 1),
    (
        Kernel("add.s32 %r1, %f1, 1;"),
        "`%f1` is `.f32`, which does not fit a `.s32` operand of `add`",
        11,
        14,
    ),
    (Kernel("mov.u32 %r1, %r9;"), "undeclared identifier `%r9`", 11, 14),
    (Kernel("bra L_missing;"), "undeclared identifier `L_missing`", 11, 5),
    (
        Kernel("cp.async.ca.shared.global [%r1], [%rd1], 16;"),
        "`cp.async` needs sm_80 (target is sm_75)",
        11,
        1,
    ),
    (
        Whole(".version 8.6\n.target sm_100\n.address_size 64\n"),
        "`.target sm_100` is not supported: ptxc compiles for sm_90a, sm_90 and older targets",
        2,
        9,
    ),
    (
        Whole(".version 7.8\n.target sm_90a\n.address_size 64\n"),
        "PTX .version 7.8 does not support .target sm_90a (it needs .version 8.0 or later)",
        2,
        9,
    ),
    (
        Whole(
            ".version 7.8\n.target sm_86\n.address_size 64\n.visible .entry k()\n{\n.reg .b16 %rs<4>;\nadd.rn.bf16 %rs1, %rs2, %rs3;\nret;\n}\n",
        ),
        "`add.bf16` needs sm_90 (target is sm_86)",
        7,
        1,
    ),
    (
        Whole(
            ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\ncp.async.ca.shared [0], [0], 4;\nret;\n}\n",
        ),
        "`cp.async` copies `.shared.global` (write `.shared` or `.shared::cta`, then `.global`)",
        6,
        1,
    ),
    (
        Whole(
            ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nmbarrier.init.global.b64 [0], 1;\nret;\n}\n",
        ),
        "`mbarrier` does not take `.global`",
        6,
        15,
    ),
    (
        Whole(
            ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\ncreatepolicy.fractional.global.L2::evict_last.b64 %rd1, 1.0;\nret;\n}\n",
        ),
        "`createpolicy.fractional` takes no state space (`.global` is for `.range`)",
        6,
        1,
    ),
    (
        Whole(
            ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\ncreatepolicy.range.fractional.L2::evict_last.b64 %rd1, [%rd2], 1, 2;\nret;\n}\n",
        ),
        "`createpolicy` takes only one of `.fractional` or `.range`",
        6,
        1,
    ),
    (
        Whole(
            ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\ncreatepolicy.range.b64 %rd1, [%rd2], 1, 2;\nret;\n}\n",
        ),
        "`createpolicy.range` needs a primary priority (e.g. `.L2::evict_last`)",
        6,
        1,
    ),
    (
        Whole(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n.shared .b64 bar;\nbarrier.cluster.arrive;\nret;\n}\n",
        ),
        "`barrier.cluster` needs sm_90 (target is sm_80)",
        10,
        1,
    ),
    (
        Whole(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n.shared .b64 bar;\nmov.u32 %r1, %cluster_ctarank;\nret;\n}\n",
        ),
        "`%cluster_ctarank` needs sm_90 (target is sm_80)",
        10,
        14,
    ),
    (
        Whole(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n.shared .b64 bar;\nmov.u32 %r1, %clusterid.y;\nret;\n}\n",
        ),
        "`%clusterid.y` needs sm_90 (target is sm_80)",
        10,
        14,
    ),
    (
        Whole(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n.shared .b64 bar;\nld.shared::cluster.u32 %r1, [%r2];\nret;\n}\n",
        ),
        "`ld.shared::cluster` needs sm_90 (target is sm_80)",
        10,
        1,
    ),
    (
        Whole(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n.shared .b64 bar;\nmapa.shared::cluster.u32 %r1, %r2, 1;\nret;\n}\n",
        ),
        "`mapa.shared::cluster` needs sm_90 (target is sm_80)",
        10,
        1,
    ),
    (
        Whole(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n.shared .b64 bar;\nbarrier.cluster.wait.release;\nret;\n}\n",
        ),
        "`barrier.cluster.arrive` takes `.release` or `.relaxed`, `barrier.cluster.wait` `.acquire`",
        10,
        1,
    ),
    (
        Whole(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n.shared .b64 bar;\nbarrier.cluster.sync;\nret;\n}\n",
        ),
        "`barrier.cluster` is `.arrive` or `.wait`",
        10,
        1,
    ),
    (
        Whole(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n.shared .b64 bar;\nmbarrier.arrive.release.cluster.shared::cluster.b64 %rd1, [%r1];\nret;\n}\n",
        ),
        "an arrival on a `.shared::cluster` barrier returns no state: its destination is `_`",
        10,
        1,
    ),
    (
        Whole(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n.shared .b64 bar;\nmbarrier.init.shared::cluster.b64 [%r1], 1;\nret;\n}\n",
        ),
        "`mbarrier.init` takes a `.shared::cta` barrier, not a `.shared::cluster` one",
        10,
        1,
    ),
    (
        Whole(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n.shared .b64 bar;\nmapa.global.u64 %rd1, %rd2, 1;\nret;\n}\n",
        ),
        "`mapa` does not take `.global`",
        10,
        6,
    ),
    (
        Whole(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n.shared .b64 bar;\nfence.mbarrier_init.release.gpu;\nret;\n}\n",
        ),
        "write `fence.mbarrier_init.release.cluster`",
        10,
        1,
    ),
    (
        Kernel("cvt.rn.bf16.f32 %rs1, %f1;"),
        "`.bf16` needs sm_80 (target is sm_75)",
        11,
        8,
    ),
    (
        Kernel("min.f16 %rs1, %rs2, %rs3;"),
        "`min.f16 or max.f16` needs sm_80 (target is sm_75)",
        11,
        1,
    ),
    (
        Kernel("cvt.s32.f32 %r1, %f1;"),
        "`cvt.s32.f32` (float to integer) needs `.rni`, `.rzi`, `.rmi` or `.rpi`",
        11,
        1,
    ),
    (
        Kernel("cvt.f32.s32 %f1, %r1;"),
        "`cvt.f32.s32` (integer to float) needs `.rn`, `.rz`, `.rm` or `.rp`",
        11,
        1,
    ),
    (
        Kernel("mul.s32 %r1, %r2, %r3;"),
        "`mul` on integers needs `.lo`, `.hi` or `.wide`",
        11,
        1,
    ),
    (
        Kernel("mul.wide.s64 %rd1, %rd2, %rd3;"),
        "`mul.wide` takes 16- or 32-bit sources",
        11,
        1,
    ),
    (
        Kernel("div.f32 %f1, %f2, %f3;"),
        "`div.f32` needs exactly one of `.approx`, `.full`, `.rn`, `.rz`, `.rm`, `.rp`",
        11,
        1,
    ),
    (
        Kernel("add.s32 %r1, %r2, 1\nret;"),
        "unexpected `ret`, expected `,` or `;`",
        12,
        1,
    ),
    (Kernel("/* never closed\nret;"), "unterminated block comment", 11, 1),
    (Kernel("add.s32 %r1, %r2, #;"), "unexpected character `#`", 11, 19),
    (
        Kernel("mov.u64 %rd1, 99999999999999999999999;"),
        "integer literal `99999999999999999999999` does not fit in 64 bits",
        11,
        15,
    ),
    (Kernel("mov.u32 %r1, 09;"), "malformed integer literal `09`", 11, 14),
    (Kernel("L1:\nL1:"), "label `L1` is defined twice", 12, 1),
    (
        Kernel(".reg .b32 %r1;"),
        "`%r1` is declared twice in the same scope",
        11,
        11,
    ),
    (
        Whole(".version 7.8\n.target sm_75\n.address_size 64\n.visible .entry (.param .b32 r) k()\n{\nret;\n}\n"),
        "a kernel (`.entry`) cannot have return values",
        4,
        10,
    ),
    (
        Whole(".target sm_75\n.address_size 64\n"),
        "unexpected `.target`, expected `.version`",
        1,
        1,
    ),
    (Whole(""), "unexpected end of input, expected `.version`", 1, 1),
    (
        Kernel("@%r1 bra L;\nL:"),
        "guard `%r1` is not a `.pred` register",
        11,
        2,
    ),
    (
        Kernel("ld.global.v2.u32 {%r1, %r2, %r3}, [%rd1];"),
        "`ld` expects a vector of 2 here, found 3",
        11,
        18,
    ),
    (
        Kernel("ld.global.u32 {%r1, %r2}, [%rd1];"),
        "a vector operand of `ld` needs `.v2`",
        11,
        15,
    ),
    (
        Whole(
            ".version 7.8\n.target sm_75\n.address_size 64\n.shared .u32 s;\n.visible .entry k()\n{\n.reg .b32 %r1;\nld.global.u32 %r1, [s];\nret;\n}\n",
        ),
        "`s` is in `.shared`, not `.global`",
        8,
        21,
    ),
    (
        Whole(
            ".version 7.8\n.target sm_75\n.address_size 64\n.func f(.param .b32 a)\n{\nret;\n}\n.visible .entry k()\n{\ncall f;\nret;\n}\n",
        ),
        "`f` takes 1 argument, found 0",
        10,
        6,
    ),
    (Kernel("shfl.up.b32 %r1, %r2, 1, 0;"), "`shfl` needs `.sync`", 11, 1),
    (Kernel("vote.all.pred %p1, %p2;"), "`vote` needs `.sync`", 11, 1),
    (
        Kernel("mov.u32 %tid.x, %r1;"),
        "special register `%tid.x` is read-only",
        11,
        9,
    ),
    (
        Kernel("ld.nc.u32 %r1, [%rd1];"),
        "`ld.nc` reads the `.global` space only",
        11,
        1,
    ),
    (
        Kernel("add.s32 %r1, %r2, 1.5;"),
        "floating-point constant for a `.s32` operand",
        11,
        19,
    ),
    (
        Kernel("st.const.u32 [%rd1], %r1;"),
        "`st` does not take `.const`",
        11,
        4,
    ),
    (
        Kernel("atom.global.inc.s32 %r1, [%rd1], 1;"),
        "this atomic operation does not take `.s32`",
        11,
        1,
    ),
    (
        Kernel("bar.red.popc.pred %p1, 0, %p2;"),
        "`bar.red` is `.popc.u32`, `.and.pred` or `.or.pred`",
        11,
        1,
    ),
    (
        Kernel("setp.lo.f32 %p1, %f1, %f2;"),
        "`.lo`, `.ls`, `.hi` and `.hs` compare unsigned integers",
        11,
        1,
    ),
    (
        Whole(".version 7.8\n.target sm_75\n.address_size 64\n.global .u32 a[2] = {1, 2, 3};\n"),
        "too many initialisers for `a` (3 for 2 elements)",
        4,
        14,
    ),
    (
        Whole(".version 7.8\n.target sm_75\n.address_size 64\n.reg .u32 r;\n"),
        "`.reg` variables cannot be declared at module scope",
        4,
        1,
    ),
    (
        Whole(".version 7.8\n.target sm_75\n.address_size 64\n.func f()\n{\nret;\n}\n.func f()\n{\nret;\n}\n"),
        "function `f` is defined twice",
        8,
        7,
    ),
    (
        Kernel("{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{"),
        "nesting deeper than 64 levels",
        11,
        64,
    ),
    (
        Kernel("ld.global.u32 %r1, [%rd1 * 2];"),
        "an address must be `[name]`, `[name+offset]` or `[constant]`",
        11,
        21,
    ),
    (
        Kernel("mov.b32 %r1, \"text\";"),
        "unexpected `\"text\"`, expected an operand",
        11,
        14,
    ),
    (
        Kernel("ldmatrix.sync.aligned.x2.shared.b16 {%r1, %r2}, [%r3];"),
        "`ldmatrix` needs `.m8n8`",
        11,
        1,
    ),
    (
        Kernel("redux.sync.add.s32 %r1, %r2, -1;"),
        "`redux.sync` needs sm_80 (target is sm_75)",
        11,
        1,
    ),
    (
        Kernel("wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1, %r2}, [%rd1];"),
        "`wmma` expects a vector of 8 here, found 2",
        11,
        44,
    ),
    (
        Kernel("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f32 {%r1, %r2}, {%r1, %r2}, {%r3}, {%r1, %r2, %r3, %r0};"),
        "`mma.m16n8k8` does not take these layouts and types (f16.f16.f16.f32)",
        11,
        1,
    ),
    (
        Kernel(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%r1, %r2, %r3, %r0}, {%r1, %r2, %r3, %r0}, {%r1, %r2}, {%r1, %r2, %r3, %r0};",
        ),
        "`mma.m16n8k16.f32.bf16.bf16.f32` needs sm_80 (target is sm_75)",
        11,
        1,
    ),
    (
        Whole(
            ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\nmma.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%r0, %r1, %r2, %r3}, {%r0, %r1, %r2, %r3}, {%r0, %r1}, {%r0, %r1, %r2, %r3};\nret;\n}\n",
        ),
        "`mma.m16n8k16` does not take these layouts and types (f32.tf32.tf32.f32)",
        7,
        1,
    ),
    (
        Whole(
            ".version 7.8\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n.reg .f64 %fd<8>;\nmma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6};\nret;\n}\n",
        ),
        "`mma.m8n8k4.f64.f64.f64.f64` needs sm_80 (target is sm_75)",
        7,
        1,
    ),
    (
        Whole(
            ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .f64 %fd<8>;\nmma.sync.aligned.m8n8k4.col.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6};\nret;\n}\n",
        ),
        "`mma.m8n8k4` does not take these layouts and types (f64.f64.f64.f64)",
        7,
        1,
    ),
    (
        Whole(
            ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .f64 %fd<8>;\nmma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5};\nret;\n}\n",
        ),
        "`mma` expects a vector of 2 here, found 1",
        7,
        79,
    ),
    (
        Whole(
            ".version 7.8\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\nmma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%r0, %r1, %r2, %r3}, {%r0, %r1}, {%r0}, {%r0, %r1, %r2, %r3};\nret;\n}\n",
        ),
        "`mma.m16n8k4.f32.tf32.tf32.f32` needs sm_80 (target is sm_75)",
        7,
        1,
    ),
    (
        Whole(
            ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<8>;\nmma.sync.aligned.m16n8k64.row.row.s32.s4.u4.s32 {%r0, %r1, %r2, %r3}, {%r0, %r1, %r2, %r3}, {%r2, %r3}, {%r0, %r1, %r2, %r3};\nret;\n}\n",
        ),
        "`mma.m16n8k64` does not take these layouts and types (s32.s4.u4.s32)",
        7,
        1,
    ),
    (
        Kernel("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc {%r1, %r2}, {%r1}, {%r3}, {%r1, %r2};"),
        "`mma.and.popc` needs sm_80 (target is sm_75)",
        11,
        1,
    ),
    (
        Kernel("fma.f32 %f1, %f2, %f3, %f0;"),
        "`fma` needs a rounding modifier (`.rn`, `.rz`, `.rm` or `.rp`)",
        11,
        1,
    ),
    (Kernel("sin.f32 %f1, %f2;"), "`sin` needs `.approx`", 11, 1),
    (
        Kernel("@%p1 bra.uni L;\nadd.u32 %r1, %r2, %rd1;\nL:"),
        "`%rd1` is `.b64`, which does not fit a `.u32` operand of `add`",
        12,
        19,
    ),
    (
        Kernel("ld.param.u64 %rd1, [p];\nst.global.u32 [%f1], %r1;"),
        "`%f1` cannot hold an address (it is `.f32`)",
        12,
        16,
    ),
];

fn source(src: &Src) -> String {
    match src {
        Kernel(body) => format!("{KERNEL_HEAD}{body}\nret;\n}}\n"),
        Whole(text) => text.to_string(),
    }
}

#[test]
fn malformed_inputs_give_exact_diagnostics() {
    assert!(CASES.len() >= 30);
    let mut failures = Vec::new();
    for (i, (src, message, line, col)) in CASES.iter().enumerate() {
        let text = source(src);
        match ptxc_frontend::parse_and_check(&text) {
            Ok(_) => failures.push(format!("case {i}: accepted, expected `{message}`")),
            Err(diags) => {
                let d = &diags[0];
                let got = (d.message.as_str(), d.line_col(&text));
                if got != (*message, (*line, *col)) {
                    failures.push(format!("case {i}: got {got:?}, expected {:?}", (message, (line, col))));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
