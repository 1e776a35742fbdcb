//! Register allocation with regalloc2, run twice over the same VCode: once for the general
//! registers (class Int = single registers, Float = aligned pairs, Vector = aligned quads,
//! each class owning its own region of R0..R254, sized from the measured pressure) and once
//! for the predicates (class Int = P0..P6). See `regalloc2-on-sass.md`.

pub mod banks;
mod pressure;
mod regions;

pub use regions::Regions;

use crate::vcode::{File, VClass, VCode, View};
use regalloc2 as ra;

/// Why allocation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AllocError {
    /// regalloc2 reported an error (a back-end bug).
    #[error("kernel `{kernel}`: register allocation failed: {what}")]
    Internal { kernel: String, what: String },
    /// More registers are live than the file holds and spilling is not implemented yet.
    #[error("kernel `{kernel}`: {what} (spilling to local memory is not supported by this version of ptxc)")]
    NeedsSpill { kernel: String, what: String },
}

/// The result of both allocations.
pub struct Allocation {
    /// General-register allocation.
    pub gpr: ra::Output,
    /// Predicate allocation.
    pub pred: ra::Output,
    /// Where each general-register class lives.
    pub regions: Regions,
}

/// Largest number of single registers regalloc2's Int class can hold.
const MAX_SINGLES: usize = 63;

/// Allocates registers for `vcode`.
pub fn allocate(vcode: &VCode) -> Result<Allocation, AllocError> {
    let internal = |e: ra::RegAllocError| AllocError::Internal {
        kernel: vcode.name.clone(),
        what: format!("{e:?}"),
    };
    let need = pressure::max_live(vcode);
    let options = ra::RegallocOptions {
        verbose_log: false,
        validate_ssa: cfg!(debug_assertions),
        algorithm: ra::Algorithm::Ion,
    };

    let gpr_view = View::new(vcode, File::Gpr);
    let mut sizes = [need[&VClass::Single], need[&VClass::Pair], need[&VClass::Quad]];
    let gpr = loop {
        let regions = Regions::new(sizes[0], sizes[1], sizes[2]);
        if regions.total() > 255 || sizes[0] > MAX_SINGLES {
            return Err(AllocError::NeedsSpill {
                kernel: vcode.name.clone(),
                what: format!(
                    "{} live 32-bit values and {} live 64-bit values do not fit in 255 registers",
                    sizes[0], sizes[1]
                ),
            });
        }
        let out = ra::run(&gpr_view, &regions.machine_env(), &options).map_err(internal)?;
        match spilled_class(&out) {
            None => break (out, regions),
            Some(class) => sizes[class] += 1,
        }
    };

    let pred_view = View::new(vcode, File::Pred);
    let pred_env = machine_env_for([7, 0, 0]);
    let pred = ra::run(&pred_view, &pred_env, &options).map_err(internal)?;
    if spilled_class(&pred).is_some() {
        return Err(AllocError::NeedsSpill {
            kernel: vcode.name.clone(),
            what: "more than 7 predicates are live at once".into(),
        });
    }
    check(vcode, &gpr_view, &gpr.0, &gpr.1.machine_env())?;
    check(vcode, &pred_view, &pred, &pred_env)?;
    Ok(Allocation {
        gpr: gpr.0,
        pred,
        regions: gpr.1,
    })
}

/// The class index (0 Int, 1 Float, 2 Vector) of a value that went to a spill slot.
fn spilled_class(out: &ra::Output) -> Option<usize> {
    if out.num_spillslots == 0 && out.allocs.iter().all(|a| !a.is_stack()) {
        return None;
    }
    let class_of_stack = out.edits.iter().find_map(|(_, ra::Edit::Move { from, to })| {
        from.as_reg()
            .filter(|_| to.is_stack())
            .or_else(|| to.as_reg().filter(|_| from.is_stack()))
    });
    Some(class_of_stack.map_or(0, |r| r.class() as usize))
}

/// An environment with `n[class]` registers per class, numbered from 0.
pub fn machine_env_for(n: [usize; 3]) -> ra::MachineEnv {
    let set = |count: usize, class: ra::RegClass| {
        let mut s = ra::PRegSet::empty();
        for i in 0..count {
            s.add(ra::PReg::new(i, class));
        }
        s
    };
    ra::MachineEnv {
        preferred_regs_by_class: [
            set(n[0], ra::RegClass::Int),
            set(n[1], ra::RegClass::Float),
            set(n[2], ra::RegClass::Vector),
        ],
        non_preferred_regs_by_class: [ra::PRegSet::empty(); 3],
        scratch_by_class: [None; 3],
        fixed_stack_slots: Vec::new(),
    }
}

/// Runs regalloc2's checker on the result (feature `ra-checker`, enabled in tests).
#[cfg(feature = "ra-checker")]
fn check(vcode: &VCode, view: &View, out: &ra::Output, env: &ra::MachineEnv) -> Result<(), AllocError> {
    let mut checker = ra::checker::Checker::new(view, env);
    checker.prepare(out);
    checker.run().map_err(|e| AllocError::Internal {
        kernel: vcode.name.clone(),
        what: format!("checker: {e:?}"),
    })
}

#[cfg(not(feature = "ra-checker"))]
fn check(_: &VCode, _: &View, _: &ra::Output, _: &ra::MachineEnv) -> Result<(), AllocError> {
    Ok(())
}
