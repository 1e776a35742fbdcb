//! Integer `mma` of sub-byte elements for tensor cores without them
//! ([`LowerOptions::no_sub_byte_mma`](super::LowerOptions), Hopper): every MIR `mma_int` and
//! `mma_int_m16n8` goes through here, and the forms the target lacks are rewritten into the
//! forms it has (ptxas 13.5 does the same in its `__cuda_sm_9x_mma_sub_byte_internal_*`
//! subroutines, with more instructions).
//!
//! * 4-bit elements: each A and B register's eight nibbles become two registers of four
//!   bytes, the even-numbered nibbles and the odd-numbered ones, zero-extended (u4) or
//!   sign-extended (s4). The 8-bit m16n8k32 product pairs byte `j` of A's register `r` with
//!   byte `j` of B's register `r` in the same lanes as the 4-bit shapes pair nibble `i` of
//!   register `r`: with the even nibbles in A registers 0 and 1 (B register 0) and the odd
//!   ones in A registers 2 and 3 (B register 1), an 8-bit m16n8k32 computes exactly the sums
//!   of a 4-bit m16n8k32, only in another order of k; m16n8k64 is two of them (the even
//!   nibbles of all four A registers, then the odd ones), m8n8k32 an m16n8k32 whose rows 8..15
//!   are zero, or, without `.satfinite`, two 8-bit m8n8k16 (IMMA.8816) chained through C.
//!   `.satfinite` clamps the final sum: where two products are chained, they run from a zero
//!   C without it (their sum cannot overflow) and C is added with a saturating addition,
//!   except for u4 by u4, whose products are never negative: there each step clamps.
//! * Single bits with `.xor.popc`: `popc(a ^ b) = popc(a & !b) + popc(!a & b)`, two
//!   `.and.popc` products (BMMA.AND.POPC), the second accumulating onto the first.

use super::context::Lowerer;
use crate::ir::mma::MmaIntFlags;
use crate::ir::{Aux, Opcode, Type, Value};

/// `mma_int` flag bits (see [`Opcode::MmaInt`]): A signed, B signed, `.satfinite`, `.and.popc`.
const A_SIGNED: u64 = 1 << 8;
const B_SIGNED: u64 = 1 << 9;
const SAT: u64 = 1 << 10;
const AND: u64 = 1 << 11;

/// The even nibbles of a register (`Even`: elements 0, 2, 4, 6) or the odd ones, one per byte.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Nibbles {
    Even,
    Odd,
}

