//! The `.debug_frame` written when the module brings none: ptxas' CIE for kernels and one
//! FDE per kernel covering its code, without call-frame instructions.
//!
//! ptxas' FDE programs depend on its own code layout (they mark the stack-pointer set-up and
//! the exits); an FDE without instructions is valid DWARF and accepted by the tools.

use crate::cubin::model::{CubinModule, RawSection};
use crate::cubin::names::DEBUG_FRAME;
use crate::cubin::reloc::{Reloc, RelocKind};

/// ptxas' CIE for kernels (64-bit DWARF, version 3, code alignment 4, data alignment -4,
/// return address register 0xffffffff, `def_cfa R1+0; same_value R255; same_value R1`).
const KERNEL_CIE: [u8; 48] = [
    0xff, 0xff, 0xff, 0xff, 0x24, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03, 0x00,
    0x04, 0x7c, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0c, 0x81, 0x80, 0x80, 0x28, 0x00, 0x08, 0xff, 0x81, 0x80, 0x28, 0x08,
    0x81, 0x80, 0x80, 0x28, 0x00, 0x00, 0x00,
];

/// Bytes after the 64-bit length field of an FDE: CIE pointer, location, range, 4 `DW_CFA_nop`.
const FDE_LENGTH: u64 = 8 + 8 + 8 + 4;
/// Offset of the location field from the start of an FDE.
const FDE_LOCATION_OFFSET: u64 = 4 + 8 + 8;

/// One FDE per kernel, relocated against the kernel symbol (`R_CUDA_64`).
pub fn default_debug_frame(m: &CubinModule) -> RawSection {
    let mut frame = RawSection::progbits(DEBUG_FRAME, Vec::new());
    if m.kernels.is_empty() {
        return frame;
    }
    frame.data.extend_from_slice(&KERNEL_CIE);
    for k in &m.kernels {
        let start = frame.data.len() as u64;
        frame.data.extend_from_slice(&[0xff; 4]);
        frame.data.extend_from_slice(&FDE_LENGTH.to_le_bytes());
        frame.data.extend_from_slice(&0u64.to_le_bytes());
        frame.data.extend_from_slice(&0u64.to_le_bytes());
        frame.data.extend_from_slice(&(k.code.len() as u64).to_le_bytes());
        frame.data.extend_from_slice(&[0; 4]);
        frame.relocs.push(Reloc::new(
            start + FDE_LOCATION_OFFSET,
            RelocKind::R_CUDA_64,
            k.name.clone(),
        ));
    }
    // ptxas lists these relocations last FDE first.
    frame.relocs.reverse();
    frame
}
