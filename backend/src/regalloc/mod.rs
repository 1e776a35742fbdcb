//! Register allocation with regalloc2, run twice over the same VCode: once for the general
//! registers (class Int = single registers, Float = aligned pairs, Vector = aligned quads,
//! each class owning its own region of R0..R254) and once for the predicates (class Int =
//! P0..P6). See `docs/REGALLOC.md`.
//!
//! The regions are sized once, before regalloc2 runs, from the pressure one liveness scan
//! measures (`pressure::max_live`): each class gets the most values of it live at an
//! instruction, none if the code has no values of it, shrunk to the register limit; the
//! stack pointer is reserved up front when even the point lower bound exceeds the limit
//! (spills are then certain). regalloc2 runs once; only if it spills do the regions change,
//! at most twice (`MAX_GPR_RUNS`): the stack pointer is reserved and the classes that
//! spilled grow into the room left, first by their measured shortfall (spill slots used),
//! then by all of it. The adjustment stays because regalloc2's Ion algorithm is not an
//! optimal colourer: at the measured pressure it still spills in a few kernels
//! (`spill_pressure` of `tests/kernels` needed five more registers), and those would otherwise
//! keep spills they do not need.

mod bank_costs;
pub mod banks;
pub mod compact;
mod demote;
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
    /// The kernel cannot be allocated within the register limit (or needs predicates spilled).
    #[error("kernel `{kernel}`: {what}")]
    TooFewRegisters { kernel: String, what: String },
    /// More uniform values are live at once than there are free uniform registers (which do
    /// not spill): the kernel is compiled again without them (`compile.rs`).
    #[error("kernel `{kernel}`: more uniform values live at once than uniform registers")]
    UniformSpill { kernel: String },
}

/// The thread's stack frame: local variables, then spill slots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// The register reserved as stack pointer, if there is a frame.
    pub sp: Option<u8>,
    /// Offset of spill slot 0.
    pub spill_base: u32,
    /// Frame size in bytes (a multiple of 8).
    pub size: u32,
    /// Offset of the area where a call keeps every register (4 bytes each) and then the
    /// predicates (4 bytes); 0 without calls.
    pub call_save: u32,
    /// In a device function, the offset of the link area: its return address, then the
    /// caller's argument area's address (8 bytes each, `emit/function.rs`); 0 in a kernel.
    pub link: u32,
}

/// The result of both allocations.
pub struct Allocation {
    /// General-register allocation.
    pub gpr: ra::Output,
    /// Predicate allocation.
    pub pred: ra::Output,
    /// Uniform-register allocation, if the code has uniform values (regalloc2's register
    /// index is the UR number).
    pub uniform: Option<ra::Output>,
    /// Where each general-register class lives.
    pub regions: Regions,
    /// The stack frame.
    pub frame: Frame,
    /// The register limit actually applied, when the requested one was below what the
    /// kernel's widest instructions need (ptxas likewise raises `-maxrregcount`).
    pub raised_limit: Option<u32>,
}

/// Registers the cubin's count includes beyond the highest one used (ptxas' convention).
const COUNT_EXTRA: usize = ptxc_sass::cubin::EXTRA_REGISTERS as usize;

/// The value classes of the general registers, in the order of the size arrays.
const CLASSES: [VClass; 3] = [VClass::Single, VClass::Pair, VClass::Quad];

/// Most regalloc2 runs for the general registers: the run sized from the pressure and at
/// most two adjustments after spills (see `allocate`).
const MAX_GPR_RUNS: usize = 3;

/// Largest number of registers regalloc2 can hold per class (single, pair, quad).
const CLASS_CAP: [usize; 3] = [63, 64, 64];
/// Width in registers of the classes (single, pair, quad).
const WIDTH: [usize; 3] = [1, 2, 4];

fn footprint(sizes: &[usize; 3]) -> usize {
    sizes.iter().zip(WIDTH).map(|(n, w)| n * w).sum()
}

/// The most registers of each class one instruction reads or writes (regalloc2 needs that
/// many to exist): at least 1 for a class the code has values of, 0 for the others.
fn minimum_sizes(vcode: &VCode, used: [bool; 3]) -> [usize; 3] {
    let mut min = [0usize; 3];
    for inst in &vcode.insts {
        let mut n = [0usize; 3];
        inst.for_each_reg(|v, _| match vcode.class(v) {
            VClass::Single => n[0] += 1,
            VClass::Pair => n[1] += 1,
            VClass::Quad => n[2] += 1,
            VClass::Pred | VClass::Uniform | VClass::UniformPair | VClass::Fixed(_) => {}
        });
        for k in 0..3 {
            min[k] = min[k].max(n[k]);
        }
    }
    std::array::from_fn(|k| if used[k] { min[k].max(1) } else { 0 })
}

