//! Warp matrix multiply-accumulate of the integer shapes ([`crate::ir::Opcode::MmaInt`]):
//! exact products and sums, wrapped to 32 bits or saturated (`.satfinite`).

/// One lane's `(d0, d1)` of `mma_int` with `flags` (see the opcode), given the A and B words
/// of every lane (`None` for lanes that do not take part) and this lane's C.
pub fn mma_int(flags: u64, lane: u32, ab: &dyn Fn(u32) -> Option<(u64, u64)>, c: [u64; 2]) -> Result<[u64; 2], String> {
    let bits = (flags & 0xff) as u32;
    let (a_signed, b_signed, sat) = (flags >> 8 & 1 == 1, flags >> 9 & 1 == 1, flags >> 10 & 1 == 1);
    let word = |l: u32| ab(l).ok_or_else(|| format!("lane {l} does not take part in mma"));
    let (g, t) = (lane / 4, lane % 4);
    let mut out = [0u64; 2];
    for (i, o) in out.iter_mut().enumerate() {
        let n = 2 * t + i as u32;
        let mut sum = c[i] as u32 as i32 as i64;
        for w in 0..4 {
            let a = word(4 * g + w)?.0 as u32;
            let b = word(4 * n + w)?.1 as u32;
            sum += if bits == 1 {
                (a ^ b).count_ones() as i64
            } else {
                (0..32 / bits)
                    .map(|e| element(a, e, bits, a_signed) * element(b, e, bits, b_signed))
                    .sum::<i64>()
            };
        }
        *o = if sat {
            sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32 as u64
        } else {
            sum as i32 as u32 as u64
        };
    }
    Ok(out)
}

/// Element `e` of `bits` bits of `word`, sign-extended if `signed`.
fn element(word: u32, e: u32, bits: u32, signed: bool) -> i64 {
    let raw = (word >> (e * bits)) & ((1 << bits) - 1);
    if signed && raw >> (bits - 1) == 1 {
        raw as i64 - (1i64 << bits)
    } else {
        raw as i64
    }
}

/// One lane's D registers of `mma_f16` (m16n8k8): `regs(l)` are lane `l`'s `(a0, a1, b)`
/// (`None` for lanes that do not take part), `c` this lane's C registers.
pub fn mma_f16(f32: bool, lane: u32, regs: &dyn Fn(u32) -> Option<[u64; 3]>, c: &[u64]) -> Result<Vec<u64>, String> {
    use ptxc_softfloat::{F16, F32};
    let acc = if f32 { F32 } else { F16 };
    let reg = |l: u32| regs(l).ok_or_else(|| format!("lane {l} does not take part in mma"));
    let half = |v: u64, i: u32| v >> (16 * (i & 1)) & 0xffff;
    let (g, t) = (lane / 4, lane % 4);
    let mut out = vec![0u64; if f32 { 4 } else { 2 }];
    for j in 0..4u32 {
        let (row, col) = (g + 8 * (j / 2), 2 * t + j % 2);
        let mut av = [0u64; 8];
        let mut bv = [0u64; 8];
        for k in 0..8u32 {
            av[k as usize] = half(reg(4 * (row % 8) + k / 2)?[(row / 8) as usize], k);
            bv[k as usize] = half(reg(4 * col + k / 2)?[2], k);
        }
        let cv = if f32 {
            c[j as usize]
        } else {
            half(c[(j / 2) as usize], j)
        };
        let r = ptxc_softfloat::tensor::hmma_dot(&av, &bv, cv, acc);
        if f32 {
            out[j as usize] = r;
        } else {
            out[(j / 2) as usize] |= r << (16 * (j % 2));
        }
    }
    Ok(out)
}
