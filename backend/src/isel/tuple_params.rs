//! Tuple block parameters: block parameters that a tensor-core instruction always reads
//! together as one register pair or quad (the accumulators of a GEMM loop) become one tuple
//! parameter, so the loop carries the tuple the instruction writes from one iteration to the
//! next in the same registers, as ptxas does. Kept as separate 32-bit parameters, every
//! iteration copied each accumulator out of the tuple at the latch and packed it back in
//! before the instruction (wmma_gemm: 214 MOVs, 1.29x ptxas's cycles).

use super::Isel;
use crate::vcode::{VClass, VReg};
use ptxc_mir::ir::mma::{MmaF16Flags, MmaIntFlags};
use ptxc_mir::ir::{Aux, Block, Function, Opcode, Value, ValueDef};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// One VCode parameter of a block with tuple groups.
#[derive(Clone, Copy, Debug)]
enum Slot {
    /// MIR parameter `n`, alone.
    Single(usize),
    /// Tuple group `g`.
    Tuple(usize),
}

/// The block parameters of one block, some of them travelling as tuples.
#[derive(Clone, Debug, Default)]
pub struct TupleParams {
    /// Per group: the positions of its parameters in tuple order, and its tuple register.
    groups: Vec<(Vec<usize>, VReg)>,
    /// The VCode parameters in order (a tuple stands where its first parameter stood).
    slots: Vec<Slot>,
}

/// The value slices each tensor-core instruction reads as a register tuple (the accumulator
/// C of `mma`, and the pairs of the A and B fragments); [`Isel::tuple_op`] packs each.
pub fn tuple_operands(func: &Function, inst: ptxc_mir::ir::Inst) -> Vec<&[Value]> {
    let d = &func.insts[inst];
    let args = &d.args[..];
    match d.op {
        Opcode::MmaInt if args.len() >= 4 => vec![&args[2..4]],
        Opcode::MmaF16 | Opcode::MmaIntM16n8 => {
            let Aux::Imm(flags) = d.aux else {
                return Vec::new();
            };
            let (a, b, c) = if d.op == Opcode::MmaF16 {
                MmaF16Flags::from_bits(flags).regs()
            } else {
                MmaIntFlags::from_bits(flags).regs()
            };
            if args.len() != a + b + c {
                return Vec::new();
            }
            let mut slices = vec![&args[0..a]];
            if b > 1 {
                slices.push(&args[a..a + b]);
            }
            slices.push(&args[a + b..]);
            slices
        }
        Opcode::Mma884 if args.len() >= 6 => {
            let mut slices = vec![&args[0..2], &args[2..4]];
            slices.extend(args[4..].chunks_exact(2));
            slices
        }
        _ => Vec::new(),
    }
}

/// Finds the groups of block parameters read only as whole tuples, per block.
fn find_groups(func: &Function) -> HashMap<Block, Vec<Vec<Value>>> {
    let mut candidates: Vec<Vec<Value>> = Vec::new();
    for &b in &func.layout {
        for &i in &func.blocks[b].insts {
            for slice in tuple_operands(func, i) {
                let roots: Vec<Value> = slice.iter().map(|&v| root(func, v)).collect();
                if matches!(roots.len(), 2 | 4) && params_of_one_block(func, &roots).is_some() {
                    candidates.push(roots);
                }
            }
        }
    }
    candidates.sort();
    candidates.dedup();
    // A parameter in two different groups stays a 32-bit parameter.
    let mut seen: HashMap<Value, usize> = HashMap::default();
    for g in &candidates {
        for &v in g {
            *seen.entry(v).or_default() += 1;
        }
    }
    let mut by_block: HashMap<Block, Vec<Vec<Value>>> = HashMap::default();
    for g in candidates {
        if g.iter().all(|v| seen[v] == 1) {
            let b = params_of_one_block(func, &g).expect("checked above");
            by_block.entry(b).or_default().push(g);
        }
    }
    by_block
}

/// The value `v` copies or reinterprets (through any chain of copies and bitcasts, which
/// selection aliases to their source's register).
fn root(func: &Function, mut v: Value) -> Value {
    while let ValueDef::Result(i, 0) = func.values[v].def
        && matches!(func.insts[i].op, Opcode::Copy | Opcode::Bitcast)
    {
        v = func.insts[i].args[0];
    }
    v
}

/// The block whose distinct parameters `values` all are.
fn params_of_one_block(func: &Function, values: &[Value]) -> Option<Block> {
    let mut block = None;
    let mut distinct = HashSet::default();
    for &v in values {
        let ValueDef::Param(b, _) = func.values[v].def else {
            return None;
        };
        if block.is_some_and(|x| x != b) || !distinct.insert(v) {
            return None;
        }
        block = Some(b);
    }
    block.filter(|&b| Some(b) != func.layout.first().copied())
}

