//! The device functions the CUDA driver provides (`.extern .func` declarations without a
//! body that ptxas compiles to an ABI call): `vprintf`, `malloc`, `free` and
//! `__assertfail`, with their signatures. A [`crate::ir::Opcode::CallDriver`] names one by
//! its index in [`DRIVER_FNS`] (`Aux::Imm`).

use super::types::Type;

/// A function the driver provides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DriverFn {
    /// `int vprintf(const char *format, void *args)`.
    Vprintf,
    /// `void *malloc(size_t)`.
    Malloc,
    /// `void free(void *)`.
    Free,
    /// `void __assertfail(const char *message, const char *file, unsigned line, const char
    /// *function, size_t charSize)`.
    AssertFail,
}

/// One driver function: its symbol, parameter types and result type.
#[derive(Clone, Copy, Debug)]
pub struct DriverSig {
    /// The function.
    pub f: DriverFn,
    /// Symbol name.
    pub name: &'static str,
    /// Parameter types, in order.
    pub params: &'static [Type],
    /// Result type (`None`: no result).
    pub ret: Option<Type>,
}

/// Every driver function ptxc calls.
pub const DRIVER_FNS: [DriverSig; 4] = [
    DriverSig {
        f: DriverFn::Vprintf,
        name: "vprintf",
        params: &[Type::I64, Type::I64],
        ret: Some(Type::I32),
    },
    DriverSig {
        f: DriverFn::Malloc,
        name: "malloc",
        params: &[Type::I64],
        ret: Some(Type::I64),
    },
    DriverSig {
        f: DriverFn::Free,
        name: "free",
        params: &[Type::I64],
        ret: None,
    },
    DriverSig {
        f: DriverFn::AssertFail,
        name: "__assertfail",
        params: &[Type::I64, Type::I64, Type::I32, Type::I64, Type::I64],
        ret: None,
    },
];

impl DriverFn {
    /// The function a symbol names.
    pub fn by_name(name: &str) -> Option<DriverFn> {
        DRIVER_FNS.iter().find(|s| s.name == name).map(|s| s.f)
    }

    /// Its row of [`DRIVER_FNS`].
    pub fn sig(self) -> &'static DriverSig {
        DRIVER_FNS.iter().find(|s| s.f == self).expect("listed")
    }

    /// Its index in [`DRIVER_FNS`] (the `Aux::Imm` of a call).
    pub fn index(self) -> u64 {
        DRIVER_FNS.iter().position(|s| s.f == self).expect("listed") as u64
    }

    /// The function at index `i` of [`DRIVER_FNS`].
    pub fn from_index(i: u64) -> Option<DriverFn> {
        DRIVER_FNS.get(i as usize).map(|s| s.f)
    }

    /// Its symbol name.
    pub fn name(self) -> &'static str {
        self.sig().name
    }
}
