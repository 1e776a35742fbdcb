//! Convergence barriers B0..B15 as each lane sees them.
//!
//! `BSSY Bn` records, for every lane executing it, the lanes that were active with it; a
//! lane waiting at `BSYNC Bn` is released once every live lane it recorded waits at a
//! `BSYNC Bn` too. Keeping the record per lane (rather than one mask per warp) matters when
//! the two sides of a divergent branch use the same barrier at the same time: ptxas gives
//! sibling regions the same barrier number (`BMOV.32.CLEAR RZ, B1; BSSY B1` on both sides of
//! an if/else), and the side that runs second must not overwrite or clear the first side's
//! record, or the first side's `BSYNC B1` would wait for lanes that never come (the hardware
//! runs such code, whichever side it schedules first).

use super::warp::{WARP, lanes};

/// The sixteen convergence barriers of a warp.
#[derive(Clone, Debug)]
pub struct ConvBarriers {
    /// `masks[n][lane]`: the lanes `lane` must meet at `BSYNC Bn`.
    masks: [[u32; WARP]; 16],
    /// Lanes waiting at `BSYNC Bn`.
    pub waiting: [u32; 16],
}

impl Default for ConvBarriers {
    fn default() -> Self {
        ConvBarriers {
            masks: [[0; WARP]; 16],
            waiting: [0; 16],
        }
    }
}

impl ConvBarriers {
    /// `BSSY Bn` by `active`: each of them records `active`.
    pub fn enter(&mut self, n: usize, active: u32) {
        for l in lanes(active) {
            self.masks[n & 15][l] = active;
        }
    }

    /// Lane `lane`'s record of `Bn` (`BMOV.32 Rd, Bn`).
    pub fn read(&self, n: usize, lane: usize) -> u32 {
        self.masks[n & 15][lane % WARP]
    }

    /// Sets lane `lane`'s record of `Bn` (`BMOV.32 Bn, Ra`; `.CLEAR` writes 0).
    pub fn write(&mut self, n: usize, lane: usize, value: u32) {
        self.masks[n & 15][lane % WARP] = value;
    }

    /// `BREAK Bn` by `leaving`: no lane waits for them at `BSYNC Bn` any more.
    pub fn leave(&mut self, n: usize, leaving: u32) {
        for m in self.masks[n & 15].iter_mut() {
            *m &= !leaving;
        }
    }

    /// The lanes waiting at `BSYNC Bn` whose recorded lanes (those in `alive`) all wait too;
    /// they stop waiting.
    pub fn take_ready(&mut self, n: usize, alive: u32) -> u32 {
        let n = n & 15;
        let waiting = self.waiting[n];
        let ready = lanes(waiting)
            .filter(|&l| self.masks[n][l] & alive & !waiting == 0)
            .fold(0u32, |m, l| m | 1 << l);
        self.waiting[n] &= !ready;
        ready
    }
}
