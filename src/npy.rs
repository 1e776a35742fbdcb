//! `.npy` files of arrays of the launch spec's scalar kinds, as raw little-endian bytes in C
//! order with their shape.

use crate::launch::Scalar;
use std::path::Path;

/// An array read from or written to a `.npy` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    /// Element kind.
    pub dtype: Scalar,
    /// Little-endian element bytes, in C order.
    pub bytes: Vec<u8>,
    /// Dimensions, outermost first (`[len]` for a one-dimensional array, `[]` for a scalar).
    pub shape: Vec<usize>,
}

impl Array {
    /// A one-dimensional array of `bytes`.
    pub fn new(dtype: Scalar, bytes: Vec<u8>) -> Array {
        let shape = vec![bytes.len() / dtype.size()];
        Array { dtype, bytes, shape }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.bytes.len() / self.dtype.size()
    }

    /// True if the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// The npy type string of a scalar kind.
fn descr(s: Scalar) -> &'static str {
    match s {
        Scalar::U8 => "|u1",
        Scalar::I8 => "|i1",
        Scalar::U16 => "<u2",
        Scalar::I16 => "<i2",
        Scalar::U32 => "<u4",
        Scalar::I32 => "<i4",
        Scalar::U64 => "<u8",
        Scalar::I64 => "<i8",
        Scalar::F16 => "<f2",
        Scalar::F32 => "<f4",
        Scalar::F64 => "<f8",
    }
}

fn scalar_of(type_str: &str) -> Option<Scalar> {
    let t = type_str.replace('=', "<");
    [
        Scalar::U8,
        Scalar::I8,
        Scalar::U16,
        Scalar::I16,
        Scalar::U32,
        Scalar::I32,
        Scalar::U64,
        Scalar::I64,
        Scalar::F16,
        Scalar::F32,
        Scalar::F64,
    ]
    .into_iter()
    .find(|&s| descr(s) == t || descr(s).replace('|', "<") == t)
}

/// Reads an array of any shape (C order, or Fortran order when it has one dimension).
pub fn read(path: &Path) -> Result<Array, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = npyz::NpyFile::new(&bytes[..]).map_err(|e| format!("{}: not a .npy file: {e}", path.display()))?;
    if file.order() == npyz::Order::Fortran && file.shape().len() > 1 {
        return Err(format!("{}: Fortran-order arrays are not supported", path.display()));
    }
    let type_str = match file.dtype() {
        npyz::DType::Plain(t) => t.to_string(),
        other => return Err(format!("{}: unsupported dtype {other:?}", path.display())),
    };
    let dtype = scalar_of(&type_str).ok_or_else(|| {
        format!(
            "{}: unsupported dtype `{type_str}` (use u8..u64, i8..i64, f16, f32, f64)",
            path.display()
        )
    })?;
    let shape: Vec<usize> = file.shape().iter().map(|&d| d as usize).collect();
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let out: Vec<u8> = match dtype {
        Scalar::U8 => file.into_vec::<u8>().map_err(err)?,
        Scalar::I8 => file.into_vec::<i8>().map_err(err)?.iter().map(|v| *v as u8).collect(),
        Scalar::U16 => le(file.into_vec::<u16>().map_err(err)?, |v| v.to_le_bytes()),
        Scalar::I16 => le(file.into_vec::<i16>().map_err(err)?, |v| v.to_le_bytes()),
        Scalar::U32 => le(file.into_vec::<u32>().map_err(err)?, |v| v.to_le_bytes()),
        Scalar::I32 => le(file.into_vec::<i32>().map_err(err)?, |v| v.to_le_bytes()),
        Scalar::U64 => le(file.into_vec::<u64>().map_err(err)?, |v| v.to_le_bytes()),
        Scalar::I64 => le(file.into_vec::<i64>().map_err(err)?, |v| v.to_le_bytes()),
        Scalar::F16 => le(file.into_vec::<half::f16>().map_err(err)?, |v| v.to_le_bytes()),
        Scalar::F32 => le(file.into_vec::<f32>().map_err(err)?, |v| v.to_le_bytes()),
        Scalar::F64 => le(file.into_vec::<f64>().map_err(err)?, |v| v.to_le_bytes()),
    };
    Ok(Array {
        dtype,
        bytes: out,
        shape,
    })
}

/// The shape as a Python tuple (`(4, 6)`, `(24,)`, `()`); an array whose shape does not
/// match its length is written as one-dimensional.
fn shape_tuple(a: &Array) -> String {
    let shape: &[usize] = &a.shape;
    if shape.iter().product::<usize>() != a.len() {
        return format!("({},)", a.len());
    }
    match shape {
        [n] => format!("({n},)"),
        dims => format!(
            "({})",
            dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn le<T, const N: usize>(v: Vec<T>, f: impl Fn(&T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(f).collect()
}

/// Writes an array with its shape.
pub fn write(path: &Path, a: &Array) -> Result<(), String> {
    let mut out = Vec::new();
    write_raw(&mut out, a);
    std::fs::write(path, out).map_err(|e| format!("{}: {e}", path.display()))
}

/// The .npy v1.0 encoding: magic, header dictionary padded to 64 bytes, raw data (read back
/// with npyz in the tests).
fn write_raw(out: &mut Vec<u8>, a: &Array) {
    let header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
        descr(a.dtype),
        shape_tuple(a)
    );
    let unpadded = 10 + header.len() + 1;
    let padded = unpadded.div_ceil(64) * 64;
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&((padded - 10) as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend(std::iter::repeat_n(b' ', padded - unpadded));
    out.push(b'\n');
    out.extend_from_slice(&a.bytes);
}