/// True if the code addresses the stack frame.
fn uses_stack(vcode: &VCode) -> bool {
    vcode.local_bytes > 0
        || has_calls(vcode)
        || vcode.device_function
        || vcode.insts.iter().any(|i| {
            let mut found = false;
            i.for_each_op(|op| found |= matches!(op, crate::vcode::MOp::Sp | crate::vcode::MOp::SpMem { .. }));
            found
        })
}

/// True if the code calls driver functions.
fn has_calls(vcode: &VCode) -> bool {
    vcode.insts.iter().any(|i| i.is_call())
}

/// Shrinks `sizes` until they fit in `budget` registers, taking from the class with the
/// largest footprint above its minimum; `None` if the minimums do not fit.
fn fit(mut sizes: [usize; 3], min: [usize; 3], budget: usize) -> Option<[usize; 3]> {
    while footprint(&sizes) > budget {
        let k = (0..3)
            .filter(|&k| sizes[k] > min[k])
            .max_by_key(|&k| (sizes[k] - min[k]) * WIDTH[k])?;
        sizes[k] -= 1;
    }
    Some(sizes)
}

/// The indices of the set bits of a bit set stored as 64-bit words, in increasing order.
fn set_bits(words: &[u64]) -> impl Iterator<Item = u32> + '_ {
    words.iter().enumerate().flat_map(|(k, &word)| {
        let mut bits = word;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let b = bits.trailing_zeros();
                bits &= bits - 1;
                k as u32 * 64 + b
            })
        })
    })
}

/// Most rounds of predicate demotion before giving up.
const DEMOTION_ROUNDS: usize = 12;

/// Allocates the predicates onto P0..P6, first demoting the longest-lived predicates to
/// general registers (rewriting `vcode`) while more than seven are live at once.
fn allocate_predicates(vcode: &mut VCode, options: &ra::RegallocOptions) -> Result<ra::Output, AllocError> {
    let env = machine_env_for([7, 0, 0]);
    for _ in 0..DEMOTION_ROUNDS {
        // Where more than seven predicates are live at once regalloc2 would spill: demote
        // without asking it.
        if pressure::pred_lower_bound(vcode) <= 7 {
            let out = ra::run(&View::new(vcode, File::Pred), &env, options).map_err(|e| AllocError::Internal {
                kernel: vcode.name.clone(),
                what: format!("{e:?}"),
            })?;
            if spilled_class(&out).is_none() {
                return Ok(out);
            }
        }
        let candidates = demote::candidates(vcode);
        if candidates.is_empty() {
            break;
        }
        // The cheapest cover of the crowded points, else (no candidate is live at one) a
        // quarter of the candidates, longest-lived first.
        let chosen = demote::cheapest_cover(vcode, &candidates, &pressure::pred_crowding(vcode));
        let demoted = if chosen.is_empty() {
            &candidates[..candidates.len().div_ceil(4)]
        } else {
            &chosen[..]
        };
        demote::demote(vcode, demoted);
    }
    Err(AllocError::TooFewRegisters {
        kernel: vcode.name.clone(),
        what: "more than 7 predicates stay live at once even after moving the longest-lived ones to general registers"
            .into(),
    })
}

