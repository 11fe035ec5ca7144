//! The fork server: one Python process per (interpreter, lane) imports torch and torch._dynamo once
//! (`harness.py serve TOKEN`) and forks one child per case. Each child is still its own process — its own
//! process group, killed by us on timeout, its crash or hang its own — and writes its result file as it
//! finishes, exactly as a spawned `harness.py run` does; only the interpreter start and `import torch`
//! (6–8 s per case on a GPU host) are paid once per lane instead of once per case.
//!
//! Protocol (docs/check-protocol.md, "Fork server"): we write one JSON command per line to the server's
//! stdin; the server answers with marker records on its stdout/stderr
//! (`\x1egraphbreak-worker:<token>:<kind> <json>\n`): `ready` once (whether forking is safe: no Python
//! thread alive, a forked child can create a CUDA context, Linux), then per case `start` (the child's pid),
//! `done` from the child once its result file is final, and `end` (its raw wait status) once it exited;
//! `done` and `end` come on stderr too, so each stream's tail ends exactly at its case. A case is finished
//! at `done`: its process's exit (seconds, for a CUDA context that held gigabytes) overlaps the next case;
//! a child that dies before `done` is classified by its `end` status as a spawned one would be. The
//! case's own output goes to the same pipes, between those markers. The server never touches CUDA in its
//! own process: a child forked after CUDA initialization could not use it, so each child creates its own
//! context (`device_init`).
//!
//! When the server cannot serve (not Linux, a thread alive after the imports, it died, it said no), the
//! lane falls back to spawning `harness.py run` per case, and each result says which mode ran it
//! (`worker` in the result).

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::record::{WorkerInfo, round3};
use super::runner::{self, Finished, Tail};

/// How long the server may take to import torch before the lane gives up on it (a cold disk on a GPU host
/// took 8 s; the `env` probe allows the same).
const READY_TIMEOUT: Duration = Duration::from_secs(180);
/// After a case's `end` record on stdout, how long to wait for the one on stderr.
const STREAM_SETTLE: Duration = Duration::from_secs(3);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stream {
    Stdout,
    Stderr,
}

enum Message {
    Output(Stream, Vec<u8>),
    Marker(Stream, String, Value),
    Closed(Stream),
}

/// Splits a stream into output bytes and marker records. Keeps back only what could be the start of a
/// marker, so output is forwarded as it comes.
struct MarkerScanner {
    prefix: Vec<u8>,
    pending: Vec<u8>,
}

/// A marker record longer than this is not one of ours (the server's records are a few hundred bytes).
const MARKER_LIMIT: usize = 64 * 1024;

impl MarkerScanner {
    fn new(token: &str) -> Self {
        MarkerScanner {
            prefix: format!("\x1egraphbreak-worker:{token}:").into_bytes(),
            pending: Vec::new(),
        }
    }

    /// Feeds bytes; returns output chunks and markers in stream order.
    fn feed(&mut self, bytes: &[u8]) -> Vec<Result<Vec<u8>, (String, Value)>> {
        self.pending.extend_from_slice(bytes);
        let mut out = Vec::new();
        loop {
            match find(&self.pending, &self.prefix) {
                Some(at) => {
                    if at > 0 {
                        out.push(Ok(self.pending[..at].to_vec()));
                    }
                    let body_start = at + self.prefix.len();
                    match self.pending[body_start..].iter().position(|&b| b == b'\n') {
                        Some(length) => {
                            let body = String::from_utf8_lossy(
                                &self.pending[body_start..body_start + length],
                            )
                            .into_owned();
                            let (kind, payload) = body.split_once(' ').unwrap_or((&body, "null"));
                            let payload = serde_json::from_str(payload).unwrap_or(Value::Null);
                            out.push(Err((kind.to_owned(), payload)));
                            self.pending.drain(..body_start + length + 1);
                        }
                        None if self.pending.len() - at > MARKER_LIMIT => {
                            // Not a record after all: pass it on as output.
                            out.push(Ok(self.pending[at..].to_vec()));
                            self.pending.clear();
                            break;
                        }
                        None => {
                            self.pending.drain(..at);
                            break;
                        }
                    }
                }
                None => {
                    // Everything except a possible partial prefix at the end is output.
                    let keep = partial_prefix_len(&self.pending, &self.prefix);
                    let cut = self.pending.len() - keep;
                    if cut > 0 {
                        out.push(Ok(self.pending[..cut].to_vec()));
                        self.pending.drain(..cut);
                    }
                    break;
                }
            }
        }
        out
    }

