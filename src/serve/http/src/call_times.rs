// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! Which of a reused 0.3 instance's long wasi:nn calls run in place on its lane and which leave it
//! for the blocking pool (the engine's long_call.rs): timed per function, since a fast
//! load-by-name says nothing of the compute after it.
use std::collections::HashMap;
use std::time::Duration;

/// Calls at least this long on average leave the lane: the hand-off costs two thread wake-ups, as
/// long as a small model's whole compute.
const HAND_OFF_MICROS: u64 = 1000;

/// A call in place that took this long held the lane's other connections that long: its
/// function leaves the lane from then on, for the instance's life (its input grew, say: an
/// average would bring it back in place after some twenty fast calls, to stall again).
const STALL_MICROS: u64 = 10 * HAND_OFF_MICROS;

/// Marks a function that stalled its lane.
const STALLED: u64 = u64::MAX;

#[derive(Default)]
pub(super) struct CallTimes {
    /// Microseconds, a running average by function, or STALLED.
    average: HashMap<&'static str, u64>,
}

impl CallTimes {
    /// Whether `function` runs in place: its recent calls were short (its first, not yet timed,
    /// leaves the lane).
    pub(super) fn in_place(&self, function: &'static str) -> bool {
        self.average
            .get(function)
            .is_some_and(|&micros| micros < HAND_OFF_MICROS)
    }

    /// Learns how long a call of `function` took, `in_place` or on the blocking pool (where the
    /// time includes waiting for a thread, which stalls no lane).
    pub(super) fn took(&mut self, function: &'static str, took: Duration, in_place: bool) {
        let took = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        // The first call of a function, not yet timed, counts as at the bound.
        let average = self.average.entry(function).or_insert(HAND_OFF_MICROS);
        if *average == STALLED || (in_place && took >= STALL_MICROS) {
            *average = STALLED;
        } else if took >= STALL_MICROS {
            // Counted at the bound: a few fast calls bring it back in place.
            *average = STALL_MICROS;
        } else {
            // Both at most STALL_MICROS here: no overflow.
            *average = (*average * 3 + took) / 4;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn micros(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    #[test]
    fn a_first_call_leaves_the_lane_and_fast_ones_then_run_in_place() {
        let mut t = CallTimes::default();
        assert!(!t.in_place("compute"));
        t.took("compute", micros(100), false);
        assert!(t.in_place("compute"), "(1000 * 3 + 100) / 4 = 775 us");
        assert!(!t.in_place("load-by-name"), "timed by function");
    }

    #[test]
    fn a_slow_call_off_the_lane_leaves_it_until_fast_calls_bring_it_back() {
        let mut t = CallTimes::default();
        t.took("compute", micros(100), false);
        // Off the lane, past the stall bound (a busy blocking pool, say): counted at the bound.
        t.took("compute", Duration::from_secs(2), false);
        assert!(!t.in_place("compute"));
        for _ in 0..10 {
            t.took("compute", micros(100), false);
        }
        assert!(t.in_place("compute"));
    }

    #[test]
    fn a_call_that_stalled_the_lane_leaves_it_for_good() {
        let mut t = CallTimes::default();
        t.took("compute", micros(100), false);
        assert!(t.in_place("compute"));
        t.took("compute", Duration::from_secs(2), true);
        for _ in 0..1000 {
            t.took("compute", micros(10), false);
        }
        assert!(!t.in_place("compute"));
        t.took("compute", Duration::MAX, false);
        assert!(!t.in_place("compute") && !t.in_place("next"));
    }
}
