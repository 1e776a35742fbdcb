//! `mma.m8n8k4` of f16 for tensor cores without HMMA.884
//! ([`LowerOptions::no_hmma_884`](super::LowerOptions), sm_80 on), computed as ptxas 13.5
//! computes it there (its SASS for `tests/hopper/mma_m8n8k4.ptx` on sm_80 and sm_90): each
//! lane fetches the A rows and B columns of its D elements from the lanes of its quad-pair
//! with `shfl.idx`, widens the halves to f32 and computes in f32, rounding to nearest, in
//! ptxas's order, so that D has the bits ptxas's code gives:
//!
//! * f32 D: `d = c + fma(a3, b3, fma(a2, b2, fma(a1, b1, fma(a0, b0, +0))))`, an f16 C
//!   widened first;
//! * f16 D: `d = f16((c + fma(a1, b1, a0 * b0)) + fma(a3, b3, a2 * b2))`.
//!
//! The product of two f16 values is exact in f32; the sums are rounded. The PTX ISA leaves
//! the order and rounding of the accumulation unspecified; sm_70's and sm_75's HMMA.884
//! rounds otherwise (`ptxc_softfloat::tensor::hmma_dot`).
//!
//! The fragments (PTX ISA, "Matrix Fragments for mma.m8n8k4 with .f16 floating point
//! type"): quad-pair `q` is lanes `4q..4q+3` (rows or columns 0..3 of its matrices) and
//! `16+4q..16+4q+3` (4..7). A row-major A lane holds row `lane % 4` (+4 above lane 15), a
//! column-major one column `lane % 4` of rows 0..3 (4..7); B likewise by columns or rows;
//! an f16 C or D lane holds its row's eight halves, an f32 one the elements at row
//! `(lane & 1) + (i & 2)` (+4), column `(i & 4) + (lane & 2) + (i & 1)`.

use super::context::Lowerer;
use super::wmma::float_convert;
use crate::ir::{Aux, Cond, FloatMode, Opcode, Rounding, Type, Value};
use ptxc_frontend::checked::SpecialReg;
use rustc_hash::FxHashMap;

/// A choice of register or half: `base`, plus one in lanes with bit `bit` of the lane id set
/// (`bit` 0: in no lane).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Pick {
    base: u32,
    bit: u32,
}

/// The same choice in every lane.
const fn fixed(base: u32) -> Pick {
    Pick { base, bit: 0 }
}

/// `base`, or `base + 1` in lanes with `bit` set.
const fn by_lane(base: u32, bit: u32) -> Pick {
    Pick { base, bit }
}

/// Where one f16 element of a lane's computation is: half `half` of argument register `reg`
/// (A 0..1, B 2..3, C from 4) of lane `(laneid & mask) | add`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Place {
    mask: u32,
    add: u32,
    reg: Pick,
    half: Pick,
}

impl Place {
    /// An element of the lane's own registers.
    const fn own(reg: Pick, half: Pick) -> Place {
        Place {
            mask: 0x1f,
            add: 0,
            reg,
            half,
        }
    }

    /// Whether the element is in the lane itself.
    fn is_own(self) -> bool {
        self.mask == 0x1f && self.add == 0
    }
}

/// The flags of one `mma_884` (see [`Opcode::Mma884`]).
#[derive(Clone, Copy, Debug)]
struct Layout {
    d32: bool,
    c32: bool,
    a_col: bool,
    b_col: bool,
}

impl Layout {
    fn from_flags(flags: u64) -> Layout {
        Layout {
            d32: flags & 1 == 1,
            c32: flags >> 1 & 1 == 1,
            a_col: flags >> 2 & 1 == 1,
            b_col: flags >> 3 & 1 == 1,
        }
    }

    /// A (row, k) for the lane's D element `e`: the row is `lane % 4` (+4) for an f16 D,
    /// `(lane & 1) + (e & 2)` (+4) for an f32 one.
    fn a(self, e: u32, k: u32) -> Place {
        match (self.a_col, self.d32) {
            (false, false) => Place::own(fixed(k / 2), fixed(k % 2)),
            (false, true) => Place {
                mask: 0x1d,
                add: e & 2,
                reg: fixed(k / 2),
                half: fixed(k % 2),
            },
            // Column k of the lane's half: element `row % 4` of lane `4q + k` (+16).
            (true, false) => Place {
                mask: 0x1c,
                add: k,
                reg: by_lane(0, 2),
                half: by_lane(0, 1),
            },
            (true, true) => Place {
                mask: 0x1c,
                add: k,
                reg: fixed(e >> 1 & 1),
                half: by_lane(0, 1),
            },
        }
    }

