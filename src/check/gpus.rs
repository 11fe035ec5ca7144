//! `check --gpus N|all`: run cases concurrently, one case subprocess per GPU, each pinned with
//! `CUDA_VISIBLE_DEVICES`, and never two cases on one GPU at a time (a GPU shared by two timed cases times
//! neither). Without the flag the run is sequential, as before.
//!
//! GPUs are listed with `nvidia-smi` (physical index, name, UUID), restricted to graphbreak's own
//! `CUDA_VISIBLE_DEVICES` when that is set (Slurm and CI runners hand a job a subset). Each case is pinned by
//! UUID, not by index: CUDA numbers devices fastest-first by default while nvidia-smi numbers them in PCI
//! order, so an index could name another GPU than the one reported; a UUID cannot. The report records the
//! physical index, name and UUID of the GPU that ran each case (`gpu` in the result).
//!
//! What is shared: the host's CPUs (Inductor compiles in parallel; a case's launch overhead is CPU time) and
//! the on-disk compile caches (written atomically by torch, safe to share). Timings of small, launch-bound
//! models can therefore move when other GPUs are busy compiling; GPU-bound steps are not affected.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use super::execute::{self, Interpreter, Lane, RunSettings, Scratch};
use super::record::{CaseResult, GpuAssignment};
use super::runner;
use super::targets::Case;

/// One GPU as the driver lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gpu {
    /// nvidia-smi's (PCI-order) index.
    pub index: u32,
    pub name: String,
    pub uuid: String,
}

impl Gpu {
    pub fn assignment(&self) -> GpuAssignment {
        GpuAssignment {
            index: Some(self.index),
            name: Some(self.name.clone()),
            uuid: Some(self.uuid.clone()),
            ..GpuAssignment::default()
        }
    }
}

/// `--gpus N` or `--gpus all`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuCount {
    All,
    Exactly(usize),
}

impl std::str::FromStr for GpuCount {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        if text.eq_ignore_ascii_case("all") {
            return Ok(GpuCount::All);
        }
        match text.trim().parse::<usize>() {
            Ok(0) | Err(_) => Err(format!(
                "`{text}`: expected a number of GPUs >= 1, or `all`"
            )),
            Ok(n) => Ok(GpuCount::Exactly(n)),
        }
    }
}

/// The program that lists GPUs: `$GRAPHBREAK_NVIDIA_SMI`, else `nvidia-smi` on PATH.
fn nvidia_smi() -> PathBuf {
    std::env::var_os("GRAPHBREAK_NVIDIA_SMI")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("nvidia-smi"))
}

/// The GPUs this process may use, in the order given by `CUDA_VISIBLE_DEVICES` if set, else nvidia-smi's.
pub fn discover() -> Result<Vec<Gpu>, String> {
    let program = nvidia_smi();
    let mut command = Command::new(&program);
    command.args(["--query-gpu=index,name,uuid", "--format=csv,noheader"]);
    let finished = runner::run_bounded(&mut command, Duration::from_secs(60), 64 * 1024).map_err(
        |e| {
            format!(
                "--gpus needs NVIDIA GPUs, but `{}` could not be run ({e}): no NVIDIA driver on this machine? \
                 Run without --gpus to run the cases one after another",
                program.display()
            )
        },
    )?;
    if !finished.status.is_some_and(|s| s.success()) {
        return Err(format!(
            "--gpus: `{} --query-gpu` failed: {}",
            program.display(),
            finished.stderr_tail.trim()
        ));
    }
    let listed = parse_listing(&finished.stdout_tail)?;
    let visible = std::env::var("CUDA_VISIBLE_DEVICES").ok();
    restrict_to_visible(listed, visible.as_deref())
}

/// `0, NVIDIA H200, GPU-5d1c...` lines.
fn parse_listing(text: &str) -> Result<Vec<Gpu>, String> {
    let mut gpus = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let parsed = match fields.as_slice() {
            [index, name @ .., uuid] if !name.is_empty() => {
                index.parse::<u32>().ok().map(|index| Gpu {
                    index,
                    name: name.join(","),
                    uuid: (*uuid).to_owned(),
                })
            }
            _ => None,
        };
        gpus.push(parsed.ok_or_else(|| format!("--gpus: cannot read nvidia-smi line `{line}`"))?);
    }
    Ok(gpus)
}

