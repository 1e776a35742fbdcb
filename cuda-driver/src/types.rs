//! The driver API's C types: result codes with their names and descriptions, opaque handles,
//! and the structures the implemented entry points read or write. Values are the CUDA
//! driver API's (as `cuda-bindings` 13.5 enumerates them); the descriptions are ptxc's own.

use std::ffi::{c_char, c_int, c_uint, c_void};

/// A driver API result code (`CUresult`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub struct CUresult(pub c_uint);

/// Result codes with their names and descriptions: one table drives the constants,
/// `cuGetErrorName` and `cuGetErrorString`.
macro_rules! results {
    ($($name:ident = $value:literal, $text:literal;)*) => {
        impl CUresult {
            $(
                #[doc = $text]
                pub const $name: CUresult = CUresult($value);
            )*
        }

        /// Every result code: value, name and description (NUL-terminated for C).
        pub const RESULTS: &[(CUresult, &str, &str)] = &[
            $((CUresult($value), concat!(stringify!($name), "\0"), concat!($text, "\0")),)*
        ];
    };
}

results! {
    CUDA_SUCCESS = 0, "no error";
    CUDA_ERROR_INVALID_VALUE = 1, "invalid argument";
    CUDA_ERROR_OUT_OF_MEMORY = 2, "out of memory";
    CUDA_ERROR_NOT_INITIALIZED = 3, "the driver has not been initialised (call cuInit)";
    CUDA_ERROR_DEINITIALIZED = 4, "the driver is shutting down";
    CUDA_ERROR_PROFILER_DISABLED = 5, "profiler disabled";
    CUDA_ERROR_PROFILER_NOT_INITIALIZED = 6, "profiler not initialised";
    CUDA_ERROR_PROFILER_ALREADY_STARTED = 7, "profiler already started";
    CUDA_ERROR_PROFILER_ALREADY_STOPPED = 8, "profiler already stopped";
    CUDA_ERROR_STUB_LIBRARY = 34, "stub library";
    CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36, "the call requires a newer driver";
    CUDA_ERROR_DEVICE_UNAVAILABLE = 46, "device unavailable";
    CUDA_ERROR_NO_DEVICE = 100, "no CUDA-capable device";
    CUDA_ERROR_INVALID_DEVICE = 101, "invalid device ordinal";
    CUDA_ERROR_DEVICE_NOT_LICENSED = 102, "device not licensed";
    CUDA_ERROR_INVALID_IMAGE = 200, "invalid module image";
    CUDA_ERROR_INVALID_CONTEXT = 201, "invalid or no current context";
    CUDA_ERROR_CONTEXT_ALREADY_CURRENT = 202, "context already current";
    CUDA_ERROR_MAP_FAILED = 205, "mapping failed";
    CUDA_ERROR_UNMAP_FAILED = 206, "unmapping failed";
    CUDA_ERROR_ARRAY_IS_MAPPED = 207, "array is mapped";
    CUDA_ERROR_ALREADY_MAPPED = 208, "already mapped";
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209, "no kernel image for the simulated device (no sm_75 SASS and no PTX)";
    CUDA_ERROR_ALREADY_ACQUIRED = 210, "already acquired";
    CUDA_ERROR_NOT_MAPPED = 211, "not mapped";
    CUDA_ERROR_NOT_MAPPED_AS_ARRAY = 212, "not mapped as array";
    CUDA_ERROR_NOT_MAPPED_AS_POINTER = 213, "not mapped as pointer";
    CUDA_ERROR_ECC_UNCORRECTABLE = 214, "uncorrectable ECC error";
    CUDA_ERROR_UNSUPPORTED_LIMIT = 215, "unsupported limit";
    CUDA_ERROR_CONTEXT_ALREADY_IN_USE = 216, "context already in use";
    CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217, "peer access unsupported";
    CUDA_ERROR_INVALID_PTX = 218, "PTX compilation failed (ptxc's diagnostics are in the error log)";
    CUDA_ERROR_INVALID_GRAPHICS_CONTEXT = 219, "invalid graphics context";
    CUDA_ERROR_NVLINK_UNCORRECTABLE = 220, "uncorrectable NVLink error";
    CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221, "JIT compiler not found";
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222, "unsupported PTX version";
    CUDA_ERROR_JIT_COMPILATION_DISABLED = 223, "JIT compilation disabled";
    CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY = 224, "unsupported execution affinity";
    CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC = 225, "unsupported device-side synchronisation";
    CUDA_ERROR_CONTAINED = 226, "contained error";
    CUDA_ERROR_INVALID_SOURCE = 300, "invalid source";
    CUDA_ERROR_FILE_NOT_FOUND = 301, "file not found";
    CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND = 302, "shared object symbol not found";
    CUDA_ERROR_SHARED_OBJECT_INIT_FAILED = 303, "shared object initialisation failed";
    CUDA_ERROR_OPERATING_SYSTEM = 304, "operating system call failed";
    CUDA_ERROR_INVALID_HANDLE = 400, "invalid resource handle";
    CUDA_ERROR_ILLEGAL_STATE = 401, "illegal state";
    CUDA_ERROR_LOSSY_QUERY = 402, "lossy query";
    CUDA_ERROR_NOT_FOUND = 500, "named symbol not found";
    CUDA_ERROR_NOT_READY = 600, "device not ready";
    CUDA_ERROR_ILLEGAL_ADDRESS = 700, "a kernel accessed memory outside every allocation";
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701, "too many resources requested for launch";
    CUDA_ERROR_LAUNCH_TIMEOUT = 702, "the launch reached the simulator's instruction limit";
    CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING = 703, "launch uses incompatible texturing mode";
    CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704, "peer access already enabled";
    CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705, "peer access not enabled";
    CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE = 708, "primary context active";
    CUDA_ERROR_CONTEXT_IS_DESTROYED = 709, "context is destroyed";
    CUDA_ERROR_ASSERT = 710, "device-side assert triggered";
    CUDA_ERROR_TOO_MANY_PEERS = 711, "too many peers";
    CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712, "host memory already registered";
    CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713, "host memory not registered";
    CUDA_ERROR_HARDWARE_STACK_ERROR = 714, "hardware stack error";
    CUDA_ERROR_ILLEGAL_INSTRUCTION = 715, "a kernel executed an instruction the simulator does not implement";
    CUDA_ERROR_MISALIGNED_ADDRESS = 716, "a kernel made a misaligned memory access";
    CUDA_ERROR_INVALID_ADDRESS_SPACE = 717, "invalid address space";
    CUDA_ERROR_INVALID_PC = 718, "invalid program counter";
    CUDA_ERROR_LAUNCH_FAILED = 719, "a kernel failed on the simulator (trap or barrier deadlock)";
    CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720, "cooperative launch too large";
    CUDA_ERROR_NOT_PERMITTED = 800, "operation not permitted";
    CUDA_ERROR_NOT_SUPPORTED = 801, "operation not supported by ptxc's driver library";
    CUDA_ERROR_SYSTEM_NOT_READY = 802, "system not ready";
    CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803, "system driver mismatch";
    CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804, "forward compatibility not supported on device";
    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900, "operation not permitted when stream is capturing";
    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901, "stream capture invalidated";
    CUDA_ERROR_CAPTURED_EVENT = 907, "operation not permitted on an event last recorded in a capturing stream";
    CUDA_ERROR_TIMEOUT = 909, "wait operation timed out";
    CUDA_ERROR_INVALID_CLUSTER_SIZE = 912, "invalid cluster size";
    CUDA_ERROR_FUNCTION_NOT_LOADED = 913, "function not loaded";
    CUDA_ERROR_UNKNOWN = 999, "unknown error";
}

