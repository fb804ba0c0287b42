//! What the proxy's threads share while a session runs (`Shared`: requests awaiting an answer,
//! held replies, the recorder), the methods it watches (`Method`) and how a JSON-RPC id is keyed.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::inject::{Decision, Plan};
use super::options::{Options, Pin};
use super::record::Recorder;

/// Tools kept from one paginated `tools/list` for the pin comparison.
pub(super) const MAX_LISTED: usize = 100_000;

/// A request the client sent and the server has not answered yet.
pub(super) struct Pending {
    pub(super) method: Method,
    pub(super) started: Instant,
}

pub(super) enum Method {
    Initialize,
    Discover,
    ToolsList,
    ToolsCall(Option<Decision>),
}

/// A reply held back by a `timeout` fault, until the client cancels or the hold ends.
pub(super) struct Held {
    pub(super) id: Value,
    pub(super) started: Instant,
    pub(super) fault_id: String,
    pub(super) real: Value,
}

pub(super) struct Shared {
    pub(super) pending: Mutex<HashMap<String, Pending>>,
    /// Set while some tracked call has a fault: server lines are then read before forwarding.
    pub(super) injecting: AtomicBool,
    pub(super) held: Mutex<HashMap<String, Held>>,
    pub(super) recorder: Mutex<Option<Recorder>>,
    pub(super) plan: Mutex<Option<Plan>>,
    /// The client's stdout (stdio); `None` over HTTP, where each reply goes back on its request.
    pub(super) out: Option<Mutex<io::Stdout>>,
    pub(super) max_pending: usize,
    pub(super) hold: Duration,
    pub(super) warned: AtomicBool,
    pub(super) pin: Option<Pin>,
    /// `tools/list` pages read so far (a paginated listing is compared once, whole).
    pub(super) listed: Mutex<Vec<Value>>,
    /// Server lines forwarded and not yet on record.
    pub(super) unrecorded: (Mutex<usize>, Condvar),
}

impl Shared {
    pub(super) fn new(opts: &Options, recorder: Option<Recorder>, out: Option<io::Stdout>) -> Shared {
        Shared {
            pending: Mutex::new(HashMap::new()),
            injecting: AtomicBool::new(false),
            held: Mutex::new(HashMap::new()),
            recorder: Mutex::new(recorder),
            plan: Mutex::new(opts.inject.clone()),
            out: out.map(Mutex::new),
            max_pending: opts.max_pending,
            hold: opts.hold,
            warned: AtomicBool::new(false),
            pin: opts.pin.clone(),
            listed: Mutex::new(Vec::new()),
            unrecorded: (Mutex::new(0), Condvar::new()),
        }
    }

    /// One more (`1`) or one less (`-1`) server line forwarded but not yet recorded.
    pub(super) fn recording(&self, d: i32) {
        let (m, cv) = &self.unrecorded;
        if let Ok(mut n) = m.lock() {
            *n = if d > 0 { *n + 1 } else { n.saturating_sub(1) };
            if *n == 0 {
                cv.notify_all();
            }
        }
    }

    /// Wait (briefly: the other side only parses and writes a file) until every forwarded server
    /// line is on record, so a call the client sent after reading an answer is recorded after it.
    pub(super) fn in_order(&self) {
        let (m, cv) = &self.unrecorded;
        if let Ok(n) = m.lock() {
            let _ = cv.wait_timeout_while(n, Duration::from_secs(1), |n| *n > 0);
        }
    }

    pub(super) fn record(&self, f: impl FnOnce(&mut Recorder)) {
        if let Ok(mut r) = self.recorder.lock()
            && let Some(r) = r.as_mut()
        {
            f(r);
        }
    }

    /// Whether a server line must be read before it is forwarded: a reply to replace (a fault,
    /// or a listing to hold against the pin) may be on its way.
    pub(super) fn update_reading(&self, pending: &HashMap<String, Pending>) {
        let read = pending.values().any(|p| match p.method {
            Method::ToolsCall(Some(_)) => true,
            Method::ToolsList => self.pin.as_ref().is_some_and(|p| !p.warn_only),
            _ => false,
        });
        self.injecting.store(read, Ordering::SeqCst);
    }

    pub(super) fn to_client(&self, line: &[u8]) -> io::Result<()> {
        let Some(out) = &self.out else {
            return Ok(());
        };
        let mut out = out.lock().map_err(|_| io::Error::other("stdout lock"))?;
        out.write_all(line)?;
        out.flush()
    }
}

/// Key of a JSON-RPC id (`7` and `"7"` differ).
pub(super) fn key(id: &Value) -> String {
    id.to_string()
}
