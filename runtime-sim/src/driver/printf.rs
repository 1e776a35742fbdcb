//! `vprintf`: the format string and the argument buffer a kernel passes, formatted as CUDA
//! formats them. The CUDA Programming Guide (section "Formatted Output") says the final
//! formatting "takes place on the host system", with the host's C library: so every
//! conversion is handed to the host's `snprintf`, one at a time, with an argument of the
//! type its length modifier names. The buffer packs the arguments in order, each at an offset
//! aligned to its size: `int`-sized integers and `%c` take 4 bytes; `l`, `ll`, `j`, `z`, `t`
//! integers, every floating conversion (promoted to `double`), `%s` and `%p` take 8 (as
//! nvcc's PTX and ptxas's SASS lay them out, `docs/CUBIN.md` section 11).

use crate::decoded::Decoded;
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::semantics::{Space, read_bytes};
use crate::exec::warp::Warp;
use std::ffi::CString;

/// The longest string `%s` or a format reads (longer ones are cut there).
const MAX_STRING: usize = 1 << 16;

/// Reads the NUL-terminated string at generic address `addr` for `lane`.
pub fn device_string(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, lane: usize, addr: u64) -> Result<Vec<u8>, SimError> {
    let mut out = Vec::new();
    let mut b = [0u8; 1];
    while out.len() < MAX_STRING {
        read_bytes(ctx, w, d, Space::Generic, lane, addr + out.len() as u64, &mut b)?;
        if b[0] == 0 {
            break;
        }
        out.push(b[0]);
    }
    Ok(out)
}

/// A length modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Length {
    /// None, `hh` or `h`: the value travels as an `int`.
    Int,
    /// `l`, `ll`, `j`, `z`, `t`, `q`: 64 bits.
    Long,
    /// `L` on a floating conversion (a `double` on the device).
    LongDouble,
}

/// One parsed conversion specification.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Spec {
    flags: String,
    width: Option<Count>,
    precision: Option<Count>,
    /// The length modifier as written (`hh`, `l`, ...).
    length_text: String,
    length: Length,
    conv: u8,
}

/// A width or precision: a number, or `*` (an `int` argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Count {
    Fixed(u32),
    Star,
}

/// A piece of a format string.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    /// Text copied as it is (`%%` already turned into `%`).
    Text(Vec<u8>),
    /// A conversion.
    Conv(Spec),
}

fn digits(f: &[u8], i: &mut usize) -> Option<u32> {
    let start = *i;
    while *i < f.len() && f[*i].is_ascii_digit() {
        *i += 1;
    }
    (start < *i).then(|| std::str::from_utf8(&f[start..*i]).ok()?.parse().ok())?
}

fn count(f: &[u8], i: &mut usize) -> Option<Count> {
    if f.get(*i) == Some(&b'*') {
        *i += 1;
        return Some(Count::Star);
    }
    digits(f, i).map(Count::Fixed)
}

/// Splits a format into text and conversions. An incomplete or unknown specification is
/// kept as text, as glibc prints it.
fn parse(f: &[u8]) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut text = Vec::new();
    let mut i = 0;
    while i < f.len() {
        if f[i] != b'%' {
            text.push(f[i]);
            i += 1;
            continue;
        }
        if f.get(i + 1) == Some(&b'%') {
            text.push(b'%');
            i += 2;
            continue;
        }
        let start = i;
        i += 1;
        let fl = i;
        while i < f.len() && b"-+ #0'".contains(&f[i]) {
            i += 1;
        }
        let flags = String::from_utf8_lossy(&f[fl..i]).into_owned();
        let width = count(f, &mut i);
        let precision = if f.get(i) == Some(&b'.') {
            i += 1;
            Some(count(f, &mut i).unwrap_or(Count::Fixed(0)))
        } else {
            None
        };
        let ls = i;
        while i < f.len() && b"hlLjztq".contains(&f[i]) {
            i += 1;
        }
        let length_text = String::from_utf8_lossy(&f[ls..i]).into_owned();
        let length = match length_text.as_str() {
            "" | "h" | "hh" => Length::Int,
            "L" => Length::LongDouble,
            _ => Length::Long,
        };
        match f.get(i) {
            Some(&c) if b"diouxXcsfFeEgGaApn".contains(&c) => {
                i += 1;
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(Piece::Conv(Spec {
                    flags,
                    width,
                    precision,
                    length_text,
                    length,
                    conv: c,
                }));
            }
            _ => text.extend_from_slice(&f[start..i]),
        }
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    out
}

