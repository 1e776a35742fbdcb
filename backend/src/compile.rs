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
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// ELF flavour of the cubin (v7 by default).
    pub flavour: ElfFlavour,
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
pub fn compile_function(f: &Function, dump: &mut dyn FnMut(Stage, &str)) -> Result<CompiledKernel, BackendError> {
    let vcode = select(f)?;
    dump(Stage::Vcode, &vcode.to_string());
    let alloc = allocate(&vcode)?;
    let mut blocks = emit(&vcode, &alloc)?;
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

/// Compiles every kernel of `m` into a cubin.
pub fn compile_module(
    m: &Module,
    opts: &Options,
    dump: &mut dyn FnMut(&str, Stage, &str),
) -> Result<Vec<u8>, BackendError> {
    let mut module = CubinModule::new(75);
    module.flavour = opts.flavour;
    for f in &m.functions {
        let k = compile_function(f, &mut |stage, text| dump(&f.name, stage, text))?;
        module.kernels.push(kernel_image(f, k));
    }
    Ok(cubin::write(&module))
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
