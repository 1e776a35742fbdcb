//! Renders a [`Program`] as a PTX module. Reserved registers start with `%x`: `%xin`/`%xout`
//! (buffers), `%xrow`/`%xorow` (this thread's input and output rows), `%xga` (global
//! accumulators), `%xtid`, `%xsh` (this thread's exchange slot), temporaries `%xt*`/`%xd*`,
//! sinks `%xs`/`%xsd`, loop counters `%xlc*` with their predicates `%xlp*`; variables `xch`
//! (exchanges), `xacc` (shared accumulators), [`VECTOR_SLOTS`] and [`LOCAL_SLOT`] (vector
//! stores and loads).

use super::{Class, Dsts, Inst, LoopCount, Operand, Program, Space, Stmt};
use std::fmt::Write;

/// The shared array of per-thread 16-byte slots of vector stores and loads.
pub const VECTOR_SLOTS: &str = "xvec";

/// The local 16-byte slot of vector stores and loads.
pub const LOCAL_SLOT: &str = "xloc";

/// Deepest loop nesting the printer declares counters for.
pub const MAX_LOOP_DEPTH: usize = 4;

/// The PTX text of `p`: a module with the one kernel [`Program::KERNEL`].
pub fn to_ptx(p: &Program) -> String {
    let mut out = module_header(p.version);
    out.push_str(&entry(p, Program::KERNEL));
    out
}

/// The directives that open a module of PTX version `version` for sm_75.
pub fn module_header(version: (u8, u8)) -> String {
    format!(
        ".version {}.{}\n.target sm_75\n.address_size 64\n\n",
        version.0, version.1
    )
}

/// The kernel of `p` named `name` (without the module's directives), so that several
/// programs of one PTX version can share a module.
pub fn entry(p: &Program, name: &str) -> String {
    let mut w = Printer {
        p,
        name,
        out: String::new(),
        labels: 0,
        loops: Vec::new(),
    };
    w.header();
    w.prologue();
    w.stmts(&p.body, 0);
    w.epilogue();
    w.out
}

struct Printer<'a> {
    p: &'a Program,
    /// The kernel's name.
    name: &'a str,
    out: String,
    labels: u32,
    /// The loops around the statement printed: (continue label, end label), innermost last.
    loops: Vec<(String, String)>,
}

