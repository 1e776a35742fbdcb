//! The back end's driver: MIR kernel to encoded SASS, and a module of kernels to a cubin.

use crate::cubin::{self, CubinModule, ElfFlavour, KernelImage, KernelParam};
use crate::emit::layout::{Assembled, assemble};
use crate::emit::{EmitError, emit};
use crate::isa::EncodeError;
use crate::isa::access::{Reg, accesses};
use crate::isel::{IselError, select};
use crate::regalloc::{AllocError, allocate};
use crate::sched::assign_control;
use ptxc_mir::ir::{Function, Module};

/// A back-end failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BackendError {
    /// Instruction selection.
    #[error("{0}")]
    Isel(#[from] IselError),
    /// Register allocation.
    #[error("{0}")]
    Alloc(#[from] AllocError),
    /// Emission.
    #[error("{0}")]
    Emit(#[from] EmitError),
    /// Encoding (a back-end bug: an instruction the ISA description cannot encode).
    #[error("encoding: {0}")]
    Encode(#[from] EncodeError),
    /// Invalid options.
    #[error("{0}")]
    Options(String),
}

/// Stages whose text form can be dumped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// VCode after instruction selection.
    Vcode,
    /// SASS after scheduling (with control codes).
    Sass,
}

/// Options of the back end.
#[derive(Clone, Debug)]
pub struct Options {
    /// ELF flavour of the cubin.
    pub flavour: ElfFlavour,
    /// Post-allocation scheduling heuristic (`None`: keep the selected order).
    pub post_sched: Option<String>,
}

/// The default post-allocation scheduling heuristic.
pub const DEFAULT_SCHED: &str = "critical-path";

impl Default for Options {
    fn default() -> Self {
        Options {
            flavour: ElfFlavour::default(),
            post_sched: Some(DEFAULT_SCHED.to_string()),
        }
    }
}

/// The resources of a compiled kernel, as `ptxas -v` reports them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    /// Kernel name.
    pub name: String,
    /// Registers per thread (as recorded in the cubin).
    pub registers: u32,
    /// CTA barriers used.
    pub barriers: u32,
    /// Bytes of constant bank 0 (driver area + parameters).
    pub cmem0: u32,
    /// Static shared memory in bytes.
    pub smem: u32,
    /// Local memory frame per thread in bytes.
    pub stack_frame: u32,
    /// Bytes stored by register spills.
    pub spill_stores: u32,
    /// Bytes loaded by register spills.
    pub spill_loads: u32,
}

impl Resources {
    /// The lines `ptxas -v` prints for a kernel, with `tool` in place of "ptxas".
    pub fn report(&self, tool: &str) -> String {
        format!(
            "{tool} info    : Compiling entry function '{n}' for 'sm_75'\n\
             {tool} info    : Function properties for {n}\n\
             \x20   {} bytes stack frame, {} bytes spill stores, {} bytes spill loads\n\
             {tool} info    : Used {} registers, used {} barriers, {} bytes cmem[0]{}\n",
            self.stack_frame,
            self.spill_stores,
            self.spill_loads,
            self.registers,
            self.barriers,
            self.cmem0,
            if self.smem > 0 {
                format!(", {} bytes smem", self.smem)
            } else {
                String::new()
            },
            n = self.name,
        )
    }
}

/// A kernel compiled to SASS.
#[derive(Clone, Debug)]
pub struct CompiledKernel {
    /// Name.
    pub name: String,
    /// Code and EXIT offsets.
    pub assembled: Assembled,
    /// Highest general register used.
    pub highest_gpr: Option<u32>,
}

/// Compiles one kernel; `dump` receives the text of each stage.
pub fn compile_function(
    f: &Function,
    opts: &Options,
    dump: &mut dyn FnMut(Stage, &str),
) -> Result<CompiledKernel, BackendError> {
    let vcode = select(f)?;
    dump(Stage::Vcode, &vcode.to_string());
    let alloc = allocate(&vcode)?;
    let mut blocks = emit(&vcode, &alloc)?;
    crate::regalloc::banks::spread_banks(&mut blocks, &alloc.regions);
    if let Some(name) = &opts.post_sched {
        let h = crate::sched::heuristics::by_name(name).ok_or_else(|| {
            BackendError::Options(format!(
                "unknown scheduling heuristic `{name}` (known: {})",
                crate::sched::heuristics::NAMES.join(", ")
            ))
        })?;
        crate::sched::list::schedule(&mut blocks, h.as_ref());
    }
    assign_control(&mut blocks);
    let assembled = assemble(&blocks)?;
    dump(Stage::Sass, &sass_text(&assembled));
    let highest_gpr = assembled
        .insts
        .iter()
        .flat_map(|i| {
            let a = accesses(i);
            a.reads.into_iter().chain(a.writes)
        })
        .filter_map(|a| match a.reg {
            Reg::R(r) => Some(r as u32),
            Reg::P(_) => None,
        })
        .max();
    Ok(CompiledKernel {
        name: f.name.clone(),
        assembled,
        highest_gpr,
    })
}

/// A listing of assembled code: address, control code, text.
pub fn sass_text(a: &Assembled) -> String {
    use crate::isa::text::{AddressLabels, inst_text};
    let mut s = String::new();
    for (i, inst) in a.insts.iter().enumerate() {
        let addr = 16 * i as u64;
        s.push_str(&format!(
            "/*{addr:04x}*/ {} {} ;\n",
            inst.ctrl,
            inst_text(inst, addr, &AddressLabels)
        ));
    }
    s
}

/// A compiled module: the cubin and each kernel's resources.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The cubin bytes.
    pub cubin: Vec<u8>,
    /// Resources per kernel, in module order.
    pub resources: Vec<Resources>,
}

/// Compiles every kernel of `m` into a cubin.
pub fn compile_module(
    m: &Module,
    opts: &Options,
    dump: &mut dyn FnMut(&str, Stage, &str),
) -> Result<Compiled, BackendError> {
    let mut module = CubinModule::new(75);
    module.flavour = opts.flavour;
    let mut resources = Vec::new();
    for f in &m.functions {
        let k = compile_function(f, opts, &mut |stage, text| dump(&f.name, stage, text))?;
        let img = kernel_image(f, k);
        resources.push(Resources {
            name: img.name.clone(),
            registers: img.reg_count,
            barriers: img.num_barriers,
            cmem0: 0x160 + img.param_size,
            smem: img.shared_size,
            stack_frame: img.frame_size,
            spill_stores: 0,
            spill_loads: 0,
        });
        module.kernels.push(img);
    }
    Ok(Compiled {
        cubin: cubin::write(&module),
        resources,
    })
}

fn kernel_image(f: &Function, k: CompiledKernel) -> KernelImage {
    let mut code = k.assembled.code;
    cubin::pad_text(&mut code);
    let mut img = KernelImage::new(f.name.clone(), code);
    img.params = f
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| KernelParam::new(i as u32, p.offset, p.size))
        .collect();
    img.param_size = f.params.iter().map(|p| p.offset + p.size).max().unwrap_or(0);
    img.reg_count = cubin::register_count(k.highest_gpr);
    img.exit_offsets = k.assembled.exit_offsets;
    img.req_ntid = f.req_ntid;
    img.max_ntid = f.max_ntid;
    if let Some(n) = f.max_nreg {
        img.max_reg_count = Some(n);
    }
    img
}
