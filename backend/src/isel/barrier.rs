//! CTA barriers, memory fences and sleeps as ptxas writes them: BAR.SYNC / BAR.ARV with an
//! immediate barrier id and thread count, BAR.RED with its result read by B2R.RESULT,
//! MEMBAR (followed by ERRBAR and an L1 invalidation, CCTL.IVALL, at cluster, GPU and system
//! scope; on sm_90 CGAERRBAR after the ERRBAR; the release half alone has no invalidation)
//! and NANOSLEEP. The cluster's barrier (sm_90) is UCGABAR_ARV and UCGABAR_WAIT.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::MOp;
use ptxc_mir::ir::{Aux, Inst, Opcode, Value};
use ptxc_sass::isa::values::{BarMode, BarRedOp, CctlOp, MembarSem, Scope};
use ptxc_sass::isa::{Op, RZ, Role, Value as V};

impl Isel<'_> {
    /// Selects a barrier, fence or sleep.
    pub(super) fn lower_barrier(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (op, args) = (data.op, data.args.clone());
        match op {
            Opcode::BarSync => self.bar(BarMode::Sync, None, args[0], args.get(1).copied(), None),
            Opcode::BarArrive => self.bar(BarMode::Arv, None, args[0], args.get(1).copied(), None),
            Opcode::BarRedPopc | Opcode::BarRedAnd | Opcode::BarRedOr => {
                let redop = match op {
                    Opcode::BarRedPopc => BarRedOp::Popc,
                    Opcode::BarRedAnd => BarRedOp::And,
                    _ => BarRedOp::Or,
                };
                let p = self.pred(args[1]);
                self.bar(BarMode::Red, Some(redop), args[0], args.get(2).copied(), Some(p))?;
                let d = self.dst(inst);
                let dsts = if op == Opcode::BarRedPopc {
                    [
                        (Role::Dst, d),
                        (Role::PredDst0, MOp::Fixed(V::Pred { idx: 7, neg: false })),
                    ]
                } else {
                    [(Role::Dst, MOp::Fixed(V::Reg(RZ))), (Role::PredDst0, d)]
                };
                self.emit_sass(Op::B2r, &dsts, &[], &[], None)
            }
            Opcode::Fence => {
                let scope = match data.aux {
                    Aux::Imm(s) => s,
                    _ => 1,
                };
                self.fence(scope)
            }
            Opcode::FenceProxyAsync => self.fence_proxy_async(inst),
            Opcode::L1Invalidate => {
                let guard = match args.first() {
                    Some(&p) => match self.pred(p) {
                        MOp::Pred(r, neg) => Some((r, neg)),
                        // A constant guard: always or never.
                        MOp::Fixed(V::Pred { neg: true, .. }) => return Ok(()),
                        _ => None,
                    },
                    None => None,
                };
                self.emit_sass(Op::Cctl, &[], &[], &[CctlOp::IvAll.set()], guard)
            }
            Opcode::ClusterArrive => self.emit_sass(Op::UcgabarArv, &[], &[], &[], None),
            Opcode::ClusterWait => self.emit_sass(Op::UcgabarWait, &[], &[], &[], None),
            Opcode::Nanosleep => self.emit_sass(Op::Nanosleep, &[], &[(Role::B, Arg::v(args[0]))], &[], None),
            other => Err(self.unsupported(format!("MIR `{}`", other.name()))),
        }
    }

    /// The constant `v` holds, for operands that must be immediates.
    fn immediate(&self, v: Value, what: &str) -> Result<u32, IselError> {
        match self.foldable(v) {
            Some(V::Imm(k)) => Ok(k as u32),
            _ => Err(self.unsupported(format!("a {what} in a register"))),
        }
    }

    /// `BAR.mode[.redop] id[, count][, p]`.
    fn bar(
        &mut self,
        mode: BarMode,
        redop: Option<BarRedOp>,
        id: Value,
        count: Option<Value>,
        p: Option<MOp>,
    ) -> Result<(), IselError> {
        let id = self.immediate(id, "barrier id")?;
        if id > 15 {
            return Err(self.unsupported(format!("barrier id {id} (ids are 0 to 15)")));
        }
        let mut srcs = vec![(Role::A, Arg::imm(id))];
        match count {
            Some(c) => {
                let n = self.immediate(c, "barrier thread count")?;
                if n == 0 || n % 32 != 0 || n > 1024 {
                    return Err(self.unsupported(format!("barrier thread count {n} (a multiple of 32 up to 1024)")));
                }
                srcs.push((Role::B, Arg::imm(n)));
            }
            None if mode == BarMode::Arv => return Err(self.unsupported("bar.arrive without a thread count")),
            None => {}
        }
        if let Some(p) = p {
            srcs.push((Role::PredSrc0, Arg::op(p)));
        }
        let mut mods = vec![mode.set()];
        if let Some(r) = redop {
            mods.push(r.set());
        }
        self.emit_sass(Op::Bar, &[], &srcs, &mods, None)
    }

    /// A memory fence at scope 0 (CTA), 1 (GPU), 2 (system) or
    /// [`FENCE_CLUSTER`](ptxc_mir::lower::FENCE_CLUSTER) (`MEMBAR.GPU`, as ptxas 13.5 fences
    /// the cluster); with [`FENCE_RELEASE`](ptxc_mir::lower::FENCE_RELEASE) without the L1
    /// invalidation.
    fn fence(&mut self, imm: u64) -> Result<(), IselError> {
        use ptxc_mir::lower::{FENCE_ALL, FENCE_CLUSTER, FENCE_RELEASE};
        let scope = imm & 0xf;
        let sass_scope = match scope {
            0 => Scope::Cta,
            1 | FENCE_CLUSTER => Scope::Gpu,
            _ => Scope::Sys,
        };
        let sem = if imm & FENCE_ALL != 0 {
            MembarSem::All
        } else {
            MembarSem::Sc
        };
        self.emit_sass(Op::Membar, &[], &[], &[sem.set(), sass_scope.set()], None)?;
        if scope > 0 {
            self.emit_sass(Op::Errbar, &[], &[], &[], None)?;
            if self.vcode.arch >= ptxc_sass::isa::Arch::Sm90 {
                self.emit_sass(Op::Cgaerrbar, &[], &[], &[], None)?;
            }
            if imm & FENCE_RELEASE == 0 {
                self.emit_sass(Op::Cctl, &[], &[], &[CctlOp::IvAll.set()], None)?;
            }
        }
        Ok(())
    }
}