impl Printer<'_> {
    fn line(&mut self, s: &str) {
        self.out.push('\t');
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn header(&mut self) {
        let p = self.p;
        let k = self.name;
        let _ = write!(
            self.out,
            ".visible .entry {k}(\n\t.param .u64 {k}_in,\n\t.param .u64 {k}_out\n)\n{{\n"
        );
        for c in Class::ALL {
            let n = p.pools[c.slot()];
            if n > 0 {
                self.line(&format!(".reg {} {}<{n}>;", c.decl(), c.prefix()));
            }
        }
        self.line(".reg .b64 %xin, %xout, %xrow, %xorow, %xga, %xsd, %xd<4>;");
        self.line(".reg .b32 %xtid, %xsh, %xs, %xt<4>;");
        self.line(".reg .b16 %xh<2>;");
        self.line(&format!(".reg .b32 %xlc<{MAX_LOOP_DEPTH}>;"));
        self.line(&format!(".reg .pred %xp, %xlp<{MAX_LOOP_DEPTH}>;"));
        if p.uses_exchange() {
            self.line(&format!(".shared .align 8 .b8 xch[{}];", p.block * 8));
        }
        if !p.shared_acc.is_empty() {
            self.line(&format!(".shared .align 8 .b8 xacc[{}];", p.shared_acc.len() * 8));
        }
        if p.mentions(VECTOR_SLOTS) {
            self.line(&format!(".shared .align 16 .b8 {VECTOR_SLOTS}[{}];", p.block * 16));
        }
        if p.mentions(LOCAL_SLOT) {
            self.line(&format!(".local .align 16 .b8 {LOCAL_SLOT}[16];"));
        }
    }

    fn prologue(&mut self) {
        let p = self.p;
        let k = self.name;
        self.line(&format!("ld.param.u64 %xin, [{k}_in];"));
        self.line(&format!("ld.param.u64 %xout, [{k}_out];"));
        self.line("cvta.to.global.u64 %xin, %xin;");
        self.line("cvta.to.global.u64 %xout, %xout;");
        self.line("mov.u32 %xtid, %tid.x;");
        self.line("mov.u32 %xt0, %ctaid.x;");
        self.line(&format!("mad.lo.u32 %xt1, %xt0, {}, %xtid;", p.block));
        self.line(&format!("mul.wide.u32 %xd0, %xt1, {};", p.row() * 8));
        self.line("add.s64 %xrow, %xin, %xd0;");
        self.line(&format!("mul.wide.u32 %xd0, %xt1, {};", p.out_row() * 8));
        self.line("add.s64 %xorow, %xout, %xd0;");
        if !p.global_acc.is_empty() {
            let base = p.threads() as u64 * p.out_row() as u64 * 8;
            self.line(&format!("add.s64 %xga, %xout, {base};"));
        }
        if p.uses_exchange() {
            self.line("mov.u32 %xsh, xch;");
            self.line("shl.b32 %xt0, %xtid, 3;");
            self.line("add.u32 %xsh, %xsh, %xt0;");
        }
        for r in p.registers() {
            let off = p.column(r) * 8;
            if r.class == Class::Pred {
                self.line(&format!("ld.global.u32 %xt0, [%xrow+{off}];"));
                self.line("and.b32 %xt0, %xt0, 1;");
                self.line(&format!("setp.ne.u32 {r}, %xt0, 0;"));
            } else {
                self.line(&format!("ld.global.{} {r}, [%xrow+{off}];", r.class.mem_type()));
            }
        }
        if !p.shared_acc.is_empty() {
            self.line("setp.eq.u32 %xp, %xtid, 0;");
            for (i, a) in p.shared_acc.iter().enumerate() {
                self.line(&format!("@%xp st.shared.u64 [xacc+{}], 0x{:X};", i * 8, a.init));
            }
            self.line("bar.sync 0;");
        }
    }

    fn epilogue(&mut self) {
        let p = self.p;
        for r in p.registers() {
            let off = p.column(r) * 8;
            if r.class == Class::Pred {
                self.line(&format!("selp.u32 %xt0, 1, 0, {r};"));
                self.line(&format!("st.global.u32 [%xorow+{off}], %xt0;"));
            } else {
                self.line(&format!("st.global.{} [%xorow+{off}], {r};", r.class.mem_type()));
            }
        }
        if !p.shared_acc.is_empty() {
            self.line("bar.sync 0;");
            for i in 0..p.shared_acc.len() {
                self.line(&format!("ld.shared.u64 %xsd, [xacc+{}];", i * 8));
                let off = (p.row() as usize + i) * 8;
                self.line(&format!("st.global.u64 [%xorow+{off}], %xsd;"));
            }
        }
        self.line("ret;");
        self.out.push_str("}\n");
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!("$Ldt{}", self.labels)
    }

    fn stmts(&mut self, body: &[Stmt], depth: usize) {
        for s in body {
            self.stmt(s, depth);
        }
    }

    fn stmt(&mut self, s: &Stmt, depth: usize) {
        match s {
            Stmt::Inst(i) => self.inst(i),
            Stmt::Group(g) => g.iter().for_each(|i| self.inst(i)),
            Stmt::If { cond, then_, else_ } => self.if_(*cond, then_, else_, depth),
            Stmt::Loop { count, top_test, body } => self.loop_(count, *top_test, body, depth),
            Stmt::Exchange { src, dst, offset } => self.exchange(src, dst, *offset),
            Stmt::Exit { cond, level, kind } => self.exit(*cond, *level, *kind),
            Stmt::Atomic { space, slot, src, ret } => self.atomic(*space, *slot, &src.op, *ret),
        }
    }

    fn inst(&mut self, i: &Inst) {
        let line = inst_text(i);
        self.line(&line);
    }

    fn if_(&mut self, (neg, p): (bool, super::Reg), then_: &[Stmt], else_: &[Stmt], depth: usize) {
        // Branch around the `then` part when the condition fails.
        let skip = if neg { "" } else { "!" };
        let (l_else, l_end) = (self.label(), self.label());
        let target = if else_.is_empty() { &l_end } else { &l_else };
        self.line(&format!("@{skip}{p} bra {target};"));
        self.stmts(then_, depth);
        if !else_.is_empty() {
            self.line(&format!("bra {l_end};"));
            self.out.push_str(&format!("{l_else}:\n"));
            self.stmts(else_, depth);
        }
        self.out.push_str(&format!("{l_end}:\n"));
    }

    fn loop_(&mut self, count: &LoopCount, top_test: bool, body: &[Stmt], depth: usize) {
        let d = depth.min(MAX_LOOP_DEPTH - 1);
        let (lc, lp) = (format!("%xlc{d}"), format!("%xlp{d}"));
        match count {
            LoopCount::Const(n) => self.line(&format!("mov.u32 {lc}, {n};")),
            LoopCount::Reg(r, mask) => self.line(&format!("and.b32 {lc}, {r}, {mask};")),
        }
        let (top, next, end) = (self.label(), self.label(), self.label());
        self.out.push_str(&format!("{top}:\n"));
        if top_test {
            self.line(&format!("setp.eq.u32 {lp}, {lc}, 0;"));
            self.line(&format!("@{lp} bra {end};"));
        }
        self.loops.push((next.clone(), end.clone()));
        self.stmts(body, depth + 1);
        self.loops.pop();
        self.out.push_str(&format!("{next}:\n"));
        if top_test {
            self.line(&format!("sub.u32 {lc}, {lc}, 1;"));
            self.line(&format!("bra {top};"));
        } else {
            self.line(&format!("setp.ne.u32 {lp}, {lc}, 0;"));
            self.line(&format!("sub.u32 {lc}, {lc}, 1;"));
            self.line(&format!("@{lp} bra {top};"));
        }
        self.out.push_str(&format!("{end}:\n"));
    }

    fn exit(&mut self, (neg, p): (bool, super::Reg), level: u8, kind: super::ExitKind) {
        let Some(k) = self.loops.len().checked_sub(1 + level as usize) else {
            return;
        };
        let (next, end) = &self.loops[k];
        let target = match kind {
            super::ExitKind::Break => end,
            super::ExitKind::Continue => next,
        };
        let line = format!("@{}{p} bra {target};", if neg { "!" } else { "" });
        self.line(&line);
    }

    fn exchange(&mut self, src: &super::Reg, dst: &super::Reg, offset: u32) {
        let n = self.p.block;
        let ty = src.class.mem_type();
        self.line(&format!("st.shared.{ty} [%xsh], {src};"));
        self.line("bar.sync 0;");
        self.line(&format!("add.u32 %xt0, %xtid, {};", offset % n));
        self.line(&format!("setp.ge.u32 %xp, %xt0, {n};"));
        self.line(&format!("@%xp sub.u32 %xt0, %xt0, {n};"));
        self.line("shl.b32 %xt0, %xt0, 3;");
        self.line("mov.u32 %xt1, xch;");
        self.line("add.u32 %xt0, %xt0, %xt1;");
        self.line(&format!("ld.shared.{} {dst}, [%xt0];", dst.class.mem_type()));
        self.line("bar.sync 0;");
    }

    fn atomic(&mut self, space: Space, slot: usize, src: &Operand, ret: bool) {
        let accs = match space {
            Space::Global => &self.p.global_acc,
            Space::Shared => &self.p.shared_acc,
        };
        let Some(a) = accs.get(slot) else { return };
        let addr = match space {
            Space::Global => format!("[%xga+{}]", slot * 8),
            Space::Shared => format!("[xacc+{}]", slot * 8),
        };
        let sp = if space == Space::Global { "global" } else { "shared" };
        let (op, ty) = (a.op.name(), a.ty);
        let src = operand_text(src);
        if ret {
            let sink = if a.class() == Class::B64 { "%xsd" } else { "%xs" };
            self.line(&format!("atom.{sp}.{op}.{ty} {sink}, {addr}, {src};"));
        } else {
            self.line(&format!("red.{sp}.{op}.{ty} {addr}, {src};"));
        }
    }
}

/// The text of an operand.
pub fn operand_text(o: &Operand) -> String {
    match o {
        Operand::Reg(r) => r.to_string(),
        Operand::NotPred(r) => format!("!{r}"),
        Operand::Imm(i) => i.to_string(),
        Operand::Vector(v) => format!("{{{}}}", v.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", ")),
        Operand::Fixed(s) => s.clone(),
    }
}

/// The text of an instruction (without indentation).
pub fn inst_text(i: &Inst) -> String {
    let mut s = String::new();
    if let Some((neg, p)) = i.guard {
        let _ = write!(s, "@{}{p} ", if neg { "!" } else { "" });
    }
    s.push_str(&i.op);
    let dsts: Vec<String> = i.dsts.iter().map(operand_text).collect();
    let mut parts = Vec::new();
    if !dsts.is_empty() {
        parts.push(match i.dst_form {
            Dsts::Plain => dsts.join(", "),
            Dsts::Pair => dsts.join("|"),
            Dsts::Vector => format!("{{{}}}", dsts.join(", ")),
        });
    }
    parts.extend(i.srcs.iter().map(|s| operand_text(&s.op)));
    if !parts.is_empty() {
        s.push(' ');
        s.push_str(&parts.join(", "));
    }
    s.push(';');
    s
}
