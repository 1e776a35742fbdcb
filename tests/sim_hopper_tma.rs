//! Hopper's bulk copies and TMA on the simulator (`tests/hopper_tma/*.ptx`, ptxas's sm_90a
//! cubins, both engines): `cp.async.bulk` between global and shared memory with an mbarrier's
//! transaction count and a bulk group (also ptxc's cubin, checked against nvdisasm, and the
//! MIR engine); `cp.async.bulk.tensor.2d` loads and stores (ptxas's and ptxc's cubins) through
//! tensor maps given in the launch specification, with boxes partly outside the tensor, the
//! 128-byte swizzle and the NaN fill. Every result is checked against a host reference of
//! the PTX ISA's and `cuTensorMapEncodeTiled`'s definitions.

mod common;

use common::*;
use std::path::{Path, PathBuf};

/// ptxas's sm_90a cubin of `tests/hopper_tma/<name>.ptx`, in `dir`.
fn cubin(name: &str, dir: &Path) -> PathBuf {
    let ptx = root().join(format!("tests/hopper_tma/{name}.ptx"));
    let out = dir.join(format!("{name}.cubin"));
    ptxas_for("sm_90a", &ptx, &out);
    out
}

/// ptxas's and ptxc's sm_90a cubins of `tests/hopper_tma/<name>.ptx`, in `dir`; ptxc's
/// SASS must hold each of `forms` as nvdisasm prints it.
fn both(name: &str, dir: &Path, forms: &[&str]) -> [PathBuf; 2] {
    let theirs = cubin(name, dir);
    let ptx = root().join(format!("tests/hopper_tma/{name}.ptx"));
    let ours = dir.join(format!("{name}.ptxc.cubin"));
    let o = ptxc_compile("sm_90a", &ptx, &ours);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let sass = text(&oracle("nvdisasm", &["-c", ours.to_str().unwrap()]).stdout);
    for form in forms {
        assert!(sass.contains(form), "ptxc's SASS of {name} lacks `{form}`:\n{sass}");
    }
    [theirs, ours]
}

const ENGINES: [&str; 2] = ["functional", "timed"];

#[test]
fn bulk_copies_move_bytes_both_ways_and_complete_their_transaction_count() {
    let dir = scratch("sim_hopper_tma_bulk");
    let cubin = cubin("bulk_copy", &dir);
    let spec = "kernel = \"bulk_copy\"\ngrid = [1]\nblock = [256]\nparams = [ { ptr = \"out\" }, { ptr = \"inp\" } ]\n\
                [buffers.out]\ndtype = \"u32\"\nlen = 256\n\
                [buffers.inp]\ndtype = \"u32\"\nlen = 256\nrandom = { seed = 7, min = 0, max = 100000 }\n";
    let ptx = root().join("tests/hopper_tma/bulk_copy.ptx");
    let ours = dir.join("bulk_copy.ptxc.cubin");
    let o = ptxc_compile("sm_90a", &ptx, &ours);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let sass = text(&oracle("nvdisasm", &["-c", ours.to_str().unwrap()]).stdout);
    for form in [
        "UBLKCP.S.G [UR4], [UR6], UR8",
        "UBLKCP.G.S [UR4], [UR6], UR8",
        "UTMACMDFLUSH",
        "DEPBAR.LE SB0, 0x0",
    ] {
        assert!(sass.contains(form), "ptxc's SASS lacks `{form}`:\n{sass}");
    }
    let runs = [
        (&cubin, "functional"),
        (&cubin, "timed"),
        (&ours, "functional"),
        (&ours, "timed"),
        (&ptx, "mir"),
    ];
    for (input, engine) in runs {
        let b = run_words(&dir, input, spec, engine, &["out", "inp"]);
        let expected: Vec<u32> = b[1].iter().map(|v| v + 1).collect();
        assert_eq!(b[0], expected, "{} on {engine}", input.display());
    }
}

/// The tile a 32x32 box of 32-bit words at (x, y) of a `w` x `h` tensor `t` leaves in shared
/// memory: row-major, out-of-bounds words `fill`, with the 128-byte swizzle if `swizzled`
/// (16-byte chunk `c` of 128-byte row `r` at chunk `c ^ (r % 8)`; the tile is 1024-aligned).
fn expected_tile(t: &[u32], (w, h): (i64, i64), (x, y): (i64, i64), fill: u32, swizzled: bool) -> Vec<u32> {
    let mut tile = vec![0u32; 1024];
    for r in 0..32i64 {
        for c in 0..32i64 {
            let (gx, gy) = (x + c, y + r);
            let v = if (0..w).contains(&gx) && (0..h).contains(&gy) {
                t[(gy * w + gx) as usize]
            } else {
                fill
            };
            let logical = (r * 128 + c * 4) as usize;
            let physical = if swizzled {
                logical ^ ((logical >> 7) & 7) << 4
            } else {
                logical
            };
            tile[physical / 4] = v;
        }
    }
    tile
}

