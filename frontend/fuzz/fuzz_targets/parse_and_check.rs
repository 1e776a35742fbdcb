//! Any bytes: the front end returns a module or diagnostics, never panics; a parsed module
//! prints to text that parses again.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    match ptxc_frontend::parse(&src) {
        Ok(module) => {
            let _ = ptxc_frontend::check(&module);
            let printed = ptxc_frontend::print::module(&module);
            assert!(ptxc_frontend::parse(&printed).is_ok(), "printed text does not parse:\n{printed}");
        }
        Err(diags) => {
            let _ = ptxc_frontend::render_diagnostics("fuzz.ptx", &src, &diags);
        }
    }
});