    fn finish(&mut self) -> Option<Vec<u8>> {
        (!self.pending.is_empty()).then(|| std::mem::take(&mut self.pending))
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// Length of the longest suffix of `bytes` that is a proper prefix of `prefix`.
fn partial_prefix_len(bytes: &[u8], prefix: &[u8]) -> usize {
    (1..prefix.len().min(bytes.len() + 1))
        .rev()
        .find(|&length| bytes[bytes.len() - length..] == prefix[..length])
        .unwrap_or(0)
}

fn spawn_reader(
    mut pipe: impl Read + Send + 'static,
    stream: Stream,
    token: &str,
    sender: mpsc::Sender<Message>,
) {
    let mut scanner = MarkerScanner::new(token);
    std::thread::spawn(move || {
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            match pipe.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    for piece in scanner.feed(&buffer[..n]) {
                        let message = match piece {
                            Ok(bytes) => Message::Output(stream, bytes),
                            Err((kind, payload)) => Message::Marker(stream, kind, payload),
                        };
                        if sender.send(message).is_err() {
                            return;
                        }
                    }
                }
            }
        }
        if let Some(rest) = scanner.finish() {
            let _ = sender.send(Message::Output(stream, rest));
        }
        let _ = sender.send(Message::Closed(stream));
    });
}

/// A running fork server.
pub struct ForkServer {
    child: Child,
    group_slot: Option<usize>,
    stdin: Option<ChildStdin>,
    messages: mpsc::Receiver<Message>,
    /// Spawn → `ready`: interpreter start and the torch import.
    pub start_seconds: f64,
    /// Native threads alive in the server when it said ready (NumPy's OpenBLAS pool, typically).
    pub native_threads: Option<u64>,
    served: u32,
    closed: [bool; 2],
}

/// Why a case could not be run by the server: the server is gone or misbehaved. The lane falls back to
/// spawning, and the case runs again there (the forked child, if any, was killed).
pub struct ServerLost(pub String);

