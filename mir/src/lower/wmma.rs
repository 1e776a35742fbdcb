//! `wmma.load`, `wmma.store` and `wmma.mma` as ptxas lowers them for sm_75 (the SASS of its
//! cubins of `tests/tensor/wmma.ptx`); [`super::fragment`] says which elements each fragment
//! register holds.
//!
//! A load or store is one 32-bit access per register at the lane's address (a 64-bit one
//! for a lane's two consecutive 32-bit elements) when the register's elements are
//! consecutive in memory. When they are not: f16 registers are read as the transposed 8x8
//! block's word and transposed by `movmatrix` (ptxas's MOVM.16.MT88), 8-bit ones are
//! gathered byte by byte, 32-bit elements are accessed one by one. Addresses are the lane's
//! pointer (`base + g * ld + 4t` bytes, or its transposed form) plus `line * ld` per block
//! row and a constant offset. `wmma.mma` is one MIR `mma_f16` (HMMA.1688) per 16x8x8 step,
//! or one `mma_int` (IMMA.8816, IMMA.8832, BMMA.88128) per 8x8 block, on the fragment
//! registers as they are.

use super::LowerError;
use super::context::Lowerer;
use super::fragment::{self, Word};
use crate::ir::{Aux, ConvertInfo, InstData, Opcode, Rounding, Space, Type, Value};
use ptxc_frontend::ast::Span;
use ptxc_frontend::checked::{AddrBase, CheckedInst, CheckedOperand, SpecialReg};
use ptxc_frontend::tensor::{Fragment, MmaLayout, MmaOp, MmaShape, MmaType, TensorOp};

/// The lane-dependent part of an address: `g` or `k * t` (in lines), or `k * g` or `k * t`
/// bytes along a line.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lane {
    G(u32),
    T(u32),
    /// `ldmatrix.x2` rows: line `lane % 8 + m * k`, `m = lane / 8 % 2` the matrix.
    Row8(u32),
    /// `ldmatrix.x2` columns: `m * k` bytes.
    Mat(u32),
}

/// One fragment access in flight: the matrix in memory and the address values made so far.
struct Access {
    base: Value,
    space: Space,
    /// Bytes from one memory line (a row if row-major, else a column) to the next.
    ld_bytes: Value,
    lane: Value,
    g: Value,
    t: Value,
    bits: u32,
    row_major: bool,
    /// Lane pointers by (line part, byte part, constant line).
    ptrs: Vec<((Lane, Lane, u32), Value)>,
}

/// Where one access goes: its pointer and constant byte offset.
struct Place {
    line: Lane,
    pos: Lane,
    line0: u32,
    offset: i64,
}