/// CUDA_VISIBLE_DEVICES entries are indices or (prefixes of) UUIDs; CUDA stops at the first invalid one.
fn restrict_to_visible(listed: Vec<Gpu>, visible: Option<&str>) -> Result<Vec<Gpu>, String> {
    let Some(visible) = visible else {
        return Ok(listed);
    };
    let mut chosen = Vec::new();
    for entry in visible.split(',').map(str::trim) {
        let found = listed.iter().find(|gpu| match entry.parse::<u32>() {
            Ok(index) => gpu.index == index,
            Err(_) => !entry.is_empty() && gpu.uuid.starts_with(entry),
        });
        match found {
            Some(gpu) if !chosen.contains(gpu) => chosen.push(gpu.clone()),
            Some(_) => {}
            None => break,
        }
    }
    Ok(chosen)
}

/// The GPUs a `--gpus` request gets. No GPU at all is an error, never a silent sequential CPU run.
pub fn choose(count: GpuCount, available: Vec<Gpu>) -> Result<Vec<Gpu>, String> {
    if available.is_empty() {
        return Err(
            "--gpus: no GPU is visible (nvidia-smi lists none, or CUDA_VISIBLE_DEVICES hides them all)"
                .into(),
        );
    }
    match count {
        GpuCount::All => Ok(available),
        GpuCount::Exactly(n) if n <= available.len() => Ok(available.into_iter().take(n).collect()),
        GpuCount::Exactly(n) => Err(format!(
            "--gpus {n}: only {} GPU(s) visible ({})",
            available.len(),
            available
                .iter()
                .map(|g| format!("{} {}", g.index, g.name))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// One (case, interpreter) to run, with its position in the sequential order (used as its scratch-file index).
pub struct Job<'a> {
    pub position: usize,
    pub case: &'a Case,
    pub interpreter: &'a Interpreter,
}

pub enum Event<'a> {
    /// A job was handed to a worker (`gpu` None: the sequential run).
    Started(&'a Job<'a>, Option<&'a Gpu>),
    Finished(&'a Job<'a>, Box<CaseResult>),
}

/// Runs `jobs` on `workers` (one slot per GPU; a single `None` slot = sequentially in this thread), taking
/// jobs in order. `on_event` runs on the calling thread (progress lines, the JSONL stream) and may stop the
/// run by returning an error. Returns whether the run was interrupted.
pub fn run_jobs<'a>(
    jobs: &'a [Job<'a>],
    workers: &'a [Option<Gpu>],
    settings: &RunSettings,
    scratch: &Scratch,
    mut on_event: impl FnMut(Event<'a>) -> Result<(), String>,
) -> Result<bool, String> {
    if let [None] = workers {
        let mut lane = Lane::new(Vec::new());
        for job in jobs {
            if runner::interrupted() {
                return Ok(true);
            }
            on_event(Event::Started(job, None))?;
            match execute::run_case(
                job.case,
                job.interpreter,
                settings,
                scratch,
                job.position,
                &mut lane,
            )? {
                Some(result) => on_event(Event::Finished(job, Box::new(result)))?,
                None => return Ok(true),
            }
        }
        return Ok(false);
    }

    enum Message<'a> {
        Event(Event<'a>),
        Interrupted,
        Failed(String),
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<Message<'a>>();
    let mut interrupted = false;
    let mut failure: Option<String> = None;
    std::thread::scope(|scope| {
        for gpu in workers {
            let sender = sender.clone();
            let (next, stop) = (&next, &stop);
            // The worker thread outlives each child it starts: the children's parent-death signal is tied to
            // the thread that spawned them.
            scope.spawn(move || {
                // One lane per GPU: its fork server (per interpreter) is pinned to that GPU too.
                let mut lane = Lane::new(
                    gpu.iter()
                        .map(|g| ("CUDA_VISIBLE_DEVICES".to_owned(), g.uuid.clone()))
                        .collect(),
                );
                loop {
                    if stop.load(Ordering::SeqCst) || runner::interrupted() {
                        break;
                    }
                    let Some(job) = jobs.get(next.fetch_add(1, Ordering::SeqCst)) else {
                        break;
                    };
                    let _ = sender.send(Message::Event(Event::Started(job, gpu.as_ref())));
                    match execute::run_case(
                        job.case,
                        job.interpreter,
                        settings,
                        scratch,
                        job.position,
                        &mut lane,
                    ) {
                        Ok(Some(mut result)) => {
                            result.gpu = gpu.as_ref().map(Gpu::assignment);
                            let _ =
                                sender.send(Message::Event(Event::Finished(job, Box::new(result))));
                        }
                        Ok(None) => {
                            let _ = sender.send(Message::Interrupted);
                            break;
                        }
                        Err(message) => {
                            stop.store(true, Ordering::SeqCst);
                            let _ = sender.send(Message::Failed(message));
                            break;
                        }
                    }
                }
            });
        }
        drop(sender);
        for message in receiver {
            match message {
                Message::Event(event) => {
                    if failure.is_none()
                        && let Err(message) = on_event(event)
                    {
                        stop.store(true, Ordering::SeqCst);
                        failure = Some(message);
                    }
                }
                Message::Interrupted => interrupted = true,
                Message::Failed(message) => {
                    failure.get_or_insert(message);
                }
            }
        }
    });
    match failure {
        Some(message) => Err(message),
        None => Ok(interrupted || runner::interrupted()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu(index: u32, uuid: &str) -> Gpu {
        Gpu {
            index,
            name: "NVIDIA H200".into(),
            uuid: uuid.into(),
        }
    }

    #[test]
    fn reads_the_nvidia_smi_listing() {
        let listed =
            parse_listing("0, NVIDIA H200, GPU-aaaa-1111\n1, NVIDIA H200, GPU-bbbb-2222\n\n")
                .unwrap();
        assert_eq!(
            listed,
            vec![gpu(0, "GPU-aaaa-1111"), gpu(1, "GPU-bbbb-2222")]
        );
        assert!(parse_listing("garbage\n").is_err());
    }

    #[test]
    fn visible_devices_restrict_and_order_the_gpus() {
        let listed = vec![gpu(0, "GPU-aaaa"), gpu(1, "GPU-bbbb"), gpu(2, "GPU-cccc")];
        let visible = |text: Option<&str>| restrict_to_visible(listed.clone(), text).unwrap();
        assert_eq!(visible(None).len(), 3);
        assert_eq!(
            visible(Some("2,0")),
            vec![gpu(2, "GPU-cccc"), gpu(0, "GPU-aaaa")]
        );
        assert_eq!(visible(Some("GPU-bb")), vec![gpu(1, "GPU-bbbb")]);
        assert_eq!(
            visible(Some("1,7,2")),
            vec![gpu(1, "GPU-bbbb")],
            "CUDA stops at an invalid entry"
        );
        assert!(visible(Some("")).is_empty());
        assert!(visible(Some("-1")).is_empty());
    }

    #[test]
    fn choosing_more_gpus_than_visible_is_an_error() {
        let two = vec![gpu(0, "GPU-a"), gpu(1, "GPU-b")];
        assert_eq!(choose(GpuCount::All, two.clone()).unwrap().len(), 2);
        assert_eq!(
            choose(GpuCount::Exactly(1), two.clone()).unwrap(),
            vec![gpu(0, "GPU-a")]
        );
        let error = choose(GpuCount::Exactly(3), two).unwrap_err();
        assert!(error.contains("only 2 GPU(s) visible"), "{error}");
        assert!(
            choose(GpuCount::All, Vec::new())
                .unwrap_err()
                .contains("no GPU is visible")
        );
        assert!("0".parse::<GpuCount>().is_err());
        assert_eq!("ALL".parse::<GpuCount>(), Ok(GpuCount::All));
    }
}
