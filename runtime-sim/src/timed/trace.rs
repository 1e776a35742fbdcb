//! A Chrome trace-event timeline (one track per warp) that Perfetto and chrome://tracing open.

use serde::Serialize;

/// Events kept at most (a trace of a big grid would not fit in memory otherwise).
pub const MAX_EVENTS: usize = 2_000_000;

/// One complete event.
#[derive(Clone, Debug, Serialize)]
pub struct Event {
    /// Instruction text.
    pub name: String,
    /// Phase: "X" (complete).
    pub ph: &'static str,
    /// Issue cycle (shown as microseconds).
    pub ts: i64,
    /// Cycles until the warp's next possible issue.
    pub dur: i64,
    /// SM.
    pub pid: u32,
    /// Warp (CTA-qualified).
    pub tid: u64,
}

/// Collected events.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// The events in issue order per SM.
    pub events: Vec<Event>,
    /// Events dropped after the limit.
    pub dropped: u64,
}

impl Trace {
    /// Adds an event.
    pub fn push(&mut self, e: Event) {
        if self.events.len() < MAX_EVENTS {
            self.events.push(e);
        } else {
            self.dropped += 1;
        }
    }

    /// The trace as Chrome trace-event JSON.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct File<'a> {
            #[serde(rename = "traceEvents")]
            trace_events: &'a [Event],
            #[serde(rename = "displayTimeUnit")]
            unit: &'static str,
        }
        serde_json::to_string(&File {
            trace_events: &self.events,
            unit: "ns",
        })
        .expect("events serialise")
    }
}
