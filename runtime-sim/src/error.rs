//! Simulator errors: bad modules and launches, and faults in kernels (with kernel, thread and
//! instruction address).

use std::fmt;

/// Where in a kernel something happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// Kernel name.
    pub kernel: String,
    /// Block index.
    pub ctaid: [u32; 3],
    /// Thread index within the block.
    pub tid: [u32; 3],
    /// Byte offset of the instruction in the kernel's code.
    pub pc: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kernel `{}`, block ({}, {}, {}), thread ({}, {}, {}), instruction /*{:04x}*/",
            self.kernel, self.ctaid[0], self.ctaid[1], self.ctaid[2], self.tid[0], self.tid[1], self.tid[2], self.pc
        )
    }
}

/// Everything that can go wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// The cubin could not be read.
    #[error("bad cubin: {0}")]
    BadModule(String),
    /// The cubin is for an architecture the simulator does not model.
    #[error("the cubin is for {cubin}, which no device model covers (devices: {modelled})")]
    UnmodelledArch {
        /// The cubin's architecture (`sm_86`).
        cubin: String,
        /// The device models and their architectures.
        modelled: String,
    },
    /// The cubin is for another architecture than the device's.
    #[error("the cubin is for {cubin}, but device {device} is {device_arch} (devices for {cubin}: {devices})")]
    WrongDevice {
        /// The cubin's architecture.
        cubin: String,
        /// The device's name.
        device: String,
        /// The device's architecture.
        device_arch: String,
        /// The device models of the cubin's architecture.
        devices: String,
    },
    /// The kernel does not exist.
    #[error("no kernel named `{0}` in the module")]
    NoKernel(String),
    /// The launch configuration is invalid.
    #[error("invalid launch: {0}")]
    BadLaunch(String),
    /// An instruction could not be decoded.
    #[error("kernel `{kernel}`: {message}")]
    Decode { kernel: String, message: String },
    /// A memory access outside every allocation (or the shared/local window).
    #[error("{at}: out-of-bounds {space} access of {size} bytes at address {addr:#x}")]
    OutOfBounds {
        at: Location,
        space: &'static str,
        addr: u64,
        size: u32,
    },
    /// A misaligned access.
    #[error("{at}: misaligned {space} access of {size} bytes at address {addr:#x}")]
    Misaligned {
        at: Location,
        space: &'static str,
        addr: u64,
        size: u32,
    },
    /// A shared::cta instruction (LDS, STS, ATOMS, ...) with the shared address of another
    /// CTA of the cluster.
    #[error(
        "{at}: {inst} reaches the shared memory of the cluster's CTA of rank {rank} (shared address {addr:#x}); \
         shared::cta instructions reach their own CTA's memory only"
    )]
    OtherCtaShared {
        at: Location,
        inst: String,
        rank: u32,
        addr: u32,
    },
    /// Warps wait at barriers that can never complete.
    #[error("{at}: barrier deadlock: {detail}")]
    Deadlock { at: Location, detail: String },
    /// An instruction the simulator does not implement.
    #[error("{at}: {what} is not supported by the simulator")]
    Unsupported { at: Location, what: String },
    /// The instruction limit was reached.
    #[error("{at}: instruction limit of {limit} warp instructions reached (infinite loop?)")]
    Limit { at: Location, limit: u64 },
    /// `__assertfail`: a device-side assertion failed (CUDA's `cudaErrorAssert`).
    #[error("{at}: device-side assert triggered: {message}")]
    Assert { at: Location, message: String },
    /// `free` of a pointer the heap does not own (a double free, or a pointer `malloc`
    /// did not return).
    #[error("{at}: {message}")]
    Heap { at: Location, message: String },
    /// `BPT.TRAP` / `trap`.
    #[error("{at}: trap")]
    Trap { at: Location },
    /// A fault that followed hazards (usually caused by them).
    #[error("{fault}\n(after {hazards} hazard(s) in the control codes; the first: {first})")]
    AfterHazards {
        /// The fault.
        fault: Box<SimError>,
        /// Hazards before it.
        hazards: u64,
        /// The first hazard.
        first: String,
    },
    /// A memory API misuse (copy outside an allocation).
    #[error("memory: {0}")]
    Memory(String),
}