/// Allocates registers for `vcode` so that its register count (as ptxas counts: highest
/// register + 3) is at most `max_registers`, spilling to local memory what does not fit.
/// Predicates that do not fit in P0..P6 are first moved to general registers, which
/// rewrites `vcode`.
pub fn allocate(vcode: &mut VCode, max_registers: u32) -> Result<Allocation, AllocError> {
    let options = ra::RegallocOptions {
        verbose_log: false,
        validate_ssa: cfg!(debug_assertions),
        algorithm: ra::Algorithm::Ion,
    };
    let pred = allocate_predicates(vcode, &options)?;
    let vcode: &VCode = vcode;
    let internal = |e: ra::RegAllocError| AllocError::Internal {
        kernel: vcode.name.clone(),
        what: format!("{e:?}"),
    };
    let too_few = |what: String| AllocError::TooFewRegisters {
        kernel: vcode.name.clone(),
        what,
    };
    let pressure = pressure::max_live(vcode);
    let per_class = |counts: &[usize; 4]| CLASSES.map(|c| pressure::Pressure::of(counts, c));
    let used = per_class(&pressure.values).map(|n| n > 0);
    let min = minimum_sizes(vcode, used);
    let uses_stack = uses_stack(vcode);
    // A spill needs the stack pointer, so the floor includes it.
    // Registers R0.. of the pinned accumulators come first; the regions follow them.
    let reserved = vcode.reserved as usize;
    let floor = footprint(&min) + 1 + COUNT_EXTRA + reserved;
    let requested = (max_registers as usize).min(255 + COUNT_EXTRA);
    let raised_limit = (requested < floor).then_some(floor as u32);
    let limit = requested.max(floor) - COUNT_EXTRA - reserved;
    let cap = |n: [usize; 3]| std::array::from_fn::<usize, 3, _>(|k| n[k].min(CLASS_CAP[k]));
    let wanted = std::array::from_fn(|k| {
        if used[k] {
            per_class(&pressure.wanted)[k].max(1)
        } else {
            0
        }
    });
    let wanted = cap(wanted);
    let lower = cap(per_class(&pressure.lower));
    let gpr_view = View::new(vcode, File::Gpr);
    let fits = |sizes: [usize; 3], budget: usize| {
        fit(sizes, min, budget).ok_or_else(|| too_few(format!("does not fit in {limit} registers")))
    };
    // Where even the lower bound does not fit, regalloc2 must spill: the stack pointer is
    // reserved before the first run instead of after it.
    let spills_certain = footprint(&lower) > limit;
    let mut sizes = fits(wanted, limit - usize::from(uses_stack || spills_certain))?;
    let mut runs = 0;
    let (gpr, regions) = loop {
        let regions = Regions::new(sizes[0], sizes[1], sizes[2]).after(reserved);
        let out = ra::run(&gpr_view, &regions.machine_env(), &options).map_err(internal)?;
        runs += 1;
        let Some(spilled) = spilled_per_class(&out) else {
            break (out, regions);
        };
        if runs == MAX_GPR_RUNS {
            break (out, regions);
        }
        // Adjust: the spills need the stack pointer after the regions, and the room left
        // beside it goes to the classes that spilled, on the first adjustment as many
        // registers as each filled spill slots (the measured shortfall), on the last all
        // of it. (regalloc2 is not an optimal colourer: it can spill with room to spare.)
        let budget = limit - 1;
        let mut next = fits(sizes, budget)?;
        let mut room = budget - footprint(&next);
        let mut order = [0, 1, 2];
        order.sort_by_key(|&k| std::cmp::Reverse(spilled[k] * WIDTH[k]));
        for k in order.into_iter().filter(|&k| spilled[k] > 0) {
            let step = if runs + 1 == MAX_GPR_RUNS {
                usize::MAX
            } else {
                spilled[k]
            };
            let step = step.min(room / WIDTH[k]).min(CLASS_CAP[k] - next[k]);
            next[k] += step;
            room -= step * WIDTH[k];
        }
        if next == sizes {
            break (out, regions);
        }
        sizes = next;
    };
    let with_sp = uses_stack || spilled_class(&gpr).is_some();

    let uniform = allocate_uniform(vcode, &options)?;
    let pred_view = View::new(vcode, File::Pred);
    let pred_env = machine_env_for([7, 0, 0]);
    check(vcode, &gpr_view, &gpr, &regions.machine_env())?;
    check(vcode, &pred_view, &pred, &pred_env)?;
    let frame = frame(vcode, &gpr, &regions, with_sp);
    Ok(Allocation {
        gpr,
        pred,
        uniform,
        regions,
        frame,
        raised_limit,
    })
}

