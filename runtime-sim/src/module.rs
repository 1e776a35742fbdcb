//! A loaded module: every kernel of a cubin decoded once, with what a launch needs to know.

use crate::decoded::Decoded;
use crate::error::SimError;
use ptxc_backend::cubin;
use ptxc_backend::isa::decode;

/// A kernel ready to run.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// Name.
    pub name: String,
    /// Decoded instructions; instruction `i` is at byte offset `16 * i`.
    pub insts: Vec<Decoded>,
    /// Registers per thread (as recorded in the cubin).
    pub regs: u32,
    /// Static shared memory in bytes.
    pub shared_size: u32,
    /// Parameter block size in bytes.
    pub param_size: u32,
    /// Parameter `(offset, size)` in declaration order.
    pub params: Vec<(u32, u32)>,
    /// Local memory per thread in bytes.
    pub local_size: u32,
}

/// A loaded module.
#[derive(Clone, Debug)]
pub struct Module {
    /// Kernels by name.
    pub kernels: Vec<Kernel>,
    /// Constant bank 3 (user `.const` data).
    pub const_bank3: Vec<u8>,
}

impl Module {
    /// Reads and decodes a cubin.
    pub fn load(bytes: &[u8]) -> Result<Module, SimError> {
        let m = cubin::read(bytes).map_err(|e| SimError::BadModule(e.to_string()))?;
        let mut kernels = Vec::new();
        for k in &m.kernels {
            let insts = decode::decode_all(&k.code)
                .map_err(|e| SimError::Decode {
                    kernel: k.name.clone(),
                    message: e.to_string(),
                })?
                .into_iter()
                .enumerate()
                .map(|(i, inst)| Decoded::new(inst, 16 * i as u32))
                .collect();
            let mut params: Vec<(u32, u32, u32)> = k.params.iter().map(|p| (p.ordinal, p.offset, p.size)).collect();
            params.sort();
            kernels.push(Kernel {
                name: k.name.clone(),
                insts,
                regs: k.reg_count,
                shared_size: k.shared_size,
                param_size: k.param_size,
                params: params.into_iter().map(|(_, o, s)| (o, s)).collect(),
                local_size: k.frame_size,
            });
        }
        Ok(Module {
            kernels,
            const_bank3: m.const_bank3.clone(),
        })
    }

    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> Result<&Kernel, SimError> {
        self.kernels
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| SimError::NoKernel(name.to_string()))
    }
}