impl ForkServer {
    /// Starts `python -X faulthandler harness serve TOKEN` with `env` and waits for `ready`. `Err` = the
    /// reason the lane spawns instead.
    pub fn start(
        python: &Path,
        harness: &Path,
        device: &str,
        env: &[(String, String)],
    ) -> Result<Self, String> {
        let token = format!(
            "{:x}{:x}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        );
        let mut command = Command::new(python);
        command
            .arg("-X")
            .arg("faulthandler")
            .arg(harness)
            .arg("serve")
            .arg(&token)
            .arg(device)
            .env("PYTHONUNBUFFERED", "1")
            .env("GRAPHBREAK_SPAWNED_AT", epoch_seconds())
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        runner::die_with_parent(&mut command);
        let started = Instant::now();
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start the fork server: {e}"))?;
        #[cfg(unix)]
        let group_slot = runner::register_group(child.id());
        #[cfg(not(unix))]
        let group_slot = None;
        let (sender, messages) = mpsc::channel();
        spawn_reader(
            child.stdout.take().expect("stdout is piped"),
            Stream::Stdout,
            &token,
            sender.clone(),
        );
        spawn_reader(
            child.stderr.take().expect("stderr is piped"),
            Stream::Stderr,
            &token,
            sender,
        );
        let stdin = child.stdin.take();
        let mut server = ForkServer {
            child,
            group_slot,
            stdin,
            messages,
            start_seconds: 0.0,
            native_threads: None,
            served: 0,
            closed: [false; 2],
        };
        let mut said = Tail::new(4096);
        let deadline = started + READY_TIMEOUT;
        loop {
            if runner::interrupted() {
                return Err("interrupted while the fork server started".into());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!(
                    "the fork server was not ready within {} s",
                    READY_TIMEOUT.as_secs()
                ));
            }
            match server
                .messages
                .recv_timeout(left.min(Duration::from_millis(200)))
            {
                Ok(Message::Marker(Stream::Stdout, kind, payload)) if kind == "ready" => {
                    server.start_seconds = started.elapsed().as_secs_f64();
                    server.native_threads = payload["native_threads"].as_u64();
                    if payload["fork_safe"].as_bool() == Some(true) {
                        return Ok(server);
                    }
                    return Err(payload["reason"]
                        .as_str()
                        .unwrap_or("the fork server declined")
                        .to_owned());
                }
                Ok(Message::Output(_, bytes)) => said.push(&bytes),
                Ok(Message::Marker(..)) => {}
                Ok(Message::Closed(stream)) => {
                    server.closed[stream as usize] = true;
                    if server.closed.iter().all(|c| *c) {
                        return Err(format!(
                            "the fork server exited before it was ready: {}",
                            last_line(&said.render())
                        ));
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err("the fork server's output closed before it was ready".into());
                }
            }
        }
    }

    /// How this server's cases are described in their results.
    pub fn info(&self) -> WorkerInfo {
        WorkerInfo {
            mode: Some("fork_server".into()),
            served: Some(self.served),
            start_seconds: Some(round3(self.start_seconds)),
            native_threads: self.native_threads,
            ..WorkerInfo::default()
        }
    }

    /// Cases this server has run (forked) so far.
    pub fn served(&self) -> u32 {
        self.served
    }

    /// Runs one case in a forked child, until its `done` (or its death). The wall time counts from
    /// `since`; `timeout` applies from the moment the case was asked for.
    pub fn run_case(
        &mut self,
        request: &Path,
        result: &Path,
        cwd: &Path,
        timeout: Duration,
        tail_limit: usize,
        since: Instant,
    ) -> Result<Finished, ServerLost> {
        self.served += 1;
        let number = self.served;
        let command = json!({
            "n": number,
            "request": request,
            "result": result,
            "cwd": cwd,
            "sent_at": epoch_seconds().parse::<f64>().unwrap_or(0.0),
        });
        let asked = Instant::now();
        let sent = self
            .stdin
            .as_mut()
            .ok_or_else(|| ServerLost("the fork server's stdin is closed".into()))
            .and_then(|stdin| {
                writeln!(stdin, "{command}")
                    .and_then(|()| stdin.flush())
                    .map_err(|e| ServerLost(format!("cannot write to the fork server: {e}")))
            });
        sent?;
        let mut tails = [Tail::new(tail_limit), Tail::new(tail_limit)];
        let mut child_pid: Option<u32> = None;
        let mut child_slot: Option<usize> = None;
        let mut status: Option<i32> = None;
        let mut stderr_ended = false;
        let mut status_at: Option<Instant> = None;
        let deadline = asked + timeout;
        let mut timed_out = false;
        let mut aborted_at: Option<Instant> = None;
        let mut was_interrupted = false;
        let mut server_died: Option<(Instant, ExitStatus)> = None;
        let lost = loop {
            // `done` (the result is final; the child may still be exiting) or `end` (it exited), each
            // seen on both streams so the tails are complete (bounded wait for the second one).
            if status.is_some()
                && (stderr_ended || status_at.is_some_and(|at| at.elapsed() > STREAM_SETTLE))
            {
                break None;
            }
            if runner::interrupted() && !was_interrupted {
                was_interrupted = true;
                match child_pid {
                    Some(pid) => kill_child_group(pid),
                    // The server may still fork it; the lane is dropped (and the server killed) next.
                    None => break None,
                }
            }
            if !timed_out && Instant::now() >= deadline && status.is_none() {
                timed_out = true;
                match child_pid {
                    // As a spawned case: faulthandler's stack dump first, then the whole group.
                    Some(pid) => {
                        #[cfg(unix)]
                        runner::abort_process(pid);
                        aborted_at = Some(Instant::now());
                    }
                    None => break Some("the fork server did not start the case".to_owned()),
                }
            }
            if let (Some(at), Some(pid)) = (aborted_at, child_pid)
                && at.elapsed() > Duration::from_secs(3)
            {
                kill_child_group(pid);
                aborted_at = None;
            }
            match self.messages.recv_timeout(Duration::from_millis(20)) {
                Ok(Message::Output(stream, bytes)) => tails[stream as usize].push(&bytes),
                Ok(Message::Marker(Stream::Stdout, kind, payload)) if kind == "start" => {
                    if payload["n"].as_u64() == Some(u64::from(number)) {
                        child_pid = payload["pid"].as_u64().and_then(|p| u32::try_from(p).ok());
                        #[cfg(unix)]
                        {
                            child_slot = child_pid.and_then(runner::register_group);
                        }
                        if was_interrupted && let Some(pid) = child_pid {
                            kill_child_group(pid);
                        }
                    }
                }
                Ok(Message::Marker(Stream::Stdout, kind, payload))
                    if (kind == "end" || kind == "done")
                        && payload["n"].as_u64() == Some(u64::from(number))
                        && status.is_none() =>
                {
                    // done: the harness's exit code as a wait status (code << 8); end: the real one.
                    let raw = if kind == "done" {
                        payload["code"].as_i64().map(|code| code << 8)
                    } else {
                        payload["status"].as_i64()
                    };
                    status = Some(raw.and_then(|s| i32::try_from(s).ok()).unwrap_or(-1));
                    status_at = Some(Instant::now());
                }
                Ok(Message::Marker(Stream::Stderr, kind, payload))
                    if (kind == "end" || kind == "done")
                        && payload["n"].as_u64() == Some(u64::from(number)) =>
                {
                    stderr_ended = true;
                }
                Ok(Message::Marker(..)) => {}
                Ok(Message::Closed(stream)) => {
                    self.closed[stream as usize] = true;
                    if status.is_none() {
                        break Some(self.death());
                    }
                    stderr_ended |= stream == Stream::Stderr;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    break Some("the fork server's output closed".to_owned());
                }
            }
            // The server gone while its case runs: no `end` can come any more, and its pipes may stay
            // open for as long as anything the case started lives (a compile worker outlives the
            // child, whom the parent-death signal killed), so waiting for them to close could take the
            // whole timeout. A `done` already in flight gets STREAM_SETTLE; then the case is lost.
            if status.is_none() {
                if server_died.is_none()
                    && let Ok(Some(exit)) = self.child.try_wait()
                {
                    server_died = Some((Instant::now(), exit));
                }
                if let Some((at, exit)) = server_died
                    && at.elapsed() > STREAM_SETTLE
                {
                    break Some(format!("the fork server died: {exit}"));
                }
            }
        };
        #[cfg(unix)]
        runner::unregister_group(child_slot);
        if let Some(why) = lost {
            if let Some(pid) = child_pid {
                kill_child_group(pid);
            }
            return Err(ServerLost(why));
        }
        let wall_seconds = since.elapsed().as_secs_f64();
        Ok(Finished {
            status: status.map(exit_status),
            timed_out,
            interrupted: was_interrupted,
            wall_seconds,
            stdout_tail: tails[0].render(),
            stderr_tail: tails[1].render(),
        })
    }

    /// Why the server's output closed: how it ended, once it has (its pipes close as it exits, a moment
    /// before it can be reaped).
    fn death(&mut self) -> String {
        let waited = Instant::now();
        while waited.elapsed() < Duration::from_secs(1) {
            if let Ok(Some(exit)) = self.child.try_wait() {
                return format!("the fork server died: {exit}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        "the fork server's output closed".to_owned()
    }
}

impl Drop for ForkServer {
    fn drop(&mut self) {
        // EOF on stdin ends the server's loop; the group kill takes down anything left.
        drop(self.stdin.take());
        #[cfg(unix)]
        {
            runner::kill_group(self.child.id());
            runner::unregister_group(self.group_slot);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn kill_child_group(pid: u32) {
    #[cfg(unix)]
    runner::kill_group(pid);
    #[cfg(not(unix))]
    let _ = pid;
}

#[cfg(unix)]
fn exit_status(raw: i32) -> ExitStatus {
    use std::os::unix::process::ExitStatusExt;
    ExitStatus::from_raw(raw)
}

#[cfg(not(unix))]
fn exit_status(_raw: i32) -> ExitStatus {
    unreachable!("the fork server runs only on Linux")
}

pub fn epoch_seconds() -> String {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| format!("{:.6}", d.as_secs_f64()))
        .unwrap_or_default()
}

fn last_line(text: &str) -> String {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("(no output)")
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(chunks: &[&[u8]]) -> (Vec<u8>, Vec<(String, Value)>) {
        let mut scanner = MarkerScanner::new("T");
        let mut output = Vec::new();
        let mut markers = Vec::new();
        for chunk in chunks {
            for piece in scanner.feed(chunk) {
                match piece {
                    Ok(bytes) => output.extend(bytes),
                    Err(marker) => markers.push(marker),
                }
            }
        }
        if let Some(rest) = scanner.finish() {
            output.extend(rest);
        }
        (output, markers)
    }

    #[test]
    fn markers_are_cut_out_of_the_stream_across_chunk_boundaries() {
        let stream = b"hello\n\x1egraphbreak-worker:T:end {\"n\": 1, \"status\": 0}\nafter";
        for split in 0..stream.len() {
            let (output, markers) = scan(&[&stream[..split], &stream[split..]]);
            assert_eq!(output, b"hello\nafter", "split at {split}");
            assert_eq!(markers.len(), 1);
            assert_eq!(markers[0].0, "end");
            assert_eq!(markers[0].1["status"], 0);
        }
        // Another token's record is output, not a marker.
        let (output, markers) = scan(&[b"\x1egraphbreak-worker:U:end {}\n"]);
        assert!(markers.is_empty());
        assert_eq!(output, b"\x1egraphbreak-worker:U:end {}\n");
    }
}
