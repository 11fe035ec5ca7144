//! Running one subprocess with a deadline: its own process group (so a timeout or Ctrl-C kills the case and
//! every worker it spawned, e.g. Inductor's compile pool), pipes drained by threads into bounded tails (a case
//! printing gigabytes neither blows memory nor deadlocks), and an interrupt flag set by SIGINT/SIGTERM.

use std::collections::VecDeque;
use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// Set by SIGINT/SIGTERM/SIGHUP; the run loop stops at the next poll, kills the running case and keeps results.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

#[cfg(unix)]
mod sys {
    use super::INTERRUPTED;
    use std::sync::atomic::{AtomicI32, Ordering};

    /// Process groups of the cases running now (0: free slot), so a second Ctrl-C can take them down before
    /// exiting. Several slots: `check --gpus N` runs N cases at once.
    static RUNNING_GROUPS: [AtomicI32; 64] = [const { AtomicI32::new(0) }; 64];

    /// Records a running group; returns its slot (None when all are taken: that group then dies only by the
    /// parent-death signal of its leader).
    pub fn register_group(pid: u32) -> Option<usize> {
        let pid = i32::try_from(pid).ok()?;
        RUNNING_GROUPS.iter().position(|slot| {
            slot.compare_exchange(0, pid, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        })
    }

    pub fn unregister_group(slot: Option<usize>) {
        if let Some(slot) = slot {
            RUNNING_GROUPS[slot].store(0, Ordering::SeqCst);
        }
    }

    pub const SIGKILL: i32 = 9;
    pub const SIGABRT: i32 = 6;
    const SIGHUP: i32 = 1;
    const SIGINT: i32 = 2;
    const SIGTERM: i32 = 15;

    unsafe extern "C" {
        fn signal(signum: i32, handler: extern "C" fn(i32)) -> usize;
        fn kill(pid: i32, sig: i32) -> i32;
        fn _exit(status: i32) -> !;
        #[cfg(target_os = "linux")]
        fn prctl(option: i32, ...) -> i32;
    }

    /// Linux: the case dies with graphbreak even when graphbreak is SIGKILLed (no handler runs then).
    #[cfg(target_os = "linux")]
    pub fn die_with_parent(command: &mut std::process::Command) {
        use std::os::unix::process::CommandExt;
        const PR_SET_PDEATHSIG: i32 = 1;
        // SAFETY: prctl is async-signal-safe, allowed between fork and exec.
        unsafe {
            command.pre_exec(|| {
                prctl(PR_SET_PDEATHSIG, SIGKILL as std::ffi::c_ulong);
                Ok(())
            });
        }
    }

    extern "C" fn on_signal(_signum: i32) {
        // A second Ctrl-C means "stop now": results already written stay on disk (each line is flushed).
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            // SAFETY: atomic loads, kill and _exit are async-signal-safe.
            unsafe {
                for slot in &RUNNING_GROUPS {
                    let group = slot.load(Ordering::SeqCst);
                    if group > 0 {
                        kill(-group, SIGKILL);
                    }
                }
                _exit(130)
            }
        }
    }

    pub fn install_interrupt_handler() {
        // SAFETY: installing a handler that only touches an atomic (or calls _exit) is async-signal-safe.
        unsafe {
            signal(SIGINT, on_signal);
            signal(SIGTERM, on_signal);
            signal(SIGHUP, on_signal);
        }
    }

    /// Signals one process.
    pub fn signal_process(pid: u32, sig: i32) {
        if let Ok(pid) = i32::try_from(pid) {
            // SAFETY: plain syscall on our own child; ESRCH is fine to ignore.
            unsafe {
                kill(pid, sig);
            }
        }
    }

    /// Signals the whole process group led by `pid` (children are started with `process_group(0)`).
    pub fn kill_group(pid: u32, sig: i32) {
        if let Ok(pid) = i32::try_from(pid) {
            // SAFETY: plain syscall; ESRCH (group already gone) is fine to ignore.
            unsafe {
                kill(-pid, sig);
            }
        }
    }
}

pub fn install_interrupt_handler() {
    #[cfg(unix)]
    sys::install_interrupt_handler();
}

/// A process group to kill on a second Ctrl-C (the fork server and each case it forks lead their own).
#[cfg(unix)]
pub(super) fn register_group(pid: u32) -> Option<usize> {
    sys::register_group(pid)
}

#[cfg(unix)]
pub(super) fn unregister_group(slot: Option<usize>) {
    sys::unregister_group(slot);
}

/// SIGABRT to one process (under `-X faulthandler` Python prints every thread's stack first).
#[cfg(unix)]
pub(super) fn abort_process(pid: u32) {
    sys::signal_process(pid, sys::SIGABRT);
}

/// SIGKILL to a whole process group.
#[cfg(unix)]
pub(super) fn kill_group(pid: u32) {
    sys::kill_group(pid, sys::SIGKILL);
}