    /// B (k, column) for the lane's D element `e`: the column is `e` for an f16 D,
    /// `(e & 4) + (lane & 2) + (e & 1)` for an f32 one.
    fn b(self, e: u32, k: u32) -> Place {
        let upper = 16 * (e >> 2 & 1);
        match (self.b_col, self.d32) {
            (true, false) => Place {
                mask: 0xc,
                add: (e & 3) | upper,
                reg: fixed(2 + k / 2),
                half: fixed(k % 2),
            },
            (true, true) => Place {
                mask: 0xe,
                add: (e & 1) | upper,
                reg: fixed(2 + k / 2),
                half: fixed(k % 2),
            },
            // Row k: element `column % 4` of lane `4q + k` (+16 for columns 4..7).
            (false, false) => Place {
                mask: 0xc,
                add: k | upper,
                reg: fixed(2 + (e & 3) / 2),
                half: fixed(e & 1),
            },
            (false, true) => Place {
                mask: 0xc,
                add: k | upper,
                reg: by_lane(2, 2),
                half: fixed(e & 1),
            },
        }
    }

    /// An f16 C's element at the position of the lane's D element `e`.
    fn c_half(self, e: u32) -> Place {
        if self.d32 {
            // Row `(lane & 1) + (e & 2)` of the half-warp, column `(e & 4) + (lane & 2) + (e & 1)`.
            Place {
                mask: 0x1d,
                add: e & 2,
                reg: by_lane(4 + 2 * (e >> 2 & 1), 2),
                half: fixed(e & 1),
            }
        } else {
            Place::own(fixed(4 + e / 2), fixed(e % 2))
        }
    }
}

/// The values of one expansion: the lane's registers and what was fetched from others.
struct Gather {
    /// `%laneid`.
    lane: Value,
    /// The `mma`'s argument registers: A 0..1, B 2..3, C from 4.
    regs: Vec<Value>,
    /// Source lanes by (mask, add).
    lanes: FxHashMap<(u32, u32), Value>,
    /// Lane-id bit tests by bit.
    bits: FxHashMap<u32, Value>,
    /// Shuffled registers by (mask, add, register).
    words: FxHashMap<(u32, u32, u32), Value>,
    /// Elements widened to f32 by place.
    elements: FxHashMap<Place, Value>,
}

/// Round-to-nearest float arithmetic, not contracted.
fn nearest() -> Aux {
    Aux::Float(FloatMode {
        rnd: Some(Rounding::Rn),
        ..FloatMode::default()
    })
}