impl Lowerer<'_> {
    /// `wmma.load`, `wmma.store` or `wmma.mma`.
    pub fn lower_wmma(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        match inst.tensor {
            Some(TensorOp::WmmaLoad {
                frag,
                shape,
                layout,
                ty,
            }) => self.wmma_load(inst, frag, shape, layout, ty),
            Some(TensorOp::WmmaStore { shape, layout, ty }) => self.wmma_store(inst, shape, layout, ty),
            Some(TensorOp::WmmaMma(op)) => self.wmma_mma(inst, op),
            _ => Err(LowerError::new("wmma without its shape and types", inst.span)),
        }
    }

    /// The access of operand `addr` with stride operand `stride` (default: the fragment's
    /// rows or columns as stored).
    fn wmma_access(
        &mut self,
        inst: &CheckedInst,
        (addr, stride): (usize, usize),
        (shape, frag, layout, ty): (MmaShape, Fragment, MmaLayout, MmaType),
    ) -> Result<(Access, i64), LowerError> {
        let span = inst.span;
        let CheckedOperand::Address { base, offset } = self.arg(inst, addr)?.clone() else {
            return Err(LowerError::new("wmma needs an address `[...]`", span));
        };
        let mut space = super::memory::space_of(inst.mods.space);
        let base = match base {
            AddrBase::Reg(r) => self.read_raw(r),
            AddrBase::Var(v) => match self.var_place(v) {
                super::memory::VarPlace::Mem(i, var_space) => {
                    space = var_space;
                    self.emit(Opcode::Addr, Type::I64, &[], Aux::Var(i))
                }
                super::memory::VarPlace::KernelParam(_) => {
                    return Err(LowerError::new("wmma cannot access a kernel parameter", span));
                }
            },
            AddrBase::Absolute => self.konst(Type::I64, 0),
        };
        if !matches!(self.func.ty(base), Type::I32 | Type::I64) {
            return Err(LowerError::new("a wmma address must be 32 or 64 bits wide", span));
        }
        let row_major = layout == MmaLayout::Row;
        let ld = match inst.operands.get(stride) {
            Some(op) => self.operand(op, Type::I32, false, span)?,
            None => {
                let (m, n, k) = shape.dims();
                let (rows, cols) = match frag {
                    Fragment::A => (m, k),
                    Fragment::B => (k, n),
                    _ => (m, n),
                };
                self.konst(Type::I32, if row_major { cols } else { rows } as u64)
            }
        };
        let bits = ty.bits();
        let ld_bytes = match (self.const_of(ld), bits) {
            (Some(k), _) => self.konst(Type::I32, k * bits as u64 / 8),
            (None, 1) => self.shift(Opcode::ShrU, ld, 3),
            (None, 4) => self.shift(Opcode::ShrU, ld, 1),
            (None, b) => self.shift(Opcode::Shl, ld, (b / 8).trailing_zeros()),
        };
        let lane = self.lane_derived(0, |s| s.special(SpecialReg::LaneId));
        let g = self.lane_derived(1, |s| s.shift(Opcode::ShrU, lane, 2));
        let t = self.lane_derived(2, |s| {
            let three = s.konst(Type::I32, 3);
            s.emit(Opcode::And, Type::I32, &[lane, three], Aux::None)
        });
        let access = Access {
            base,
            space,
            ld_bytes,
            lane,
            g,
            t,
            bits,
            row_major,
            ptrs: Vec::new(),
        };
        Ok((access, offset))
    }

    /// A lane-derived value of kind `kind`, made by `make` once per block.
    fn lane_derived(&mut self, kind: u32, make: impl FnOnce(&mut Self) -> Value) -> Value {
        if let Some(&v) = self.wmma_lane.get(&(self.cur, kind)) {
            return v;
        }
        let v = make(self);
        self.wmma_lane.insert((self.cur, kind), v);
        v
    }

    /// The value of `v` if it is a constant.
    fn const_of(&self, v: Value) -> Option<u64> {
        let i = self.func.def_inst(v)?;
        match (&self.func.insts[i].op, &self.func.insts[i].aux) {
            (Opcode::Const, Aux::Imm(k)) => Some(*k),
            _ => None,
        }
    }

    fn shift(&mut self, op: Opcode, v: Value, by: u32) -> Value {
        if by == 0 {
            return v;
        }
        let k = self.konst(Type::I32, by as u64);
        self.emit(op, Type::I32, &[v, k], Aux::None)
    }

    fn times(&mut self, v: Value, k: u32) -> Value {
        if let Some(c) = self.const_of(v) {
            return self.konst(Type::I32, c.wrapping_mul(k as u64));
        }
        if k == 0 {
            return self.konst(Type::I32, 0);
        }
        if k.is_power_of_two() {
            return self.shift(Opcode::Shl, v, k.trailing_zeros());
        }
        let k = self.konst(Type::I32, k as u64);
        self.emit(Opcode::Imul, Type::I32, &[v, k], Aux::None)
    }

    /// The lane-dependent part of an address.
    fn lane_value(&mut self, a: &Access, l: Lane) -> Value {
        let kind = match l {
            Lane::G(k) => 0x100 | k,
            Lane::T(k) => 0x200 | k,
            Lane::Row8(k) => 0x300 | k,
            Lane::Mat(k) => 0x400 | k,
        };
        if let Some(&v) = self.wmma_lane.get(&(self.cur, kind)) {
            return v;
        }
        let v = self.make_lane_value(a, l);
        self.wmma_lane.insert((self.cur, kind), v);
        v
    }

    fn make_lane_value(&mut self, a: &Access, l: Lane) -> Value {
        match l {
            Lane::G(k) => self.times(a.g, k),
            Lane::T(k) => self.times(a.t, k),
            Lane::Row8(k) if k == 0 || k == 8 => {
                // Rows 0..7 of both matrices, or rows 0..15 of a 16-row block: `lane % 16`.
                let mask = self.konst(Type::I32, if k == 0 { 7 } else { 15 });
                self.emit(Opcode::And, Type::I32, &[a.lane, mask], Aux::None)
            }
            Lane::Row8(k) => {
                let seven = self.konst(Type::I32, 7);
                let row = self.emit(Opcode::And, Type::I32, &[a.lane, seven], Aux::None);
                let m = self.matrix_times(a, k);
                self.emit(Opcode::Iadd, Type::I32, &[row, m], Aux::None)
            }
            Lane::Mat(k) => self.matrix_times(a, k),
        }
    }

    /// `k` times the lane's matrix of an `ldmatrix.x2` (`lane / 8 % 2`).
    fn matrix_times(&mut self, a: &Access, k: u32) -> Value {
        let m = self.shift(Opcode::ShrU, a.lane, 3);
        let one = self.konst(Type::I32, 1);
        let m = self.emit(Opcode::And, Type::I32, &[m, one], Aux::None);
        self.times(m, k)
    }

    /// The pointer of `place` (without its constant offset).
    fn place_ptr(&mut self, a: &mut Access, p: &Place) -> Value {
        let key = (p.line, p.pos, p.line0);
        if let Some((_, v)) = a.ptrs.iter().find(|(k, _)| *k == key) {
            return *v;
        }
        let ty = self.func.ty(a.base);
        let v = if p.line0 == 0 {
            let line = self.lane_value(a, p.line);
            let line = match self.const_of(a.ld_bytes) {
                Some(k) => self.times(line, k as u32),
                None => self.emit(Opcode::Imul, Type::I32, &[line, a.ld_bytes], Aux::None),
            };
            let pos = self.lane_value(a, p.pos);
            let off = match self.const_of(pos) {
                Some(0) => line,
                _ => self.emit(Opcode::Iadd, Type::I32, &[line, pos], Aux::None),
            };
            let off = self.widen(off, ty);
            self.emit(Opcode::Iadd, ty, &[a.base, off], Aux::None)
        } else {
            let lane = self.place_ptr(
                a,
                &Place {
                    line0: 0,
                    offset: 0,
                    ..*p
                },
            );
            let off = self.times(a.ld_bytes, p.line0);
            let off = match self.const_of(off) {
                Some(k) => self.konst(ty, k),
                None => self.widen(off, ty),
            };
            self.emit(Opcode::Iadd, ty, &[lane, off], Aux::None)
        };
        a.ptrs.push((key, v));
        v
    }

    /// Loads (`value` None, results returned) or stores `vector` elements of `ty` at `p`.
    fn wmma_mem(&mut self, a: &mut Access, p: &Place, ty: Type, vector: u8, store: Option<&[Value]>) -> Vec<Value> {
        let ptr = self.place_ptr(a, p);
        let info = Lowerer::plain_mem(a.space, p.offset, vector);
        match store {
            Some(values) => {
                let mut args = vec![ptr];
                args.extend_from_slice(values);
                self.store(ty, args, info);
                Vec::new()
            }
            None => {
                let data = InstData {
                    op: Opcode::Load,
                    ty,
                    args: smallvec::smallvec![ptr],
                    aux: Aux::Mem(info),
                };
                let i = self.func.ins(self.cur, data);
                self.func.results[i].to_vec()
            }
        }
    }

    /// The memory line and byte position of a word's block origin.
    fn origin(a: &Access, w: &Word, offset: i64) -> (u32, i64) {
        let (line0, pos0) = if a.row_major { (w.row, w.col) } else { (w.col, w.row) };
        (line0, offset + (pos0 * a.bits / 8) as i64)
    }

    /// Moves the fragment registers `words` between registers (`regs`, for a store) and
    /// memory; the loaded registers.
    fn wmma_transfer(
        &mut self,
        a: &mut Access,
        words: &[Word],
        offset: i64,
        regs: Option<&[Value]>,
        span: Span,
    ) -> Result<Vec<Value>, LowerError> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let w = words[i];
            let (line0, pos) = Self::origin(a, &w, offset);
            let contiguous = w.along_cols == a.row_major;
            let reg = |k: usize| regs.map(|r| r[k]);
            match w.single {
                Some(0)
                    if contiguous
                        && words
                            .get(i + 1)
                            .is_some_and(|n| n.single == Some(1) && (n.row, n.col) == (w.row, w.col)) =>
                {
                    let p = Place {
                        line: Lane::G(1),
                        pos: Lane::T(8),
                        line0,
                        offset: pos,
                    };
                    let vals = regs.map(|r| [r[i], r[i + 1]]);
                    out.extend(self.wmma_mem(a, &p, Type::I32, 2, vals.as_ref().map(|v| &v[..])));
                    i += 2;
                    continue;
                }
                Some(j) => {
                    let p = if contiguous {
                        Place {
                            line: Lane::G(1),
                            pos: Lane::T(8),
                            line0,
                            offset: pos + 4 * j as i64,
                        }
                    } else {
                        Place {
                            line: Lane::T(2),
                            pos: Lane::G(4),
                            line0: line0 + j,
                            offset: pos,
                        }
                    };
                    let v = reg(i);
                    out.extend(self.wmma_mem(a, &p, Type::I32, 1, v.as_ref().map(std::slice::from_ref)));
                }
                None if regs.is_none()
                    && a.space == Space::Shared
                    && a.bits == 16
                    && words
                        .get(i + 1)
                        .is_some_and(|n| n.single.is_none() && n.along_cols == w.along_cols) =>
                {
                    // ptxas's LDSM.16.M88.2 / LDSM.16.MT88.2: two 8x8 blocks, the lanes of
                    // matrix m giving its rows' addresses.
                    let (line1, pos1) = Self::origin(a, &words[i + 1], offset);
                    let (dl, dp) = (line1.wrapping_sub(line0), pos1 - pos);
                    if dl > 64 || !(0..=256).contains(&dp) {
                        return Err(LowerError::new("wmma fragment blocks out of order", span));
                    }
                    let p = Place {
                        line: Lane::Row8(dl),
                        pos: Lane::Mat(dp as u32),
                        line0,
                        offset: pos,
                    };
                    let mut ptr = self.place_ptr(a, &p);
                    if pos != 0 {
                        let ty = self.func.ty(ptr);
                        let k = self.konst(ty, pos as u64);
                        ptr = self.emit(Opcode::Iadd, ty, &[ptr, k], Aux::None);
                    }
                    let trans = !contiguous as u64;
                    out.extend(self.emit_multi(Opcode::Ldmatrix, Type::I32, &[ptr], Aux::Imm(2 | trans << 4)));
                    i += 2;
                    continue;
                }
                None if contiguous || a.bits == 16 => {
                    let p = Place {
                        line: Lane::G(1),
                        pos: Lane::T(4),
                        line0,
                        offset: pos,
                    };
                    match reg(i) {
                        Some(v) => {
                            let v = if contiguous {
                                v
                            } else {
                                self.emit(Opcode::Movmatrix, Type::I32, &[v], Aux::None)
                            };
                            self.wmma_mem(a, &p, Type::I32, 1, Some(&[v]));
                        }
                        None => {
                            let v = self.wmma_mem(a, &p, Type::I32, 1, None)[0];
                            out.push(if contiguous {
                                v
                            } else {
                                self.emit(Opcode::Movmatrix, Type::I32, &[v], Aux::None)
                            });
                        }
                    }
                }
                None if a.bits == 8 && regs.is_none() => {
                    let mut word = self.konst(Type::I32, 0);
                    for e in 0..4 {
                        let p = Place {
                            line: Lane::T(4),
                            pos: Lane::G(1),
                            line0: line0 + e,
                            offset: pos,
                        };
                        let b = self.wmma_mem(a, &p, Type::I8, 1, None)[0];
                        let b = self.widen(b, Type::I32);
                        let b = self.shift(Opcode::Shl, b, 8 * e);
                        word = self.emit(Opcode::Or, Type::I32, &[word, b], Aux::None);
                    }
                    out.push(word);
                }
                None => {
                    return Err(LowerError::new(
                        "this wmma layout is not supported by this version of ptxc",
                        span,
                    ));
                }
            }
            i += 1;
        }
        Ok(out)
    }

    /// `wmma.load.frag.sync.aligned.layout.shape[.space].type {d...}, [addr][, stride]`.
    fn wmma_load(
        &mut self,
        inst: &CheckedInst,
        frag: Fragment,
        shape: MmaShape,
        layout: MmaLayout,
        ty: MmaType,
    ) -> Result<(), LowerError> {
        let (mut a, offset) = self.wmma_access(inst, (1, 2), (shape, frag, layout, ty))?;
        let words = fragment::words(shape, frag, ty);
        let values = self.wmma_transfer(&mut a, &words, offset, None, inst.span)?;
        let dsts = self.vector_regs(inst, 0)?;
        for (d, v) in dsts.into_iter().zip(values) {
            if let Some(d) = d {
                self.write_reg(d, v, false, inst.span)?;
            }
        }
        Ok(())
    }

    /// `wmma.store.d.sync.aligned.layout.shape[.space].type [addr], {d...}[, stride]`.
    fn wmma_store(
        &mut self,
        inst: &CheckedInst,
        shape: MmaShape,
        layout: MmaLayout,
        ty: MmaType,
    ) -> Result<(), LowerError> {
        let (mut a, offset) = self.wmma_access(inst, (0, 2), (shape, Fragment::D, layout, ty))?;
        let words = fragment::words(shape, Fragment::D, ty);
        let regs = self.fragment_values(inst, 1, words.len())?;
        self.wmma_transfer(&mut a, &words, offset, Some(&regs), inst.span)?;
        Ok(())
    }

    /// The first `n` registers of fragment operand `i` as 32-bit values.
    fn fragment_values(&mut self, inst: &CheckedInst, i: usize, n: usize) -> Result<Vec<Value>, LowerError> {
        let elems = self.elements(self.arg(inst, i)?);
        if elems.len() < n {
            return Err(LowerError::new(
                format!("a fragment of {n} registers is needed, found {}", elems.len()),
                inst.span,
            ));
        }
        elems[..n]
            .iter()
            .map(|e| self.operand(e, Type::I32, false, inst.span))
            .collect()
    }

    /// `wmma.mma`: HMMA.1688 steps (f16) or one integer MMA per 8x8 block.
    fn wmma_mma(&mut self, inst: &CheckedInst, op: MmaOp) -> Result<(), LowerError> {
        let s = op.shape;
        let t = op.types;
        let a = self.fragment_values(inst, 1, fragment::words(s, Fragment::A, t.a).len())?;
        let b = self.fragment_values(inst, 2, fragment::words(s, Fragment::B, t.b).len())?;
        let c = self.fragment_values(inst, 3, fragment::words(s, Fragment::C, t.c).len())?;
        let d = if t.a == MmaType::F16 {
            // As ptxas: with an f32 C or D the products accumulate in f32; an f16 C widens
            // exactly first (HADD2.F32), an f16 D rounds to nearest after (F2F.F16.F32).
            let f32 = t.c == MmaType::F32 || t.d == MmaType::F32;
            let c = if f32 && t.c == MmaType::F16 {
                let mut wide = Vec::new();
                for &v in &c {
                    for e in 0..2 {
                        wide.push(self.half_to_f32(v, e));
                    }
                }
                wide
            } else {
                c
            };
            let d = self.wmma_hmma(s, f32, &a, &b, &c);
            if f32 && t.d == MmaType::F16 {
                d.chunks(2).map(|p| self.f32_pair_to_halves(p[0], p[1])).collect()
            } else {
                d
            }
        } else {
            self.wmma_imma(op, &a, &b, &c)
        };
        let dsts = self.vector_regs(inst, 0)?;
        for (dst, v) in dsts.into_iter().zip(d) {
            if let Some(dst) = dst {
                self.write_reg(dst, v, false, inst.span)?;
            }
        }
        Ok(())
    }

    /// Half `e` of `v` widened to f32 bits.
    fn half_to_f32(&mut self, v: Value, e: u32) -> Value {
        let h = self.extract_bits(v, 16 * e, 16);
        let h = self.emit(Opcode::Bitcast, Type::F16, &[h], Aux::None);
        let f = self.emit(
            Opcode::Convert,
            Type::F32,
            &[h],
            Aux::Convert(float_convert(Type::F16, None)),
        );
        self.emit(Opcode::Bitcast, Type::I32, &[f], Aux::None)
    }

    /// f32 bits `lo` and `hi` rounded to f16 and packed (low first).
    fn f32_pair_to_halves(&mut self, lo: Value, hi: Value) -> Value {
        let mut word = self.konst(Type::I32, 0);
        for (e, v) in [lo, hi].into_iter().enumerate() {
            let f = self.emit(Opcode::Bitcast, Type::F32, &[v], Aux::None);
            let h = self.emit(
                Opcode::Convert,
                Type::F16,
                &[f],
                Aux::Convert(float_convert(Type::F32, Some(Rounding::Rn))),
            );
            let h = self.emit(Opcode::Bitcast, Type::I16, &[h], Aux::None);
            let h = self.widen(h, Type::I32);
            let h = self.shift(Opcode::Shl, h, 16 * e as u32);
            word = self.emit(Opcode::Or, Type::I32, &[word, h], Aux::None);
        }
        word
    }

    /// The f16 shapes: per 16x8 tile of (transposed, for m8n32k16) D, two HMMA.1688 along K.
    fn wmma_hmma(&mut self, s: MmaShape, f32: bool, a: &[Value], b: &[Value], c: &[Value]) -> Vec<Value> {
        let (m, n, _) = s.dims();
        let (hm, hn, ha, hb) = if fragment::transposed(s) {
            (n, m, b, a)
        } else {
            (m, n, a, b)
        };
        let per = if f32 { 4 } else { 2 };
        let flags = crate::ir::mma::MmaF16Flags {
            f32,
            input: crate::ir::mma::MmaInput::F16,
            k16: false,
            ampere: self.module.target_sm >= 80,
            k4: false,
        }
        .bits();
        let mut d = c.to_vec();
        for mb in 0..(hm / 16) as usize {
            for nb in 0..(hn / 8) as usize {
                let tile = mb * (hn / 8) as usize + nb;
                let mut acc = c[per * tile..per * (tile + 1)].to_vec();
                for kb in 0..2 {
                    let p = kb * (hm / 16) as usize + mb;
                    let mut args = vec![ha[2 * p], ha[2 * p + 1], hb[2 * nb + kb]];
                    args.extend_from_slice(&acc);
                    acc = self.emit_multi(Opcode::MmaF16, Type::I32, &args, Aux::Imm(flags));
                }
                d[per * tile..per * (tile + 1)].copy_from_slice(&acc);
            }
        }
        d
    }

    /// The integer shapes: one `mma_int` per 8x8 block of D.
    fn wmma_imma(&mut self, op: MmaOp, a: &[Value], b: &[Value], c: &[Value]) -> Vec<Value> {
        let (m, n, _) = op.shape.dims();
        let t = op.types;
        let signed = |ty: MmaType| matches!(ty, MmaType::S8 | MmaType::S4) as u64;
        let flags = t.a.bits() as u64 | signed(t.a) << 8 | signed(t.b) << 9 | (op.satfinite as u64) << 10;
        let mut d = c.to_vec();
        for (mb, &av) in a.iter().enumerate().take((m / 8) as usize) {
            for (nb, &bv) in b.iter().enumerate().take((n / 8) as usize) {
                let tile = mb * (n / 8) as usize + nb;
                let args = [av, bv, c[2 * tile], c[2 * tile + 1]];
                let r = self.emit_mma_int(flags, &args);
                d[2 * tile..2 * tile + 2].copy_from_slice(&r);
            }
        }
        d
    }
}

/// A float-to-float conversion from `from` with rounding `rnd`.
pub(super) fn float_convert(from: Type, rnd: Option<Rounding>) -> ConvertInfo {
    ConvertInfo {
        from,
        from_signed: false,
        to_signed: false,
        rnd,
        sat: false,
        ftz: false,
        relu: false,
    }
}
