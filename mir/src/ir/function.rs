//! A MIR function: arenas of instructions, values and blocks, and the block order.

use super::entities::{Block, Inst, Value};
use super::inst::{Aux, InstData, Opcode};
use super::srcloc::SrcLoc;
use super::types::Type;
use cranelift_entity::{PrimaryMap, SecondaryMap};
use smallvec::SmallVec;

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueDef {
    /// Result `n` of an instruction.
    Result(Inst, u8),
    /// Parameter `n` of a block.
    Param(Block, u8),
}

/// Facts about one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueData {
    /// Its type.
    pub ty: Type,
    /// Its definition.
    pub def: ValueDef,
}

/// A basic block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockData {
    /// Block parameters (SSA phis).
    pub params: Vec<Value>,
    /// Instructions in order; the last one is the terminator.
    pub insts: Vec<Inst>,
}

/// A kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelParam {
    /// Name.
    pub name: String,
    /// Byte offset in the parameter block.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// Alignment in bytes.
    pub align: u32,
}

/// A variable in memory: module globals and constants, and a kernel's shared and local
/// arrays (including the `.param` variables of device-function calls, which become local).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemVar {
    /// Name (unique within the kernel).
    pub name: String,
    /// State space: global, const, shared or local.
    pub space: crate::ir::Space,
    /// Size in bytes (0 for a dynamic `.extern .shared` array).
    pub size: u64,
    /// Alignment in bytes.
    pub align: u32,
    /// Initial bytes (global and const), zero-filled to `size` if shorter.
    pub init: Option<Vec<u8>>,
    /// Addresses of other variables in the initial bytes: (byte offset, variable index).
    pub relocs: Vec<(u64, u32)>,
}

/// A kernel in SSA form.
#[derive(Clone, Debug, Default)]
pub struct Function {
    /// Name.
    pub name: String,
    /// Parameters in order.
    pub params: Vec<KernelParam>,
    /// `.reqntid`.
    pub req_ntid: Option<[u32; 3]>,
    /// `.maxntid`.
    pub max_ntid: Option<[u32; 3]>,
    /// `.maxnreg`.
    pub max_nreg: Option<u32>,
    /// `.reqnctapercluster` (sm_90): the cluster shape every launch must use.
    pub cluster_dims: Option<[u32; 3]>,
    /// `.maxclusterrank` (sm_90).
    pub max_cluster_rank: Option<u32>,
    /// `.explicitcluster` (sm_90).
    pub explicit_cluster: bool,
    /// Variables in memory that `addr` instructions name.
    pub vars: Vec<MemVar>,
    /// Instruction arena.
    pub insts: PrimaryMap<Inst, InstData>,
    /// Results of each instruction.
    pub results: SecondaryMap<Inst, SmallVec<[Value; 1]>>,
    /// Value arena.
    pub values: PrimaryMap<Value, ValueData>,
    /// Block arena.
    pub blocks: PrimaryMap<Block, BlockData>,
    /// Block order; the first is the entry.
    pub layout: Vec<Block>,
    /// The PTX position of each instruction made while [`Function::cur_srcloc`] was set (for
    /// line tables); none for the rest.
    pub srclocs: SecondaryMap<Inst, SrcLoc>,
    /// The position new instructions get (the lowering sets it to each PTX instruction's).
    pub cur_srcloc: SrcLoc,
    /// The register budgets the kernel's `setmaxnreg` instructions ask for (ptxc allocates
    /// one register count for the whole kernel and reports them as ignored).
    pub setmaxnreg: Vec<u32>,
    /// The PTX kernel calls a device function (inlined by the lowering, or kept as a call);
    /// ptxas keeps such calls as subroutines, which decides some of the attributes it writes.
    pub calls_functions: bool,
    /// The device functions the kernel calls, directly or through one another, each lowered
    /// on its own when calls are kept (`LowerOptions::keep_calls`): `call_func` names one
    /// by its index here, in the kernel and in the device functions alike (whose own list
    /// is empty).
    pub callees: Vec<Function>,
    /// A device function (its `return` goes back to the caller), not a kernel.
    pub is_device_function: bool,
    /// Whether other modules see the function (`.visible`, `.weak`): a device function's
    /// symbol in the cubin binds as written.
    pub linkage: Linkage,
    /// In a device function, the byte ranges (offset, size) of its argument area that every
    /// call fills with values the same in every thread of the warp: the divergence analysis
    /// takes the loads of them as uniform (as ptxas, compiling the kernel's functions
    /// together, takes such arguments).
    pub uniform_args: Vec<(u32, u32)>,
}

/// The linkage of a function, as written before it in the PTX.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Linkage {
    /// No directive: the module's own.
    #[default]
    Internal,
    /// `.visible`.
    Visible,
    /// `.weak`.
    Weak,
}

impl Function {
    /// An empty function.
    pub fn new(name: &str) -> Function {
        Function {
            name: name.to_string(),
            ..Function::default()
        }
    }

    /// Adds `data` to the arena, at the current source position.
    fn push_inst(&mut self, data: InstData) -> Inst {
        let inst = self.insts.push(data);
        if !self.cur_srcloc.is_none() {
            self.srclocs[inst] = self.cur_srcloc;
        }
        inst
    }