impl CUresult {
    /// The entry of this code in [`RESULTS`].
    fn entry(self) -> Option<&'static (CUresult, &'static str, &'static str)> {
        RESULTS.iter().find(|(c, _, _)| *c == self)
    }

    /// The code's name (`CUDA_ERROR_INVALID_VALUE`), NUL-terminated.
    pub fn name(self) -> Option<&'static str> {
        self.entry().map(|e| e.1)
    }

    /// The code's description, NUL-terminated.
    pub fn description(self) -> Option<&'static str> {
        self.entry().map(|e| e.2)
    }
}

/// `CUdevice`: a device ordinal.
pub type CUdevice = c_int;
/// `CUdeviceptr`: a device address.
pub type CUdeviceptr = u64;
/// An opaque handle (`CUcontext`, `CUmodule`, `CUfunction`, `CUstream`, `CUevent`,
/// `CUlinkState`, `CUlibrary`, `CUkernel`): the library hands out numbers, never pointers.
pub type Handle = *mut c_void;

/// `CUuuid`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CUuuid {
    /// The 16 bytes.
    pub bytes: [c_char; 16],
}

/// `CUlaunchAttribute`: an id, padding to 8 bytes, and a 64-byte value union.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUlaunchAttribute {
    /// `CUlaunchAttributeID`.
    pub id: c_uint,
    /// Padding.
    pub pad: [c_char; 4],
    /// `CUlaunchAttributeValue` (its first words, by attribute).
    pub value: [u32; 16],
}