impl Lowerer<'_> {
    /// An `mma.m8n8k4` of f16 (`mma_884` with `flags`, arguments `(a0, a1, b0, b1, c...)`):
    /// one `mma_884`, or on a target without HMMA.884 its expansion. Returns D's registers.
    pub(super) fn emit_mma_884(&mut self, flags: u64, args: &[Value]) -> Vec<Value> {
        let layout = Layout::from_flags(flags);
        let c_regs = if layout.c32 { 8 } else { 4 };
        if !self.options.no_hmma_884 || args.len() != 4 + c_regs {
            return self.emit_multi(Opcode::Mma884, Type::I32, args, Aux::Imm(flags));
        }
        let lane = self.special(SpecialReg::LaneId);
        let mut g = Gather {
            lane,
            regs: args.to_vec(),
            lanes: FxHashMap::default(),
            bits: FxHashMap::default(),
            words: FxHashMap::default(),
            elements: FxHashMap::default(),
        };
        let d: Vec<Value> = (0..8).map(|e| self.m8n8k4_element(&mut g, layout, e)).collect();
        if layout.d32 {
            return d
                .iter()
                .map(|&v| self.emit(Opcode::Bitcast, Type::I32, &[v], Aux::None))
                .collect();
        }
        d.chunks(2).map(|p| self.pack_halves(p[0], p[1])).collect()
    }

    /// The lane's D element `e` in f32 (an f16 D not yet rounded to f16).
    fn m8n8k4_element(&mut self, g: &mut Gather, layout: Layout, e: u32) -> Value {
        let a: [Value; 4] = std::array::from_fn(|k| self.element(g, layout.a(e, k as u32)));
        let b: [Value; 4] = std::array::from_fn(|k| self.element(g, layout.b(e, k as u32)));
        let c = if layout.c32 {
            self.emit(Opcode::Bitcast, Type::F32, &[g.regs[4 + e as usize]], Aux::None)
        } else {
            self.element(g, layout.c_half(e))
        };
        let fma = |s: &mut Self, k: usize, acc: Value| s.emit(Opcode::Ffma, Type::F32, &[a[k], b[k], acc], nearest());
        if layout.d32 {
            let mut sum = self.konst(Type::F32, 0);
            for k in 0..4 {
                sum = fma(self, k, sum);
            }
            return self.emit(Opcode::Fadd, Type::F32, &[c, sum], nearest());
        }
        let p0 = self.emit(Opcode::Fmul, Type::F32, &[a[0], b[0]], nearest());
        let p01 = fma(self, 1, p0);
        let p2 = self.emit(Opcode::Fmul, Type::F32, &[a[2], b[2]], nearest());
        let p23 = fma(self, 3, p2);
        let sum = self.emit(Opcode::Fadd, Type::F32, &[c, p01], nearest());
        self.emit(Opcode::Fadd, Type::F32, &[sum, p23], nearest())
    }

    /// The f16 element at `p`, widened to f32.
    fn element(&mut self, g: &mut Gather, p: Place) -> Value {
        if let Some(&v) = g.elements.get(&p) {
            return v;
        }
        let word = self.picked_word(g, p);
        let half = match p.half.bit {
            0 => self.extract_bits(word, 16 * p.half.base, 16),
            bit => {
                let high = self.extract_bits(word, 16, 16);
                let low = self.extract_bits(word, 0, 16);
                let set = self.lane_bit(g, bit);
                self.emit(Opcode::Select, Type::I16, &[set, high, low], Aux::None)
            }
        };
        let h = self.emit(Opcode::Bitcast, Type::F16, &[half], Aux::None);
        let v = self.emit(
            Opcode::Convert,
            Type::F32,
            &[h],
            Aux::Convert(float_convert(Type::F16, None)),
        );
        g.elements.insert(p, v);
        v
    }

    /// The register holding `p`'s element in this lane: the one picked, fetched from the
    /// lane that holds it.
    fn picked_word(&mut self, g: &mut Gather, p: Place) -> Value {
        match p.reg.bit {
            0 => self.fetched_word(g, p, p.reg.base),
            bit => {
                let other = self.fetched_word(g, p, p.reg.base + 1);
                let base = self.fetched_word(g, p, p.reg.base);
                let set = self.lane_bit(g, bit);
                self.emit(Opcode::Select, Type::I32, &[set, other, base], Aux::None)
            }
        }
    }

    /// Argument register `reg` of lane `(laneid & p.mask) | p.add` (`shfl.sync.idx`, one per
    /// lane and register).
    fn fetched_word(&mut self, g: &mut Gather, p: Place, reg: u32) -> Value {
        let value = g.regs[reg as usize];
        if p.is_own() {
            return value;
        }
        if let Some(&v) = g.words.get(&(p.mask, p.add, reg)) {
            return v;
        }
        let src = self.source_lane(g, p.mask, p.add);
        let clamp = self.konst(Type::I32, 0x1f);
        let all = self.konst(Type::I32, 0xffff_ffff);
        // Mode 3: `shfl.idx`.
        let v = self.emit_multi(Opcode::Shfl, Type::I32, &[value, src, clamp, all], Aux::Imm(3))[0];
        g.words.insert((p.mask, p.add, reg), v);
        v
    }

    /// `(laneid & mask) | add`, made once per expansion (`add` 0: the masked lane id).
    fn source_lane(&mut self, g: &mut Gather, mask: u32, add: u32) -> Value {
        if let Some(&v) = g.lanes.get(&(mask, add)) {
            return v;
        }
        let v = if add == 0 {
            let k = self.konst(Type::I32, mask as u64);
            self.emit(Opcode::And, Type::I32, &[g.lane, k], Aux::None)
        } else {
            let masked = self.source_lane(g, mask, 0);
            let k = self.konst(Type::I32, add as u64);
            self.emit(Opcode::Or, Type::I32, &[masked, k], Aux::None)
        };
        g.lanes.insert((mask, add), v);
        v
    }

    /// Whether the lane id has `bit` set.
    fn lane_bit(&mut self, g: &mut Gather, bit: u32) -> Value {
        if let Some(&v) = g.bits.get(&bit) {
            return v;
        }
        let k = self.konst(Type::I32, bit as u64);
        let masked = self.emit(Opcode::And, Type::I32, &[g.lane, k], Aux::None);
        let zero = self.konst(Type::I32, 0);
        let v = self.emit_typed(
            Opcode::Icmp,
            Type::I32,
            &[masked, zero],
            Aux::Cond(Cond::Ne),
            Type::Pred,
        );
        g.bits.insert(bit, v);
        v
    }

    /// f32 `lo` and `hi` rounded to nearest f16 and packed into one register, `lo` low.
    fn pack_halves(&mut self, lo: Value, hi: Value) -> Value {
        let info = float_convert(Type::F32, Some(Rounding::Rn));
        let pair = self.emit(Opcode::Fpack, Type::F16x2, &[hi, lo], Aux::Convert(info));
        self.emit(Opcode::Bitcast, Type::I32, &[pair], Aux::None)
    }
}