impl Lowerer<'_> {
    /// An m8n8 integer `mma` (`mma_int` with `flags`, arguments `(a, b, c0, c1)`): one
    /// `mma_int`, or, for a sub-byte form the target lacks, its expansion. Returns `(d0, d1)`.
    pub(super) fn emit_mma_int(&mut self, flags: u64, args: &[Value]) -> Vec<Value> {
        let bits = flags & 0xff;
        let native = !self.options.no_sub_byte_mma || bits == 8 || (bits == 1 && flags & AND != 0);
        match (native, args) {
            (false, &[a, b, c0, c1]) if bits == 4 => self.m8n8_nibbles(flags, a, b, [c0, c1]),
            (false, &[a, b, c0, c1]) => self.m8n8_xor(a, b, [c0, c1]),
            _ => self.emit_multi(Opcode::MmaInt, Type::I32, args, Aux::Imm(flags)),
        }
    }

    /// An m16n8 integer `mma` (`mma_int_m16n8` with `flags`, arguments A, B and C as
    /// [`MmaIntFlags::regs`] counts them): one `mma_int_m16n8`, or, for a sub-byte form the
    /// target lacks, its expansion. Returns `d0..d3`.
    pub(super) fn emit_mma_int_m16n8(&mut self, flags: MmaIntFlags, args: &[Value]) -> Vec<Value> {
        let (na, nb, nc) = flags.regs();
        let native = !self.options.no_sub_byte_mma || flags.bits == 8 || flags.and;
        if native || args.len() != na + nb + nc {
            return self.emit_multi(Opcode::MmaIntM16n8, Type::I32, args, Aux::Imm(flags.bits()));
        }
        let (a, rest) = args.split_at(na);
        let (b, c) = rest.split_at(nb);
        if flags.bits == 1 {
            return self.m16n8_xor(flags, a, b, c);
        }
        self.m16n8_nibbles(flags, a, b, c)
    }

    /// m8n8k32 of 4-bit elements: two chained 8-bit m8n8k16 products, or with `.satfinite`
    /// one 8-bit m16n8k32 whose second row block is zero.
    fn m8n8_nibbles(&mut self, flags: u64, a: Value, b: Value, c: [Value; 2]) -> Vec<Value> {
        let (a_signed, b_signed) = (flags & A_SIGNED != 0, flags & B_SIGNED != 0);
        let [a_even, a_odd] = self.nibble_pair(a, a_signed);
        let [b_even, b_odd] = self.nibble_pair(b, b_signed);
        if flags & SAT != 0 {
            let zero = self.konst(Type::I32, 0);
            let mut d = self.mma_bytes(
                (a_signed, b_signed, true),
                [a_even, zero, a_odd, zero],
                [b_even, b_odd],
                [c[0], c[1], zero, zero],
            );
            d.truncate(2);
            return d;
        }
        let bytes = 8 | (flags & (A_SIGNED | B_SIGNED));
        let d = self.emit_multi(
            Opcode::MmaInt,
            Type::I32,
            &[a_even, b_even, c[0], c[1]],
            Aux::Imm(bytes),
        );
        self.emit_multi(Opcode::MmaInt, Type::I32, &[a_odd, b_odd, d[0], d[1]], Aux::Imm(bytes))
    }

    /// m16n8k32 and m16n8k64 of 4-bit elements: one 8-bit m16n8k32 per 32 elements of a row.
    fn m16n8_nibbles(&mut self, flags: MmaIntFlags, a: &[Value], b: &[Value], c: &[Value]) -> Vec<Value> {
        let signs = (flags.a_signed, flags.b_signed);
        let a: Vec<[Value; 2]> = a.iter().map(|&r| self.nibble_pair(r, signs.0)).collect();
        let b: Vec<[Value; 2]> = b.iter().map(|&r| self.nibble_pair(r, signs.1)).collect();
        let c = [c[0], c[1], c[2], c[3]];
        if !flags.long_k {
            // m16n8k32: the even nibbles of both A registers, then the odd ones.
            let (a, b) = ([a[0][0], a[1][0], a[0][1], a[1][1]], [b[0][0], b[0][1]]);
            return self.mma_bytes((signs.0, signs.1, flags.sat), a, b, c);
        }
        let half = |n: usize| ([a[0][n], a[1][n], a[2][n], a[3][n]], [b[0][n], b[1][n]]);
        let ((a_even, b_even), (a_odd, b_odd)) = (half(0), half(1));
        // Unsigned products are never negative: a sum clamped at the top stays there, so
        // clamping each step clamps the total.
        let chain_sat = flags.sat && !signs.0 && !signs.1;
        if !flags.sat || chain_sat {
            let d = self.mma_bytes((signs.0, signs.1, chain_sat), a_even, b_even, c);
            let d = [d[0], d[1], d[2], d[3]];
            return self.mma_bytes((signs.0, signs.1, chain_sat), a_odd, b_odd, d);
        }
        let zero = self.konst(Type::I32, 0);
        let d = self.mma_bytes((signs.0, signs.1, false), a_even, b_even, [zero; 4]);
        let d = self.mma_bytes((signs.0, signs.1, false), a_odd, b_odd, [d[0], d[1], d[2], d[3]]);
        c.iter()
            .zip(d)
            .map(|(&c, d)| self.emit(Opcode::IaddSatS, Type::I32, &[c, d], Aux::None))
            .collect()
    }

    /// One 8-bit m16n8k32 `mma_int_m16n8` (`signs`: A signed, B signed, `.satfinite`).
    fn mma_bytes(&mut self, signs: (bool, bool, bool), a: [Value; 4], b: [Value; 2], c: [Value; 4]) -> Vec<Value> {
        let flags = MmaIntFlags {
            a_signed: signs.0,
            b_signed: signs.1,
            sat: signs.2,
            long_k: true,
            bits: 8,
            and: false,
        };
        let mut args = a.to_vec();
        args.extend(b);
        args.extend(c);
        self.emit_multi(Opcode::MmaIntM16n8, Type::I32, &args, Aux::Imm(flags.bits()))
    }

    /// The even and the odd nibbles of `r`, one per byte, sign-extended if `signed`.
    fn nibble_pair(&mut self, r: Value, signed: bool) -> [Value; 2] {
        [Nibbles::Even, Nibbles::Odd].map(|n| self.nibbles(r, n, signed))
    }

    /// Nibbles `n` of `r` as four bytes: `(r >> s) & 0x0f0f0f0f` (`s` 0 or 4), and for signed
    /// elements each byte's sign bit 3 repeated into bits 7..4 (`+ (x & 0x08080808) * 0x1e`,
    /// which carries into no other byte).
    fn nibbles(&mut self, r: Value, n: Nibbles, signed: bool) -> Value {
        let shifted = if n == Nibbles::Odd {
            let four = self.konst(Type::I32, 4);
            self.emit(Opcode::ShrU, Type::I32, &[r, four], Aux::None)
        } else {
            r
        };
        let low = self.konst(Type::I32, 0x0f0f_0f0f);
        let bytes = self.emit(Opcode::And, Type::I32, &[shifted, low], Aux::None);
        if !signed {
            return bytes;
        }
        let sign_bits = self.konst(Type::I32, 0x0808_0808);
        let signs = self.emit(Opcode::And, Type::I32, &[shifted, sign_bits], Aux::None);
        let spread = self.konst(Type::I32, 0x1e);
        self.emit(Opcode::Imad, Type::I32, &[signs, spread, bytes], Aux::None)
    }

    /// m8n8k128 with `.xor.popc`: `.and.popc` of `(a, !b)` onto C, then of `(!a, b)`.
    fn m8n8_xor(&mut self, a: Value, b: Value, c: [Value; 2]) -> Vec<Value> {
        let not_a = self.emit(Opcode::Not, Type::I32, &[a], Aux::None);
        let not_b = self.emit(Opcode::Not, Type::I32, &[b], Aux::None);
        let and = Aux::Imm(1 | AND);
        let d = self.emit_multi(Opcode::MmaInt, Type::I32, &[a, not_b, c[0], c[1]], and.clone());
        self.emit_multi(Opcode::MmaInt, Type::I32, &[not_a, b, d[0], d[1]], and)
    }

    /// m16n8k128 and m16n8k256 with `.xor.popc`: as [`Lowerer::m8n8_xor`].
    fn m16n8_xor(&mut self, flags: MmaIntFlags, a: &[Value], b: &[Value], c: &[Value]) -> Vec<Value> {
        let and = MmaIntFlags { and: true, ..flags };
        let not = |s: &mut Self, v: &[Value]| -> Vec<Value> {
            v.iter()
                .map(|&x| s.emit(Opcode::Not, Type::I32, &[x], Aux::None))
                .collect()
        };
        let (not_a, not_b) = (not(self, a), not(self, b));
        let step = |s: &mut Self, a: &[Value], b: &[Value], c: &[Value]| {
            let args: Vec<Value> = a.iter().chain(b).chain(c).copied().collect();
            s.emit_multi(Opcode::MmaIntM16n8, Type::I32, &args, Aux::Imm(and.bits()))
        };
        let d = step(self, a, &not_b, c);
        step(self, &not_a, b, &d)
    }
}