/// Linux: `command`'s process dies with graphbreak even when graphbreak is SIGKILLed.
pub(super) fn die_with_parent(command: &mut Command) {
    #[cfg(target_os = "linux")]
    sys::die_with_parent(command);
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Last `limit` bytes of a stream, plus how many earlier bytes were dropped.
pub(super) struct Tail {
    bytes: VecDeque<u8>,
    dropped: u64,
    limit: usize,
}

impl Tail {
    pub(super) fn new(limit: usize) -> Self {
        Tail {
            bytes: VecDeque::new(),
            dropped: 0,
            limit,
        }
    }

    pub(super) fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend(chunk);
        if self.bytes.len() > self.limit {
            let excess = self.bytes.len() - self.limit;
            self.bytes.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    pub(super) fn render(&self) -> String {
        let (front, back) = self.bytes.as_slices();
        let mut all = Vec::with_capacity(front.len() + back.len());
        all.extend_from_slice(front);
        all.extend_from_slice(back);
        let text = String::from_utf8_lossy(&all);
        if self.dropped > 0 {
            format!("[... {} earlier bytes dropped ...]\n{text}", self.dropped)
        } else {
            text.into_owned()
        }
    }
}

#[derive(Debug)]
pub struct Finished {
    /// `None` only when the process could not be waited on (should not happen).
    pub status: Option<ExitStatus>,
    pub timed_out: bool,
    pub interrupted: bool,
    pub wall_seconds: f64,
    pub stdout_tail: String,
    pub stderr_tail: String,
}

impl Finished {
    /// Terminating signal number (unix), if the process died of one.
    pub fn signal(&self) -> Option<i32> {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            self.status.and_then(|s| s.signal())
        }
        #[cfg(not(unix))]
        {
            None
        }
    }
}

/// Runs `command` to completion or until `timeout` / an interrupt; never leaves the process group behind.
/// Spawn errors (interpreter not found, not executable) are returned as `Err`.
pub fn run_bounded(
    command: &mut Command,
    timeout: Duration,
    tail_limit: usize,
) -> std::io::Result<Finished> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    #[cfg(target_os = "linux")]
    sys::die_with_parent(command);
    let started = Instant::now();
    let mut child = command.spawn()?;
    let pid = child.id();
    #[cfg(unix)]
    let group_slot = sys::register_group(pid);

    let (done_tx, done_rx) = mpsc::channel::<()>();
    let mut tails = Vec::new();
    let pipes: Vec<Box<dyn Read + Send>> = vec![
        Box::new(child.stdout.take().expect("stdout is piped")),
        Box::new(child.stderr.take().expect("stderr is piped")),
    ];
    for mut pipe in pipes {
        let tail = Arc::new(Mutex::new(Tail::new(tail_limit)));
        tails.push(Arc::clone(&tail));
        let done = done_tx.clone();
        std::thread::spawn(move || {
            let mut buffer = vec![0u8; 64 * 1024];
            loop {
                match pipe.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => tail
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(&buffer[..n]),
                }
            }
            let _ = done.send(());
        });
    }
    drop(done_tx);

    let deadline = started + timeout;
    let mut poll = Duration::from_millis(2);
    let mut timed_out = false;
    let mut was_interrupted = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        if interrupted() {
            was_interrupted = true;
        } else if Instant::now() >= deadline {
            timed_out = true;
        }
        if timed_out {
            // SIGABRT first: under `-X faulthandler` Python prints every thread's stack, which tells the user
            // where the case hung. Then the whole group goes.
            #[cfg(unix)]
            sys::signal_process(pid, sys::SIGABRT);
            let grace = Instant::now() + Duration::from_secs(3);
            while Instant::now() < grace && matches!(child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        if timed_out || was_interrupted {
            kill_tree(&mut child, pid);
            break child.wait().ok();
        }
        std::thread::sleep(poll);
        poll = (poll * 2).min(Duration::from_millis(50));
    };
    let wall_seconds = started.elapsed().as_secs_f64();
    // Workers the case left behind (compile pools, dataloader processes) would keep the pipes open forever.
    #[cfg(unix)]
    {
        sys::kill_group(pid, sys::SIGKILL);
        sys::unregister_group(group_slot);
    }

    // Both readers normally finish at once; a grandchild that escaped the group could hold a pipe open, so wait
    // a bounded time and keep what was captured.
    let reader_deadline = Instant::now() + Duration::from_secs(3);
    for _ in 0..2 {
        let left = reader_deadline.saturating_duration_since(Instant::now());
        if done_rx.recv_timeout(left).is_err() {
            break;
        }
    }
    let render = |tail: &Arc<Mutex<Tail>>| tail.lock().unwrap_or_else(|e| e.into_inner()).render();
    Ok(Finished {
        status,
        timed_out,
        interrupted: was_interrupted,
        wall_seconds,
        stdout_tail: render(&tails[0]),
        stderr_tail: render(&tails[1]),
    })
}

fn kill_tree(child: &mut std::process::Child, pid: u32) {
    #[cfg(unix)]
    sys::kill_group(pid, sys::SIGKILL);
    #[cfg(not(unix))]
    let _ = pid;
    let _ = child.kill();
}

/// Human name of a signal for messages.
pub fn signal_name(signal: i32) -> &'static str {
    match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => "signal",
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_tail_of_huge_output() {
        let mut command = Command::new("sh");
        command.args(["-c", "yes 0123456789 | head -c 5000000; echo END"]);
        let finished = run_bounded(&mut command, Duration::from_secs(30), 1024).unwrap();
        assert!(finished.status.unwrap().success());
        assert!(finished.stdout_tail.ends_with("END\n"));
        assert!(
            finished.stdout_tail.starts_with("[... "),
            "{}",
            &finished.stdout_tail[..40]
        );
        assert!(finished.stdout_tail.len() < 1100);
    }

    #[test]
    fn timeout_kills_the_whole_group() {
        let mut command = Command::new("sh");
        // The background sleep inherits the pipes: without a group kill the readers would wait 60 s.
        command.args(["-c", "sleep 60 & sleep 60"]);
        let started = Instant::now();
        let finished = run_bounded(&mut command, Duration::from_millis(300), 1024).unwrap();
        assert!(finished.timed_out);
        assert!(finished.signal().is_some());
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
