//! Buffers as typed vectors: the element types of launch buffers and their conversions
//! to and from `.npy` arrays.

use ptxc::launch::Scalar;
use ptxc::npy::Array;

/// An element type of a buffer.
pub trait Elem: Copy {
    /// Its `.npy` dtype.
    const DTYPE: Scalar;
    /// Appends its little-endian bytes.
    fn put(self, out: &mut Vec<u8>);
    /// Reads it from its little-endian bytes.
    fn get(b: &[u8]) -> Self;
}

macro_rules! elem {
    ($t:ty, $s:expr) => {
        impl Elem for $t {
            const DTYPE: Scalar = $s;
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("element size"))
            }
        }
    };
}

elem!(u8, Scalar::U8);
elem!(i16, Scalar::I16);
elem!(u16, Scalar::U16);
elem!(i32, Scalar::I32);
elem!(u32, Scalar::U32);
elem!(i64, Scalar::I64);
elem!(u64, Scalar::U64);
elem!(f32, Scalar::F32);
elem!(f64, Scalar::F64);

/// `v` as an array.
pub fn array<T: Elem>(v: &[T]) -> Array {
    let mut bytes = Vec::with_capacity(v.len() * T::DTYPE.size());
    for &x in v {
        x.put(&mut bytes);
    }
    Array::new(T::DTYPE, bytes)
}

/// The elements of `a` read as `T` (whatever its dtype says).
pub fn values<T: Elem>(a: &Array) -> Vec<T> {
    a.bytes.chunks(T::DTYPE.size()).map(T::get).collect()
}