    /// The entry block.
    pub fn entry(&self) -> Option<Block> {
        self.layout.first().copied()
    }

    /// Creates a block and appends it to the layout.
    pub fn add_block(&mut self) -> Block {
        let b = self.blocks.push(BlockData::default());
        self.layout.push(b);
        b
    }

    /// Adds a parameter of type `ty` to `block`.
    pub fn add_block_param(&mut self, block: Block, ty: Type) -> Value {
        let n = self.blocks[block].params.len() as u8;
        let v = self.values.push(ValueData {
            ty,
            def: ValueDef::Param(block, n),
        });
        self.blocks[block].params.push(v);
        v
    }

    /// Appends an instruction producing results of `result_types` to `block`.
    pub fn append(&mut self, block: Block, data: InstData, result_types: &[Type]) -> Inst {
        let inst = self.push_inst(data);
        let results = result_types
            .iter()
            .enumerate()
            .map(|(i, &ty)| {
                self.values.push(ValueData {
                    ty,
                    def: ValueDef::Result(inst, i as u8),
                })
            })
            .collect();
        self.results[inst] = results;
        self.blocks[block].insts.push(inst);
        inst
    }

    /// Appends `data` to `block` with the result types the opcode table gives.
    pub fn ins(&mut self, block: Block, data: InstData) -> Inst {
        let types = crate::ir::typing::result_types(&data);
        self.append(block, data, &types)
    }

    /// Creates an instruction with the table's result types without placing it in a block.
    pub fn create_inst(&mut self, data: InstData) -> Inst {
        let types = crate::ir::typing::result_types(&data);
        let inst = self.push_inst(data);
        let results = types
            .iter()
            .enumerate()
            .map(|(i, &ty)| {
                self.values.push(ValueData {
                    ty,
                    def: ValueDef::Result(inst, i as u8),
                })
            })
            .collect();
        self.results[inst] = results;
        inst
    }

    /// The instruction that defines `v`, if it is an instruction result.
    pub fn def_inst(&self, v: Value) -> Option<Inst> {
        match self.values[v].def {
            ValueDef::Result(i, _) => Some(i),
            ValueDef::Param(..) => None,
        }
    }

    /// The constant bits of `v` if it is defined by `const`.
    pub fn const_value(&self, v: Value) -> Option<u64> {
        let i = self.def_inst(v)?;
        match (&self.insts[i].op, &self.insts[i].aux) {
            (Opcode::Const, Aux::Imm(b)) => Some(*b),
            _ => None,
        }
    }

    /// Replaces every use of each key of `map` (followed transitively) by its value.
    pub fn replace_uses(&mut self, map: &rustc_hash::FxHashMap<Value, Value>) {
        if map.is_empty() {
            return;
        }
        let resolve = |mut v: Value| {
            while let Some(&n) = map.get(&v) {
                v = n;
            }
            v
        };
        for b in self.layout.clone() {
            for i in self.blocks[b].insts.clone() {
                self.insts[i].map_args(resolve);
            }
        }
    }

    /// Appends a single-result instruction and returns the result.
    pub fn append_value(
        &mut self,
        block: Block,
        op: Opcode,
        ty: Type,
        args: &[Value],
        aux: Aux,
        result_ty: Type,
    ) -> Value {
        let inst = self.append(
            block,
            InstData {
                op,
                ty,
                args: args.into(),
                aux,
            },
            &[result_ty],
        );
        self.results[inst][0]
    }

    /// The type of a value.
    pub fn ty(&self, v: Value) -> Type {
        self.values[v].ty
    }

    /// The single result of an instruction.
    pub fn result(&self, inst: Inst) -> Option<Value> {
        self.results[inst].first().copied()
    }

    /// The terminator of a block.
    pub fn terminator(&self, block: Block) -> Option<Inst> {
        self.blocks[block]
            .insts
            .last()
            .copied()
            .filter(|&i| self.insts[i].op.is_terminator())
    }

    /// Whether `block` holds only the kernel's exit.
    pub fn only_exits(&self, block: Block) -> bool {
        match self.blocks[block].insts.as_slice() {
            &[exit] => self.insts[exit].op == Opcode::Exit,
            _ => false,
        }
    }

    /// Successor blocks of `block`.
    pub fn successors(&self, block: Block) -> SmallVec<[Block; 2]> {
        self.terminator(block)
            .map(|t| self.insts[t].targets().iter().map(|c| c.block).collect())
            .unwrap_or_default()
    }

    /// Predecessors of every block (in layout order of the predecessors).
    pub fn predecessors(&self) -> SecondaryMap<Block, SmallVec<[Block; 2]>> {
        let mut preds: SecondaryMap<Block, SmallVec<[Block; 2]>> = SecondaryMap::new();
        for &b in &self.layout {
            for s in self.successors(b) {
                preds[s].push(b);
            }
        }
        preds
    }
}

/// A lowered module: its kernels (device functions are inlined into them).
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// Kernels in source order.
    pub functions: Vec<Function>,
}
