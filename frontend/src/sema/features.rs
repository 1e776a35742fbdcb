//! What ptxc refuses although it is valid PTX: instructions of later GPUs (with the sm they
//! need) and instructions ptxc does not implement.

/// Instructions that need a GPU newer than sm_75, with the first sm that has them.
const LATER_GPUS: &[(&str, u32)] = &[
    ("cp", 80),
    ("redux", 80),
    ("mbarrier", 80),
    ("createpolicy", 80),
    ("discard", 80),
    ("applypriority", 80),
    ("griddepcontrol", 90),
    ("elect", 90),
    ("setmaxnreg", 90),
    ("mapa", 90),
    ("getctarank", 90),
    ("stmatrix", 90),
    ("wgmma", 90),
    ("tensormap", 90),
    ("multimem", 90),
    ("clusterlaunchcontrol", 100),
    ("tcgen05", 100),
];

/// Valid PTX that ptxc does not compile.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("tex", "texture instructions are not supported"),
    ("tld4", "texture instructions are not supported"),
    ("txq", "texture instructions are not supported"),
    ("suld", "surface instructions are not supported"),
    ("sust", "surface instructions are not supported"),
    ("sured", "surface instructions are not supported"),
    ("suq", "surface instructions are not supported"),
    ("istypep", "texture and surface types are not supported"),
    ("alloca", "`alloca` is not supported"),
    ("stacksave", "`stacksave` is not supported"),
    ("stackrestore", "`stackrestore` is not supported"),
    ("brx", "indirect branches (`brx.idx`) are not supported"),
    ("fns", "`fns` is not supported"),
];

/// The message refusing `what`, which needs sm_`sm`, in a module whose `.target` is
/// sm_`target`: the target is too old, or ptxc does not implement it yet.
pub fn needs_sm(what: &str, sm: u32, target: u32) -> String {
    if target < sm {
        format!("`{what}` needs sm_{sm} (target is sm_{target})")
    } else {
        format!("`{what}` (sm_{sm} on) is not supported by ptxc yet (target is sm_{target})")
    }
}

/// The first sm that has `opcode`, if it is newer than sm_75.
pub fn first_sm(opcode: &str) -> Option<u32> {
    LATER_GPUS.iter().find(|(n, _)| *n == opcode).map(|&(_, sm)| sm)
}

/// The message refusing `opcode` (written with `first_modifier`) in a module whose `.target`
/// is sm_`target`, if it is refused.
pub fn refusal(opcode: &str, first_modifier: Option<&str>, target: u32) -> Option<String> {
    if let Some((_, sm)) = LATER_GPUS.iter().find(|(n, _)| *n == opcode) {
        let shown = match first_modifier {
            Some(m) if opcode == "cp" || opcode == "mbarrier" => format!("{opcode}.{m}"),
            _ => opcode.to_string(),
        };
        return Some(needs_sm(&shown, *sm, target));
    }
    UNSUPPORTED
        .iter()
        .find(|(n, _)| *n == opcode)
        .map(|(_, m)| format!("{m} by ptxc"))
}