#[test]
fn tma_loads_boxes_with_out_of_bounds_fill_and_swizzle() {
    let dir = scratch("sim_hopper_tma_load");
    let cubins = both("tma_load_2d", &dir, &["UTMALDG.2D [UR4], [UR12]"]);
    // (tensor map options, coordinates, fill word, swizzled)
    let cases: [(&str, (i64, i64), u32, bool); 3] = [
        ("", (0, 0), 0, false),
        ("", (16, 40), 0, false),
        (", swizzle = \"128B\", fill = \"nan\"", (-4, 2), 0x7fff_ffff, true),
    ];
    for (options, (x, y), fill, swizzled) in cases {
        let spec = format!(
            "kernel = \"tma_load_2d\"\ngrid = [1]\nblock = [256]\n\
             params = [ {{ ptr = \"out\" }}, {{ tensormap = {{ buffer = \"t\", dtype = \"f32\", dims = [40, 60], box = [32, 32]{options} }} }}, {{ i32 = {x} }}, {{ i32 = {y} }} ]\n\
             [buffers.out]\ndtype = \"u32\"\nlen = 1024\n\
             [buffers.t]\ndtype = \"u32\"\nlen = 2400\nrandom = {{ seed = 3, min = 0, max = 1000000 }}\n"
        );
        for (cubin, engine) in cubins.iter().flat_map(|c| ENGINES.map(|e| (c, e))) {
            let b = run_words(&dir, cubin, &spec, engine, &["out", "t"]);
            let expected = expected_tile(&b[1], (40, 60), (x, y), fill, swizzled);
            assert_eq!(
                b[0],
                expected,
                "{} on {engine}: box at ({x}, {y}){options}",
                cubin.display()
            );
        }
    }
}

#[test]
fn tma_stores_write_the_box_inside_the_tensor_only() {
    let dir = scratch("sim_hopper_tma_store");
    let cubins = both("tma_store_2d", &dir, &["UTMASTG.2D [UR4], [UR12]", "UTMACMDFLUSH"]);
    let (x, y) = (16i64, 40i64);
    let spec = format!(
        "kernel = \"tma_store_2d\"\ngrid = [1]\nblock = [256]\n\
         params = [ {{ tensormap = {{ buffer = \"t\", dtype = \"u32\", dims = [40, 60], box = [32, 32] }} }}, {{ i32 = {x} }}, {{ i32 = {y} }} ]\n\
         [buffers.t]\ndtype = \"u32\"\nlen = 2400\n"
    );
    for (cubin, engine) in cubins.iter().flat_map(|c| ENGINES.map(|e| (c, e))) {
        let b = run_words(&dir, cubin, &spec, engine, &["t"]);
        for gy in 0..60i64 {
            for gx in 0..40i64 {
                let (r, c) = (gy - y, gx - x);
                let inside = (0..32).contains(&r) && (0..32).contains(&c);
                let want = if inside { (r * 32 + c) as u32 + 1000 } else { 0 };
                let what = cubin.display();
                assert_eq!(
                    b[0][(gy * 40 + gx) as usize],
                    want,
                    "{what} on {engine}: element ({gx}, {gy})"
                );
            }
        }
    }
}

#[test]
fn a_tensor_map_that_does_not_fit_its_limits_is_refused_with_its_parameter() {
    let dir = scratch("sim_hopper_tma_bad_map");
    let cubin = cubin("tma_load_2d", &dir);
    // 36-byte rows are not a multiple of 16 bytes.
    let spec = "kernel = \"tma_load_2d\"\ngrid = [1]\nblock = [256]\n\
                params = [ { ptr = \"out\" }, { tensormap = { buffer = \"t\", dtype = \"f32\", dims = [40, 60], box = [9, 32] } }, { i32 = 0 }, { i32 = 0 } ]\n\
                [buffers.out]\ndtype = \"u32\"\nlen = 1024\n[buffers.t]\ndtype = \"u32\"\nlen = 2400\n";
    let toml = dir.join("bad.toml");
    std::fs::write(&toml, spec).unwrap();
    let o = ptxc(&["run", cubin.to_str().unwrap(), "--launch", toml.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("params[1].tensormap") && err.contains("multiple of 16"),
        "{err}"
    );
}