impl Isel<'_> {
    /// Gives every tuple group of block parameters its tuple register, and makes each
    /// parameter name its register of the tuple.
    pub(super) fn assign_tuple_params(&mut self) {
        for (b, groups) in find_groups(self.func) {
            let params = &self.func.blocks[b].params;
            let position = |v: Value| params.iter().position(|&x| x == v).expect("a parameter of b");
            let mut tp = TupleParams::default();
            let mut group_of: HashMap<usize, usize> = HashMap::default();
            for g in groups {
                let class = if g.len() == 4 { VClass::Quad } else { VClass::Pair };
                let t = self.vcode.new_vreg(class);
                for (i, &v) in g.iter().enumerate() {
                    self.alias_sub(v, t, i as u8);
                    group_of.insert(position(v), tp.groups.len());
                }
                tp.groups.push((g.iter().map(|&v| position(v)).collect(), t));
            }
            let mut placed = HashSet::default();
            for n in 0..params.len() {
                match group_of.get(&n) {
                    None => tp.slots.push(Slot::Single(n)),
                    Some(&g) if placed.insert(g) => tp.slots.push(Slot::Tuple(g)),
                    Some(_) => {}
                }
            }
            self.tuple_params.insert(b, tp);
        }
    }

    /// Whether some parameters of block `b` travel as a tuple.
    pub(super) fn has_tuple_params(&self, b: Block) -> bool {
        self.tuple_params.contains_key(&b)
    }

    /// Whether some parameter of block `b` is a pinned accumulator (`accumulators.rs`).
    pub(super) fn has_pinned_params(&self, b: Block) -> bool {
        self.func.blocks[b]
            .params
            .iter()
            .any(|p| self.regs.get(p).is_some_and(|&v| self.vcode.fixed_reg(v).is_some()))
    }

    /// The VCode parameters of block `b`: one register per parameter, one tuple per group.
    pub(super) fn block_params(&mut self, b: Block) -> Vec<VReg> {
        let params = &self.func.blocks[b].params;
        let Some(tp) = self.tuple_params.get(&b).cloned() else {
            return params.iter().map(|&p| self.def_reg(p)).collect();
        };
        tp.slots
            .iter()
            .map(|&slot| match slot {
                Slot::Single(n) => self.def_reg(params[n]),
                Slot::Tuple(g) => tp.groups[g].1,
            })
            .collect()
    }

    /// The VCode arguments of a branch to `target` carrying `args`, in the order of
    /// [`Self::block_params`]: a group's values are passed as the tuple they already are, or
    /// packed into a new one.
    pub(super) fn edge_args(&mut self, target: Block, args: &[Value]) -> Vec<VReg> {
        let Some(tp) = self.tuple_params.get(&target).cloned() else {
            let params = self.func.blocks[target].params.clone();
            return params.iter().zip(args).map(|(&p, &a)| self.edge_arg(p, a)).collect();
        };
        tp.slots
            .iter()
            .map(|&slot| match slot {
                Slot::Single(n) => self.reg(args[n]),
                Slot::Tuple(g) => {
                    let (positions, t) = &tp.groups[g];
                    let values: Vec<Value> = positions.iter().map(|&n| args[n]).collect();
                    let class = self.vcode.class(*t);
                    self.tuple_arg(&values, class)
                }
            })
            .collect()
    }

    /// The register passing `a` to parameter `p`: a pinned accumulator parameter
    /// (`accumulators.rs`) is written here, before the branch, unless `a` is already in its
    /// register (the allocator sees neither).
    fn edge_arg(&mut self, p: Value, a: Value) -> VReg {
        // Pinned values have their registers before selection starts (`pin_accumulators`).
        let Some(&pv) = self.regs.get(&p).filter(|&&pv| self.vcode.fixed_reg(pv).is_some()) else {
            return self.reg(a);
        };
        self.move_to_pinned(pv, a);
        pv
    }

    /// A whole tuple of `class` holding `values` in order: the one they are, or a new one.
    fn tuple_arg(&mut self, values: &[Value], class: VClass) -> VReg {
        if let Some((t, 0)) = self.sub_of(values[0])
            && self.vcode.class(t) == class
            && values
                .iter()
                .enumerate()
                .all(|(i, &v)| self.sub_of(v) == Some((t, i as u8)))
        {
            return t;
        }
        let srcs = values.iter().map(|&v| self.fixed_or_src(v)).collect();
        self.pack_tuple(srcs, class)
    }
}