/// Reads the argument buffer in order, each value at an offset aligned to its size.
struct Args<'b> {
    buf: &'b [u8],
    at: usize,
    /// Arguments read so far.
    taken: u32,
}

impl Args<'_> {
    fn take(&mut self, size: usize) -> u64 {
        self.taken += 1;
        self.at = self.at.next_multiple_of(size);
        let mut b = [0u8; 8];
        if let Some(s) = self.buf.get(self.at..self.at + size) {
            b[..size].copy_from_slice(s);
        }
        self.at += size;
        u64::from_le_bytes(b)
    }
}

/// An argument ready for the host's `snprintf`.
enum HostArg {
    Int(i32),
    Long(i64),
    Double(f64),
    Str(Option<CString>),
    Ptr(u64),
}

/// The bytes of argument buffer a format consumes (the record's payload).
fn arg_bytes(pieces: &[Piece]) -> usize {
    let mut at = 0usize;
    let mut take = |size: usize| at = at.next_multiple_of(size) + size;
    for p in pieces {
        if let Piece::Conv(s) = p {
            for c in [s.width, s.precision] {
                if c == Some(Count::Star) {
                    take(4);
                }
            }
            take(value_size(s));
        }
    }
    at
}

/// Bytes a conversion's value takes in the buffer.
fn value_size(s: &Spec) -> usize {
    match s.conv {
        b'c' => 4,
        b'd' | b'i' | b'o' | b'u' | b'x' | b'X' if s.length == Length::Int => 4,
        _ => 8,
    }
}

/// Formats one conversion with the host's C library.
fn host_format(spec: &str, arg: &HostArg) -> Vec<u8> {
    let Ok(fmt) = CString::new(spec) else {
        return spec.as_bytes().to_vec();
    };
    let call = |buf: *mut libc::c_char, n: usize| -> i32 {
        // SAFETY: `fmt` holds exactly one conversion, built by `format_one` from a parsed
        // specification whose length modifier matches the type passed here (`int` for `%d`
        // without modifier and `%c`, `long long` with `ll`, `double` for the floating
        // conversions, a NUL-terminated string or null for `%s`, a pointer for `%p`); `%n`
        // never reaches here. `buf` has room for `n` bytes (or is null with `n == 0`).
        unsafe {
            match arg {
                HostArg::Int(v) => libc::snprintf(buf, n, fmt.as_ptr(), *v as libc::c_int),
                HostArg::Long(v) => libc::snprintf(buf, n, fmt.as_ptr(), *v as libc::c_longlong),
                HostArg::Double(v) => libc::snprintf(buf, n, fmt.as_ptr(), *v),
                HostArg::Str(s) => libc::snprintf(
                    buf,
                    n,
                    fmt.as_ptr(),
                    s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
                ),
                HostArg::Ptr(p) => libc::snprintf(buf, n, fmt.as_ptr(), *p as usize as *const libc::c_void),
            }
        }
    };
    let len = call(std::ptr::null_mut(), 0);
    if len < 0 {
        return Vec::new();
    }
    let mut out = vec![0u8; len as usize + 1];
    call(out.as_mut_ptr().cast(), out.len());
    out.truncate(len as usize);
    out
}

/// One conversion: its arguments taken from the buffer, formatted on the host.
fn format_one(
    s: &Spec,
    args: &mut Args,
    string: &mut dyn FnMut(u64) -> Result<Option<Vec<u8>>, SimError>,
) -> Result<Vec<u8>, SimError> {
    let mut spec = format!("%{}", s.flags);
    for (c, prefix) in [(s.width, ""), (s.precision, ".")] {
        match c {
            None => {}
            Some(Count::Fixed(n)) => spec += &format!("{prefix}{n}"),
            Some(Count::Star) => spec += &format!("{prefix}{}", args.take(4) as u32 as i32),
        }
    }
    if s.conv == b'n' {
        // `%n` is not supported on the device; its pointer is skipped.
        args.take(8);
        return Ok(Vec::new());
    }
    let raw = args.take(value_size(s));
    let (length, arg) = match s.conv {
        b'c' => ("", HostArg::Int(raw as u32 as i32)),
        b'd' | b'i' | b'o' | b'u' | b'x' | b'X' => match s.length {
            Length::Long => ("ll", HostArg::Long(raw as i64)),
            _ => (s.length_text.as_str(), HostArg::Int(raw as u32 as i32)),
        },
        b's' => {
            let text = string(raw)?.map(|mut b| {
                b.retain(|&c| c != 0);
                CString::new(b).expect("NULs removed")
            });
            ("", HostArg::Str(text))
        }
        b'p' => ("", HostArg::Ptr(raw)),
        _ => ("", HostArg::Double(f64::from_bits(raw))),
    };
    spec += length;
    spec.push(s.conv as char);
    Ok(host_format(&spec, &arg))
}

