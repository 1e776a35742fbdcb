//! Latencies of the uniform register file (UR0..UR62) and the uniform predicates (UP0..UP6),
//! as NVIDIA publishes them for the Mesa NAK compiler (`URegLatencySM75` and
//! `URegLatencySM80`/`UPredLatencySM80` in NAK's `sm75_instr_latencies.rs` and
//! `sm80_instr_latencies.rs`; `docs/TIMING-SM75.md`, section 3). An access to a uniform
//! register or predicate carries one of the uniform categories of [`LatCat`] (from
//! [`LatCat::Udp`] on), chosen by [`uniform_cat`]; the scheduler and the simulator's hazard
//! check look the distances up here, as they look up the vector file's in [`super::timing`].
//!
//! Where the tables have no entry (a pairing NVIDIA's table calls illegal, such as a
//! variable-latency writer), the distance is 1: such writers are waited for through a
//! scoreboard instead.

use super::arch::Arch;
use super::desc::{Form, Op, Pipe};
use super::timing::LatCat;

/// The uniform category of an access by an instruction of `form` to a uniform register or
/// predicate: `write` for its results, `guard` for the uniform predicate guarding it.
pub fn uniform_cat(form: &Form, write: bool, guard: bool) -> LatCat {
    use LatCat::*;
    if guard {
        return UGuard;
    }
    let m = &form.meta;
    match form.op {
        Op::Uldc => Uldc,
        Op::Umov => Umov,
        // ELECT's lane number is ready as VOTEU's (no scoreboard; ptxas reads it 2 cycles on).
        Op::Voteu | Op::Elect => VoteU,
        Op::R2ur if write => ToUr,
        _ if write && !m.cat.is_coupled() => UScoreboarded,
        _ if m.pipe == Pipe::Uniform => Udp,
        // Vector instructions writing a uniform register all wait through a scoreboard
        // (REDUX, S2UR); VOTEU is matched above.
        _ if write => UScoreboarded,
        _ if m.pipe == Pipe::Branch => UBranch,
        _ if m.cat.is_coupled() && !m.cat.needs_write_scoreboard() => UCoupled,
        _ => UDecoupled,
    }
}

/// Hopper's R2UR has a fixed latency and no write scoreboard (ptxas 13.5 sets none on sm_90):
/// a reader of its uniform register waits 13 cycles, the least distance in ptxas's sm_90
/// code over 1,400 R2UR results and their first readers (uniform-datapath instructions,
/// `SYNCS`, and the second register of a load's or store's `desc[URx]` pair; the SASS alone,
/// not a hardware measurement).
const HOPPER_R2UR_RAW: u32 = 13;

/// Minimum cycles between a uniform-register writer and a later reader.
pub fn uraw(arch: Arch, writer: LatCat, reader: LatCat) -> u32 {
    use LatCat::*;
    let fixed = matches!(writer, Uldc | Umov | VoteU);
    match writer {
        ToUr if arch >= Arch::Sm90 => return HOPPER_R2UR_RAW,
        ToUr => return if arch >= Arch::Sm80 { 1 } else { 2 },
        Udp | Uldc | Umov | VoteU => {}
        _ => return 1,
    }
    match reader {
        Udp => {
            if fixed {
                2
            } else {
                4
            }
        }
        UCoupled => {
            if fixed {
                2
            } else {
                6
            }
        }
        UDecoupled => {
            if fixed {
                2
            } else {
                9
            }
        }
        UBranch if arch >= Arch::Sm80 => {
            if fixed {
                3
            } else {
                10
            }
        }
        UBranch => {
            if fixed {
                2
            } else {
                9
            }
        }
        Uldc => {
            if fixed {
                5
            } else {
                12
            }
        }
        _ => {
            if fixed {
                2
            } else {
                7
            }
        }
    }
}

/// Minimum cycles between two writers of the same uniform register (`predicated`: the first
/// writer has a guard). A scoreboarded writer after another counts as R2UR's row.
pub fn uwaw(arch: Arch, first: LatCat, second: LatCat, predicated: bool) -> u32 {
    use LatCat::*;
    let sm80 = arch >= Arch::Sm80;
    match (second, first) {
        (_, UScoreboarded) => 1,
        (ToUr | UScoreboarded, ToUr) => {
            if sm80 {
                1
            } else {
                2
            }
        }
        (ToUr | UScoreboarded, Udp) => match (sm80, predicated) {
            (true, true) => 11,
            (true, false) => 7,
            (false, true) => 10,
            (false, false) => 6,
        },
        (ToUr | UScoreboarded, _) => 4,
        (Udp, ToUr) => {
            if sm80 {
                1
            } else {
                2
            }
        }
        (Udp, _) => 1,
        (_, ToUr) => {
            if sm80 {
                1
            } else {
                2
            }
        }
        (_, Udp) => 7,
        _ => 1,
    }
}

