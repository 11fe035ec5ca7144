//! Mutation fuzzing of `graphbreak scan` through the real binary.
//!
//! Seeds are every `.py` under `corpus/` plus a few built-in snippets that reach the semantic pass (modules,
//! forward methods, compiled functions, noqa comments). Each mutant gets 1–8 byte- or line-level mutations
//! from a deterministic xorshift generator, all mutants are written to one tempdir, and the binary scans them
//! in one process per batch (fast: one start-up, parallel parsing). The property: exit 0 or 1, no signal, no
//! panic, JSON output whose diagnostics point at files that exist and rows that exist.
//!
//! `GRAPHBREAK_FUZZ_ITERS` (default 300) sets the number of mutants, `GRAPHBREAK_FUZZ_SEED` the seed,
//! `GRAPHBREAK_FUZZ_BINARY` another build to fuzz (e.g. `target/release/graphbreak` for long runs),
//! `GRAPHBREAK_FUZZ_CORPUS` another directory of `.py` seeds instead of `corpus/` (e.g. the benchmark's
//! unpacked transformers tree). On a
//! failure the batch is bisected to the single mutants that fail, which are copied to
//! `target/fuzz-failures/` and named in the panic message.

mod common;

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const DEBUG_BINARY: &str = env!("CARGO_BIN_EXE_graphbreak");

fn binary() -> String {
    std::env::var("GRAPHBREAK_FUZZ_BINARY").unwrap_or_else(|_| DEBUG_BINARY.to_owned())
}
const DEFAULT_ITERS: usize = 300;
const DEFAULT_SEED: u64 = 0x9E37_79B9_7F4A_7C15;
/// Mutants per process: keeps memory and the bisection on failure bounded on long runs.
const BATCH: usize = 2_000;
const DEADLINE: Duration = Duration::from_secs(300);

const BUILTIN_SEEDS: &[&str] = &[
    r#"import torch
import torch.nn as nn
from torch import _shape_as_tensor as sat


class Block(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, mask=None) -> torch.Tensor:
        if x.sum() > 0:  # noqa: BR001
            x = x * 2
        size = torch.stack([sat(x)[2:4]]).to(x.device)
        n = int(x.max())
        if mask is not None and self.training:
            x = x.masked_fill(mask, 0.0)
        while x.abs().max() > 1:
            x = x / 2
        return self.helper(x) + x.mean().item() + n + size.sum()

    def helper(self, x):
        return x.cpu().numpy() if torch.compiler.is_compiling() else x.tolist()


@torch.compile(fullgraph=True)
def step(x: torch.Tensor):
    torch.cuda.synchronize()
    return x.tolist()


torch._dynamo.config.suppress_errors = True
compiled = torch.compile(Block(4).forward, mode="reduce-overhead")
"#,
    r#"from __future__ import annotations
import torch
from unittest import mock


def is_compiling() -> bool:
    return torch.compiler.is_compiling()


class Base(torch.nn.Module):
    pass


class Child(Base):
    def forward(self, x):
        if torch.compiler.is_exporting() or torch.jit.is_tracing():
            return x
        else:
            return torch.tensor([x.shape[0]]).cuda()
        if not is_compiling():
            print(x.item())
        return [t for t in x] + {k: v for k, v in {}.items()}


@torch.compiler.disable
def eager_only(x):
    return x.item()


def test_compile(monkeypatch):
    monkeypatch.setattr(torch, "compile", lambda m, **_: m)
    with mock.patch("torch.compile", side_effect=lambda f: f):
        pass
    async def agen():
        async with x as y:
            yield [z async for z in y]
    match x:
        case {"a": [1, *rest]} if rest:
            pass
        case Child(x=1) | None:
            pass
    type Alias[T] = list[T]
    return f"{x!r:>{10}}" + rf"\d{{2}}" + b"bytes".decode()
"#,
];

/// xorshift64*: deterministic, tiny, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Byte strings that are more likely than random bytes to reach interesting parser and rule states.
const TOKENS: &[&[u8]] = &[
    b"(",
    b")",
    b"[",
    b"]",
    b"{",
    b"}",
    b":",
    b"\n",
    b"\r\n",
    b"\r",
    b"\t",
    b" ",
    b"    ",
    b"\"",
    b"'",
    b"\"\"\"",
    b"\\",
    b"#",
    b"# noqa",
    b"# noqa: ",
    b"ZZ999",
    b"=",
    b".",
    b",",
    b"*",
    b"**",
    b"@",
    b"->",
    b":=",
    b"lambda ",
    b"yield ",
    b"await ",
    b"async ",
    b"not ",
    b"if ",
    b"else:",
    b"elif ",
    b"while ",
    b"return ",
    b"def f(x):",
    b"class C(torch.nn.Module):",
    b"def forward(self, x):",
    b"@torch.compile",
    b"@torch.compiler.disable",
    b"torch.compile(",
    b"x.item()",
    b".to(device)",
    b"torch.tensor(",
    b"torch._shape_as_tensor(x)",
    b"torch.compiler.is_compiling()",
    b"import torch",
    b"from . import ",
    b"from .. import x as y",
    b"f'{",
    b"}'",
    b"\xc3",
    b"\xff",
    b"\x00",
    b"\xef\xbb\xbf",
    b"\xe2\x80\xa8",
    b"\x0c",
    b"\x1a",
    b"\xce\xbb",
];

fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(8) {
        let len = data.len();
        match rng.below(13) {
            // Flip, overwrite, insert or delete single bytes.
            0 if len > 0 => {
                let at = rng.below(len);
                data[at] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let at = rng.below(len);
                data[at] = rng.next() as u8;
            }
            2 => {
                let at = rng.below(len + 1);
                data.insert(at, rng.next() as u8);
            }
            3 if len > 0 => {
                let at = rng.below(len);
                let end = (at + 1 + rng.below(16)).min(len);
                data.drain(at..end);
            }
            // Insert a token.
            4 | 5 => {
                let at = rng.below(len + 1);
                let token = rng.pick(TOKENS);
                data.splice(at..at, token.iter().copied());
            }
            // Line-level: duplicate, delete, swap, re-indent.
            6..=9 => {
                let mut lines: Vec<Vec<u8>> =
                    data.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
                let n = lines.len();
                let i = rng.below(n);
                match rng.below(4) {
                    0 => {
                        let line = lines[i].clone();
                        lines.insert(rng.below(n + 1), line);
                    }
                    1 if n > 1 => {
                        lines.remove(i);
                    }
                    2 => lines.swap(i, rng.below(n)),
                    _ => {
                        if rng.below(2) == 0 {
                            lines[i].splice(0..0, b"    ".iter().copied());
                        } else {
                            let strip = lines[i].iter().take(4).take_while(|&&b| b == b' ').count();
                            lines[i].drain(..strip);
                        }
                    }
                }
                data = lines.join(&b'\n');
            }
            // Splice a chunk of another seed in.
            10 if !other.is_empty() => {
                let from = rng.below(other.len());
                let to = (from + 1 + rng.below(200)).min(other.len());
                let at = rng.below(len + 1);
                data.splice(at..at, other[from..to].iter().copied());
            }
            // Deep nesting or a long chain at a random spot.
            11 => {
                let at = rng.below(len + 1);
                let depth = 1 + rng.below(3_000);
                let (open, close): (&[u8], &[u8]) = *rng.pick(&[
                    (&b"("[..], &b")"[..]),
                    (b"[", b"]"),
                    (b"{", b"}"),
                    (b"not ", b""),
                    (b"-", b""),
                    (b"", b".a"),
                    (b"", b"(x)"),
                    (b"", b"+x"),
                ]);
                let mut chunk = open.repeat(depth);
                chunk.push(b'x');
                chunk.extend(close.repeat(depth));
                data.splice(at..at, chunk);
            }
            // Truncate.
            _ => {
                let keep = rng.below(len + 1);
                data.truncate(keep);
            }
        }
    }
    data
}

fn collect_seeds(dir: &Path, seeds: &mut Vec<Vec<u8>>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort(); // Deterministic order, so a seed reproduces the same mutants.
    for path in paths {
        if path.is_dir() {
            collect_seeds(&path, seeds);
        } else if path.extension().is_some_and(|ext| ext == "py")
            && let Ok(bytes) = fs::read(&path)
        {
            seeds.push(bytes);
        }
    }
}

struct Run {
    code: Option<i32>,
    signal: Option<i32>,
    stdout: String,
    stderr: String,
    timed_out: bool,
}

impl Run {
    fn failure(&self) -> Option<String> {
        if self.timed_out {
            return Some(format!("no result after {DEADLINE:?} (hang)"));
        }
        if let Some(signal) = self.signal {
            return Some(format!("killed by signal {signal}"));
        }
        if self.stderr.contains("panicked") || self.code == Some(101) {
            let tail: String = self.stderr.trim_end().chars().take(1500).collect();
            return Some(format!("panic (exit {:?}): {tail}", self.code));
        }
        if !matches!(self.code, Some(0 | 1)) {
            let tail: String = self.stderr.trim_end().chars().take(1500).collect();
            return Some(format!(
                "exit {:?} (a per-file problem must be a diagnostic): {tail}",
                self.code
            ));
        }
        None
    }
}

fn scan(paths: &[PathBuf]) -> Run {
    let run = common::run_bounded(
        Command::new(binary())
            .args(["scan", "--no-config", "--output-format", "json"])
            .args(paths),
        DEADLINE,
    );
    Run {
        code: run.status.code(),
        signal: run.status.signal(),
        stdout: run.stdout,
        stderr: run.stderr,
        timed_out: run.timed_out,
    }
}