/// Formats `format` with the argument buffer `buf`; `string` reads a device string (`None`
/// for a null pointer). Returns the text and the number of arguments read (`*` widths and
/// precisions included).
pub fn format(
    format: &[u8],
    buf: &[u8],
    string: &mut dyn FnMut(u64) -> Result<Option<Vec<u8>>, SimError>,
) -> Result<(Vec<u8>, u32), SimError> {
    let mut args = Args { buf, at: 0, taken: 0 };
    let mut out = Vec::new();
    for p in parse(format) {
        match p {
            Piece::Text(t) => out.extend_from_slice(&t),
            Piece::Conv(s) => out.extend(format_one(&s, &mut args, string)?),
        }
    }
    Ok((out, args.taken))
}

/// The number of argument-buffer bytes `format` reads.
pub fn buffer_size(format: &[u8]) -> usize {
    arg_bytes(&parse(format))
}

/// `vprintf(format, args)` for the lanes `t`, lowest lane first: each record goes to the
/// printf buffer; `R4` gets what CUDA's printf returns: the number of arguments parsed, or
/// -1 for a null format (CUDA Programming Guide, "Formatted Output").
pub fn vprintf(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, t: u32) -> Result<(), SimError> {
    for l in (0..32).filter(|l| t & (1 << l) != 0) {
        let fmt_addr = w.reg64(4, l);
        if fmt_addr == 0 {
            w.set_reg(4, l, -1i32 as u32);
            continue;
        }
        let fmt = device_string(ctx, w, d, l, fmt_addr)?;
        let size = buffer_size(&fmt);
        let base = w.reg64(6, l);
        let mut buf = vec![0u8; size];
        for (i, b) in buf.iter_mut().enumerate() {
            let mut one = [0u8; 1];
            read_bytes(ctx, w, d, Space::Generic, l, base + i as u64, &mut one)?;
            *b = one[0];
        }
        let (text, nargs) = {
            let mut string = |addr: u64| -> Result<Option<Vec<u8>>, SimError> {
                if addr == 0 {
                    return Ok(None);
                }
                device_string(ctx, w, d, l, addr).map(Some)
            };
            format(&fmt, &buf, &mut string)?
        };
        w.set_reg(4, l, nargs);
        let state = ctx.global.driver().expect("checked by the caller");
        let capacity = state.limits.printf_fifo_size;
        let record = (16 + size as u64).next_multiple_of(8);
        state
            .printf
            .push(record, String::from_utf8_lossy(&text).into_owned(), capacity);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(fmt: &str, buf: &[u8]) -> String {
        let mut none = |_: u64| Ok(None);
        String::from_utf8(format(fmt.as_bytes(), buf, &mut none).unwrap().0).unwrap()
    }

    #[test]
    fn packs_arguments_at_aligned_offsets() {
        // int at 0, double at 8, int at 16, long long at 24.
        let mut buf = Vec::new();
        buf.extend(7i32.to_le_bytes());
        buf.extend([0; 4]);
        buf.extend(2.5f64.to_le_bytes());
        buf.extend((-3i32).to_le_bytes());
        buf.extend([0; 4]);
        buf.extend((-5i64).to_le_bytes());
        assert_eq!(run("%d %.2f %x %lld|%%", &buf), "7 2.50 fffffffd -5|%");
        assert_eq!(buffer_size(b"%d %.2f %x %lld"), 32);
    }

    #[test]
    fn star_width_and_null_string() {
        let mut buf = Vec::new();
        buf.extend(6i32.to_le_bytes());
        buf.extend(42i32.to_le_bytes());
        buf.extend(0u64.to_le_bytes());
        assert_eq!(run("[%*d] %s", &buf), "[    42] (null)");
    }

    #[test]
    fn unknown_specification_is_text() {
        assert_eq!(run("%y %", &[]), "%y %");
    }
}