/// Minimum cycles between a reader of a uniform register and a later writer of it.
/// NAK's sm_75 table asks for 3 after a `UMOV` read before a `ULDC` write; ptxas 13.5 writes
/// the register 2 cycles later (`UMOV UR4, UR6` with stall 2, then `ULDC.64 UR6, ...`;
/// `tests/difftest/sim_hazard_umov_uldc_war`, the SASS alone), which wins.
pub fn uwar(arch: Arch, reader: LatCat, writer: LatCat) -> u32 {
    use LatCat::*;
    if !matches!(writer, Uldc | Umov | VoteU) {
        return 1;
    }
    let slow_reader = if arch >= Arch::Sm80 {
        reader == Udp
    } else {
        matches!(reader, Uldc | Umov | VoteU)
    };
    match (slow_reader, reader, writer) {
        (false, ..) => 1,
        (true, Umov, Uldc) if arch < Arch::Sm80 => 2,
        (true, ..) => 3,
    }
}

/// Minimum cycles between a uniform-predicate writer (UISETP, UPLOP3, VOTEU, ...) and a
/// later reader.
pub fn upred_raw(arch: Arch, writer: LatCat, reader: LatCat) -> u32 {
    use LatCat::*;
    let vote = match writer {
        VoteU => true,
        Udp => false,
        _ => return 1,
    };
    let (udp, vote_d) = match reader {
        Udp => (4, 1),
        UCoupled => (6, 1),
        UBranch if arch >= Arch::Sm80 => (9, 2),
        _ => (11, 5),
    };
    if vote { vote_d } else { udp }
}

/// Minimum cycles between two writers of the same uniform predicate.
pub fn upred_waw(first: LatCat, second: LatCat) -> u32 {
    if second == LatCat::VoteU && first == LatCat::Udp {
        7
    } else {
        1
    }
}

/// Minimum cycles between a reader of a uniform predicate and a later writer of it.
pub fn upred_war(arch: Arch, reader: LatCat, writer: LatCat) -> u32 {
    use LatCat::*;
    if writer != VoteU {
        return 1;
    }
    let slow_reader = if arch >= Arch::Sm80 {
        matches!(reader, UCoupled | Udp)
    } else {
        reader == Udp
    };
    if slow_reader { 2 } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use LatCat::*;

    #[test]
    fn tables_match_nvidias() {
        // URegLatencySM75 / SM80 read-after-write.
        assert_eq!(uraw(Arch::Sm75, Udp, Udp), 4);
        assert_eq!(uraw(Arch::Sm75, Udp, UCoupled), 6);
        assert_eq!(uraw(Arch::Sm75, Udp, UDecoupled), 9);
        assert_eq!(uraw(Arch::Sm75, Udp, Uldc), 12);
        assert_eq!(uraw(Arch::Sm75, Uldc, Uldc), 5);
        assert_eq!(uraw(Arch::Sm75, Umov, Umov), 2);
        assert_eq!(uraw(Arch::Sm75, Udp, Umov), 7);
        assert_eq!(uraw(Arch::Sm75, ToUr, Udp), 2);
        assert_eq!(uraw(Arch::Sm80, ToUr, Udp), 1);
        assert_eq!(uraw(Arch::Sm80, Udp, UBranch), 10);
        assert_eq!(uraw(Arch::Sm80, VoteU, UBranch), 3);
        assert_eq!(uraw(Arch::Sm80, UScoreboarded, UCoupled), 1);
        // Write-after-write and write-after-read.
        assert_eq!(uwaw(Arch::Sm75, Udp, ToUr, true), 10);
        assert_eq!(uwaw(Arch::Sm80, Udp, ToUr, false), 7);
        assert_eq!(uwaw(Arch::Sm80, Udp, Uldc, false), 7);
        assert_eq!(uwaw(Arch::Sm80, Uldc, Udp, false), 1);
        // NAK's table says 3; ptxas 13.5 overwrites a UMOV's source with a ULDC 2 cycles on.
        assert_eq!(uwar(Arch::Sm75, Umov, Uldc), 2);
        assert_eq!(uwar(Arch::Sm75, Uldc, Uldc), 3);
        assert_eq!(uwar(Arch::Sm80, Udp, Uldc), 3);
        assert_eq!(uwar(Arch::Sm80, Umov, Uldc), 1);
        // Uniform predicates.
        assert_eq!(upred_raw(Arch::Sm75, Udp, UGuard), 11);
        assert_eq!(upred_raw(Arch::Sm75, VoteU, UGuard), 5);
        assert_eq!(upred_raw(Arch::Sm80, Udp, UBranch), 9);
        assert_eq!(upred_waw(Udp, VoteU), 7);
        assert_eq!(upred_war(Arch::Sm80, UCoupled, VoteU), 2);
        assert_eq!(upred_war(Arch::Sm75, UCoupled, VoteU), 1);
    }
}
