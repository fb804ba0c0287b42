//! The server process and the proxy's own signals: waiting for the server to exit, stopping its
//! process group (TERM, then KILL), and SIGTERM / SIGINT / SIGHUP / SIGQUIT ending the session
//! the same way.

use std::process::Child;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

pub(super) fn wait_exit(child: &mut Child, within: Duration) -> bool {
    let until = Instant::now() + within;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return true,
            Ok(None) => {}
            Err(_) => return true,
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(unix)]
pub(super) fn kill_group(child: &Child, hard: bool) {
    kill_group_id(child.id(), hard);
}

#[cfg(not(unix))]
pub(super) fn kill_group(_child: &Child, _hard: bool) {}

#[cfg(unix)]
fn kill_group_id(id: u32, hard: bool) {
    use rustix::process::{Pid, Signal, kill_process_group};
    if let Some(pid) = i32::try_from(id).ok().and_then(Pid::from_raw) {
        let sig = if hard { Signal::KILL } else { Signal::TERM };
        // ESRCH (the group is gone) is the good case.
        let _ = kill_process_group(pid, sig);
    }
}

/// The server's process group (0: not started yet).
pub(super) static GROUP: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// The signal that ended the session (0: none).
pub(super) static SIGNALLED: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// SIGTERM, SIGINT, SIGHUP and SIGQUIT (`ENDING_SIGNALS`) end the session: TERM the server's
/// group, give it a moment, KILL it, and exit with the shell's code for the signal. Records are
/// already on disk.
pub(super) fn on_signals() {
    #[cfg(unix)]
    {
        use crate::sources::stdio::ENDING_SIGNALS;
        if let Ok(mut signals) = signal_hook::iterator::Signals::new(ENDING_SIGNALS) {
            let _ = std::thread::Builder::new()
                .name("mcp-proxy-signals".into())
                .spawn(move || {
                    if let Some(sig) = signals.forever().next() {
                        SIGNALLED.store(sig, Ordering::SeqCst);
                        // A server being started right now gets its group id in a moment.
                        let mut group = GROUP.load(Ordering::SeqCst);
                        for _ in 0..20 {
                            if group != 0 {
                                break;
                            }
                            std::thread::sleep(Duration::from_millis(10));
                            group = GROUP.load(Ordering::SeqCst);
                        }
                        if group == 0 {
                            std::process::exit(128 + sig);
                        }
                        kill_group_id(group, false);
                        std::thread::sleep(Duration::from_millis(500));
                        kill_group_id(group, true);
                        // The session normally ends here on its own (the server's stdout closes);
                        // this is for a server whose pipe something else keeps open.
                        std::thread::sleep(Duration::from_secs(5));
                        std::process::exit(128 + sig);
                    }
                });
        }
    }
}
