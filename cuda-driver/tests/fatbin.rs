//! Fat binaries as NVIDIA's `fatbinary` 13.5 writes them (a test oracle, installed by
//! `scripts/cuda-oracle`), loaded through `cuModuleLoadData`: the sm_75 SASS is picked when
//! there is one, PTX is compiled by ptxc otherwise, Zstandard-compressed entries are
//! decompressed, and a fat binary with nothing for the device fails with
//! `CUDA_ERROR_NO_BINARY_FOR_GPU`.

use cuda::api::{context::*, init::*, launch::*, memory::*, module::*};
use cuda::types::{CUresult, Handle};
use std::path::{Path, PathBuf};
use std::process::Command;

const PTX: &str = ".version 8.0
.target sm_75
.address_size 64
.visible .entry twice(.param .u64 p, .param .u32 n)
{
  .reg .pred %p1;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r2, 4;
  add.u64 %rd2, %rd2, %rd3;
  ld.global.u32 %r3, [%rd2];
  shl.b32 %r4, %r3, 1;
  st.global.u32 [%rd2], %r4;
DONE:
  ret;
}
";

fn run(tool: &Path, args: &[&str]) {
    let o = Command::new(tool)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", tool.display()));
    assert!(
        o.status.success(),
        "{} {args:?}: {}",
        tool.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Builds the fat binaries in a scratch folder.
fn fatbins() -> PathBuf {
    let bin = ptxc_testkit::oracle_bin();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cuda-driver-fatbin");
    std::fs::create_dir_all(&dir).unwrap();
    let p = |f: &str| dir.join(f).to_string_lossy().into_owned();
    std::fs::write(dir.join("k.ptx"), PTX).unwrap();
    let ptx80 = PTX.replace(".target sm_75", ".target sm_80");
    std::fs::write(dir.join("k80.ptx"), ptx80).unwrap();
    let (ptxas, fatbinary) = (bin.join("ptxas"), bin.join("fatbinary"));
    run(&ptxas, &["-arch=sm_75", &p("k.ptx"), "-o", &p("k75.cubin")]);
    run(&ptxas, &["-arch=sm_80", &p("k80.ptx"), "-o", &p("k80.cubin")]);
    let image = |kind: &str, sm: u32, file: &str| format!("--image3=kind={kind},sm={sm},file={}", p(file));
    let sass_and_ptx = [
        image("elf", 80, "k80.cubin"),
        image("elf", 75, "k75.cubin"),
        image("ptx", 75, "k.ptx"),
    ];
    let mut args: Vec<String> = vec![format!("--create={}", p("sass.fatbin")), "--compress-all".into()];
    args.extend(sass_and_ptx);
    run(&fatbinary, &args.iter().map(String::as_str).collect::<Vec<_>>());
    for (name, compress) in [("ptx.fatbin", "--compress=false"), ("ptxz.fatbin", "--compress=true")] {
        let out = format!("--create={}", p(name));
        run(
            &fatbinary,
            &[
                &out,
                compress,
                &image("elf", 80, "k80.cubin"),
                &image("ptx", 70, "k.ptx"),
            ],
        );
    }
    let out = format!("--create={}", p("sm80.fatbin"));
    run(&fatbinary, &[&out, &image("elf", 80, "k80.cubin")]);
    dir
}

fn ok(r: CUresult) {
    assert_eq!(r, CUresult::CUDA_SUCCESS);
}

/// Loads `image` and runs `twice` on 1..=100; the result.
fn load_and_run(image: &[u8]) -> Result<Vec<u32>, CUresult> {
    let mut m: Handle = std::ptr::null_mut();
    let r = unsafe { cuModuleLoadData(&mut m, image.as_ptr().cast()) };
    if r != CUresult::CUDA_SUCCESS {
        return Err(r);
    }
    let mut f: Handle = std::ptr::null_mut();
    let host: Vec<u32> = (1..=100).collect();
    let mut back = vec![0u32; 100];
    let mut d = 0u64;
    unsafe {
        ok(cuModuleGetFunction(&mut f, m, c"twice".as_ptr()));
        ok(cuMemAlloc_v2(&mut d, 400));
        ok(cuMemcpyHtoD_v2(d, host.as_ptr().cast(), 400));
        let mut n = 100u32;
        let mut params = [(&mut d as *mut u64).cast(), (&mut n as *mut u32).cast()];
        ok(cuLaunchKernel(
            f,
            1,
            1,
            1,
            128,
            1,
            1,
            0,
            std::ptr::null_mut(),
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        ));
        ok(cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), d, 400));
        ok(cuMemFree_v2(d));
        ok(cuModuleUnload(m));
    }
    Ok(back)
}

#[test]
fn nvidia_fat_binaries_load_and_run() {
    let dir = fatbins();
    unsafe {
        ok(cuInit(0));
        let mut ctx: Handle = std::ptr::null_mut();
        ok(cuCtxCreate_v2(&mut ctx, 0, 0));
    }
    let want: Vec<u32> = (1..=100).map(|v| 2 * v).collect();
    for f in ["sass.fatbin", "ptx.fatbin", "ptxz.fatbin"] {
        let image = std::fs::read(dir.join(f)).unwrap();
        assert_eq!(
            load_and_run(&image).unwrap_or_else(|e| panic!("{f}: {e:?}")),
            want,
            "{f}"
        );
    }
    let entries = cuda::image::entries(&std::fs::read(dir.join("sass.fatbin")).unwrap()).unwrap();
    let kinds: Vec<(u16, u32)> = entries.iter().map(|e| (e.kind, e.arch)).collect();
    assert_eq!(kinds, [(2, 80), (2, 75), (1, 75)]);
    assert!(
        entries.iter().all(|e| e.payload.is_ok()),
        "every compressed entry decompresses"
    );
    let sass = cuda::image::select(&std::fs::read(dir.join("sass.fatbin")).unwrap(), 75).unwrap();
    assert!(matches!(sass, cuda::image::Image::Cubin(b) if b == std::fs::read(dir.join("k75.cubin")).unwrap()));
    let only80 = std::fs::read(dir.join("sm80.fatbin")).unwrap();
    assert_eq!(load_and_run(&only80), Err(CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU));
}