/// Checks the JSON output against the files that were scanned; returns a description of the first problem.
fn check_output(stdout: &str, files: &[PathBuf]) -> Option<String> {
    let value: serde_json::Value = match serde_json::from_str(stdout) {
        Ok(value) => value,
        Err(err) => return Some(format!("stdout is not JSON: {err}")),
    };
    let Some(diagnostics) = value.as_array() else {
        return Some("JSON output is not an array".into());
    };
    // Rows may point one past the last line (an error at end of file), never further.
    let max_rows: HashMap<&OsStr, u64> = files
        .iter()
        .filter_map(|file| {
            let bytes = fs::read(file).ok()?;
            Some((
                file.file_name()?,
                bytes.split(|&b| b == b'\n').count() as u64 + 1,
            ))
        })
        .collect();
    for diagnostic in diagnostics {
        let filename = Path::new(diagnostic["filename"].as_str().unwrap_or_default());
        let Some(&max_row) = filename.file_name().and_then(|name| max_rows.get(name)) else {
            return Some(format!(
                "diagnostic for a file that was not scanned: {diagnostic}"
            ));
        };
        for key in ["location", "end_location"] {
            let row = diagnostic[key]["row"].as_u64().unwrap_or(0);
            let column = diagnostic[key]["column"].as_u64().unwrap_or(0);
            if row == 0 || column == 0 || row > max_row {
                return Some(format!(
                    "{key} out of range (file has {max_row} rows): {diagnostic}"
                ));
            }
        }
        if diagnostic["code"].as_str().is_none_or(str::is_empty) {
            return Some(format!("diagnostic without a code: {diagnostic}"));
        }
    }
    None
}

/// Splits a failing batch until single failing mutants are found (bounded to a few reproducers).
fn bisect(files: &[PathBuf], failing: &mut Vec<(PathBuf, String)>) {
    if failing.len() >= 5 {
        return;
    }
    let run = scan(files);
    let problem = run.failure().or_else(|| check_output(&run.stdout, files));
    let Some(problem) = problem else { return };
    if files.len() == 1 {
        failing.push((files[0].clone(), problem));
        return;
    }
    let (left, right) = files.split_at(files.len() / 2);
    bisect(left, failing);
    bisect(right, failing);
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(text) => {
            let text = text.trim();
            let parsed = match text.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => text.parse(),
            };
            parsed.unwrap_or_else(|_| panic!("{name}={text:?} is not a number"))
        }
        Err(_) => default,
    }
}

#[test]
fn mutated_corpus_never_crashes_the_scanner() {
    let iters = env_number("GRAPHBREAK_FUZZ_ITERS", DEFAULT_ITERS as u64) as usize;
    let seed = env_number("GRAPHBREAK_FUZZ_SEED", DEFAULT_SEED).max(1);
    let mut seeds: Vec<Vec<u8>> = BUILTIN_SEEDS
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    let builtin = seeds.len();
    let corpus = std::env::var_os("GRAPHBREAK_FUZZ_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"));
    collect_seeds(&corpus, &mut seeds);
    eprintln!(
        "fuzz: {iters} mutants, seed {seed:#x}, {} seeds ({} from {}), binary {}",
        seeds.len(),
        seeds.len() - builtin,
        corpus.display(),
        binary()
    );

    let mut rng = Rng(seed);
    let started = Instant::now();
    let mut done = 0;
    while done < iters {
        let dir = tempfile::tempdir().expect("create tempdir");
        let batch = BATCH.min(iters - done);
        let files: Vec<PathBuf> = (0..batch)
            .map(|i| {
                let seed_file = &seeds[rng.below(seeds.len())];
                let other = &seeds[rng.below(seeds.len())];
                let path = dir.path().join(format!("mutant_{:06}.py", done + i));
                fs::write(&path, mutate(&mut rng, seed_file, other)).unwrap();
                path
            })
            .collect();
        let run = scan(&[dir.path().to_path_buf()]);
        if let Some(problem) = run.failure().or_else(|| check_output(&run.stdout, &files)) {
            let mut failing = Vec::new();
            bisect(&files, &mut failing);
            let keep = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
            fs::create_dir_all(&keep).unwrap();
            let mut report =
                format!("batch starting at mutant {done} (seed {seed:#x}) failed: {problem}\n");
            for (file, why) in &failing {
                let kept = keep.join(file.file_name().unwrap());
                fs::copy(file, &kept).unwrap();
                report.push_str(&format!(
                    "  {}: {why}\n  reproduce: {} scan --no-config {}\n",
                    kept.display(),
                    binary(),
                    kept.display()
                ));
            }
            if failing.is_empty() {
                report.push_str("  (no single mutant fails alone: an interaction between files)\n");
            }
            panic!("{report}");
        }
        done += batch;
    }
    eprintln!(
        "fuzz: {iters} mutants scanned without a crash in {:?}",
        started.elapsed()
    );
}