/// `CUlaunchConfig`: the launch of `cuLaunchKernelEx`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUlaunchConfig {
    /// Grid size.
    pub grid_dim: [c_uint; 3],
    /// Block size.
    pub block_dim: [c_uint; 3],
    /// Dynamic shared memory.
    pub shared_mem_bytes: c_uint,
    /// Stream.
    pub h_stream: Handle,
    /// Attributes.
    pub attrs: *const CUlaunchAttribute,
    /// Number of attributes.
    pub num_attrs: c_uint,
}

/// `CUDA_MEMCPY2D`, for `cuMemcpy2D`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CudaMemcpy2D {
    /// Source x in bytes.
    pub src_x_in_bytes: usize,
    /// Source row.
    pub src_y: usize,
    /// Source memory type (`CUmemorytype`).
    pub src_memory_type: c_uint,
    /// Source host pointer.
    pub src_host: *const c_void,
    /// Source device pointer.
    pub src_device: CUdeviceptr,
    /// Source array (unsupported).
    pub src_array: Handle,
    /// Source pitch.
    pub src_pitch: usize,
    /// Destination x in bytes.
    pub dst_x_in_bytes: usize,
    /// Destination row.
    pub dst_y: usize,
    /// Destination memory type.
    pub dst_memory_type: c_uint,
    /// Destination host pointer.
    pub dst_host: *mut c_void,
    /// Destination device pointer.
    pub dst_device: CUdeviceptr,
    /// Destination array (unsupported).
    pub dst_array: Handle,
    /// Destination pitch.
    pub dst_pitch: usize,
    /// Bytes per row.
    pub width_in_bytes: usize,
    /// Rows.
    pub height: usize,
}

/// `CUmemorytype` values.
pub mod memory_type {
    /// Host memory.
    pub const HOST: u32 = 1;
    /// Device memory.
    pub const DEVICE: u32 = 2;
    /// A CUDA array.
    pub const ARRAY: u32 = 3;
    /// Unified: host or device, by address.
    pub const UNIFIED: u32 = 4;
}

/// `CUjitInputType` values.
pub mod jit_input {
    /// A cubin.
    pub const CUBIN: u32 = 0;
    /// PTX text.
    pub const PTX: u32 = 1;
    /// A fat binary.
    pub const FATBINARY: u32 = 2;
    /// A host object with embedded device code.
    pub const OBJECT: u32 = 3;
    /// A host library.
    pub const LIBRARY: u32 = 4;
    /// NVVM IR.
    pub const NVVM: u32 = 5;
}

/// `CUjit_option` values the library reads.
pub mod jit_option {
    /// Maximum registers per thread.
    pub const MAX_REGISTERS: u32 = 0;
    /// Wall time of the compilation in milliseconds (output, a float).
    pub const WALL_TIME: u32 = 2;
    /// Info log buffer (in/out).
    pub const INFO_LOG_BUFFER: u32 = 3;
    /// Its size (in: capacity, out: bytes written).
    pub const INFO_LOG_BUFFER_SIZE_BYTES: u32 = 4;
    /// Error log buffer (in/out).
    pub const ERROR_LOG_BUFFER: u32 = 5;
    /// Its size.
    pub const ERROR_LOG_BUFFER_SIZE_BYTES: u32 = 6;
    /// Debug information (line tables in ptxc).
    pub const GENERATE_DEBUG_INFO: u32 = 11;
    /// Line information.
    pub const GENERATE_LINE_INFO: u32 = 13;
    /// Fused multiply-adds allowed (ptxas's `--fmad`).
    pub const FMA: u32 = 24;
}
