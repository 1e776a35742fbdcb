//! Predicate logic on a comparison: `or p, (a < b)` becomes one `ISETP.LT.OR d, PT, a, b, p`
//! (FSETP for f32, DSETP for f64), as ptxas chains bounds checks, instead of a compare and a PLOP3. The
//! compare is fused (not selected) when the logic operation in its block is its only use.

use super::Isel;
use ptxc_mir::ir::{Inst, InstData, Opcode, Type, Value};

impl Isel<'_> {
    /// True if `i` is a comparison one ISETP, FSETP or DSETP computes (32-bit or narrower
    /// integers, f32, f64).
    fn is_plain_compare(&self, i: Inst) -> bool {
        let d = &self.func.insts[i];
        let ty = d.ty;
        match d.op {
            Opcode::Icmp => ty.is_int() && ty.bits() <= 32,
            Opcode::Fcmp => matches!(ty, Type::F32 | Type::F64),
            _ => false,
        }
    }

    /// True if `d` is a predicate `and`, `or` or `xor` of two operands.
    fn is_pred_logic(d: &InstData) -> bool {
        d.ty == Type::Pred && matches!(d.op, Opcode::And | Opcode::Or | Opcode::Xor) && d.args.len() == 2
    }

    /// Marks, for each selected predicate `and`/`or`/`xor`, one operand that is a
    /// comparison in the same block used nowhere else: the comparison takes the other
    /// operand as its predicate input.
    pub(super) fn find_compare_fusions(&mut self) {
        for bi in 0..self.func.layout.len() {
            let b = self.func.layout[bi];
            for ii in 0..self.func.blocks[b].insts.len() {
                let i = self.func.blocks[b].insts[ii];
                let d = &self.func.insts[i];
                if !Self::is_pred_logic(d) {
                    continue;
                }
                let args = [d.args[1], d.args[0]];
                // A dead operation is not selected: a compare fused into it would be lost.
                let live = self.func.results[i].iter().all(|&r| self.use_count(r) > 0);
                if args[0] == args[1] || !live {
                    continue;
                }
                let fusable = args.into_iter().find_map(|a| {
                    let c = self.func.def_inst(a)?;
                    let in_block = self.func.blocks[b].insts.contains(&c);
                    (in_block && self.is_plain_compare(c) && !self.is_fused(c) && self.use_count(a) == 1).then_some(c)
                });
                if let Some(c) = fusable {
                    self.fuse(c);
                }
            }
        }
    }

    /// `(compare, other operand)` if the predicate logic `inst` has a fused comparison as an
    /// operand.
    pub(super) fn combined_compare(&self, inst: Inst) -> Option<(Inst, Value)> {
        let d = &self.func.insts[inst];
        if !Self::is_pred_logic(d) {
            return None;
        }
        [(d.args[1], d.args[0]), (d.args[0], d.args[1])]
            .into_iter()
            .find_map(|(c, other)| {
                let i = self.func.def_inst(c)?;
                (self.is_plain_compare(i) && self.is_fused(i)).then_some((i, other))
            })
    }
}
