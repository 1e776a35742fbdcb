//! `ptxc-ptxas`: ptxc's ptxas mode under any name (`ptxc ptxas ARGS...`), for tools that take
//! a ptxas path, such as Triton's `TRITON_PTXAS_PATH`, next to the driver library.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = ptxc::ptxas::run(&args, &mut std::io::stdout().lock(), &mut std::io::stderr().lock());
    ExitCode::from(code)
}