/// Allocates the uniform values onto the uniform registers no instruction names itself
/// (`isel::FIXED_UR` and the registers after it), the pair values onto as many pairs set
/// apart (`uniform/pointers.rs` promotes few); None without uniform values.
fn allocate_uniform(vcode: &VCode, options: &ra::RegallocOptions) -> Result<Option<ra::Output>, AllocError> {
    if !vcode.classes.contains(&VClass::Uniform) && !vcode.classes.contains(&VClass::UniformPair) {
        return Ok(None);
    }
    let mut named = [false; 64];
    for inst in &vcode.insts {
        inst.for_each_op(|op| match op {
            crate::vcode::MOp::Fixed(ptxc_sass::isa::Value::UReg(r))
            | crate::vcode::MOp::Mem { uniform: Some(r), .. }
            | crate::vcode::MOp::Fixed(ptxc_sass::isa::Value::Mem { uniform: Some(r), .. }) => {
                // Tuples (descriptors, policy pairs, matrix descriptors) span up to 4.
                for k in 0..4 {
                    named[usize::from(*r + k).min(63)] = true;
                }
            }
            _ => {}
        });
    }
    // The pairs get the highest free even-aligned pairs, as many as there are pair values
    // (so they never spill), the singles the rest: regalloc2 does not know that the classes
    // share registers.
    let pairs_wanted = vcode.classes.iter().filter(|&&c| c == VClass::UniformPair).count();
    let mut pairs = ra::PRegSet::empty();
    let mut taken = 0;
    for r in (0..usize::from(ptxc_sass::isa::URZ) - 1).step_by(2).rev() {
        if taken < pairs_wanted && !named[r] && !named[r + 1] {
            pairs.add(ra::PReg::new(r, ra::RegClass::Float));
            (named[r], named[r + 1]) = (true, true);
            taken += 1;
        }
    }
    let mut free = ra::PRegSet::empty();
    for r in (0..usize::from(ptxc_sass::isa::URZ)).filter(|&r| !named[r]) {
        free.add(ra::PReg::new(r, ra::RegClass::Int));
    }
    let env = ra::MachineEnv {
        preferred_regs_by_class: [free, pairs, ra::PRegSet::empty()],
        non_preferred_regs_by_class: [ra::PRegSet::empty(); 3],
        scratch_by_class: [None; 3],
        fixed_stack_slots: Vec::new(),
    };
    let view = View::new(vcode, File::Uniform);
    let out = ra::run(&view, &env, options).map_err(|e| AllocError::Internal {
        kernel: vcode.name.clone(),
        what: format!("{e:?}"),
    })?;
    if spilled_class(&out).is_some() {
        return Err(AllocError::UniformSpill {
            kernel: vcode.name.clone(),
        });
    }
    check(vcode, &view, &out, &env)?;
    Ok(Some(out))
}

/// The frame: local variables, then 16-byte aligned spill slots, then (in kernels with
/// calls) the 16-byte aligned call save area; the stack pointer is the register after the
/// regions, and in kernels with calls above the registers the call sequence uses.
fn frame(vcode: &VCode, out: &ra::Output, regions: &Regions, with_sp: bool) -> Frame {
    if !with_sp {
        return Frame::default();
    }
    let spill_base = vcode.local_bytes.div_ceil(16) * 16;
    // Quads spill with 16-byte STL.128; single and pair slots need 8.
    let quad_spills = out.edits.iter().any(|(_, ra::Edit::Move { from, to })| {
        from.as_reg()
            .or(to.as_reg())
            .is_some_and(|r| r.class() == ra::RegClass::Vector)
            && (from.is_stack() || to.is_stack())
    });
    let (end, spill_align) = if out.num_spillslots > 0 {
        (
            spill_base + 4 * out.num_spillslots as u32,
            if quad_spills { 16 } else { 8 },
        )
    } else {
        (vcode.local_bytes, 8)
    };
    let calls = has_calls(vcode);
    let (call_save, end, spill_align) = if calls {
        let save = end.div_ceil(16) * 16;
        (save, save + 4 * regions.total() as u32 + 4, 16)
    } else {
        (0, end, spill_align)
    };
    let (link, end) = if vcode.device_function {
        let link = end.div_ceil(8) * 8;
        (link, link + 16)
    } else {
        (0, end)
    };
    // The stack top is 16-byte aligned; the frame size keeps its contents aligned.
    let align = vcode.local_align.max(spill_align).max(8);
    // Above the registers the call sequences use (a device function's prologue reads the
    // ABI's registers after setting it).
    let driver_calls = vcode.insts.iter().any(|i| i.is_call() && !i.calls_function());
    let sp = if driver_calls {
        (regions.total() as u32).max(crate::emit::CALL_SEQUENCE_REGS)
    } else if calls || vcode.device_function {
        (regions.total() as u32).max(crate::emit::FUNCTION_CALL_REGS)
    } else {
        regions.total() as u32
    };
    Frame {
        sp: Some(sp as u8),
        spill_base,
        size: end.div_ceil(align) * align,
        call_save,
        link,
    }
}

/// The number of spill slots (each holding a value of its class) regalloc2 used per class
/// (0 Int, 1 Float, 2 Vector), or `None` if nothing was spilled.
fn spilled_per_class(out: &ra::Output) -> Option<[usize; 3]> {
    spilled_class(out)?;
    let mut seen = rustc_hash::FxHashSet::default();
    let mut n = [0usize; 3];
    for (_, ra::Edit::Move { from, to }) in &out.edits {
        let (reg, slot) = match (from.as_reg(), to.as_reg()) {
            (Some(r), None) => (r, to.as_stack()),
            (None, Some(r)) => (r, from.as_stack()),
            _ => continue,
        };
        if let Some(slot) = slot
            && seen.insert(slot.index())
        {
            n[reg.class() as usize] += 1;
        }
    }
    if n == [0; 3] {
        n[0] = 1;
    }
    Some(n)
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
