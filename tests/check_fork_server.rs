//! `graphbreak check`'s fork server end to end (src/check/worker.rs ⇄ the harness's `serve`): healthy cases
//! around a crash and a hang, the fallback to spawning, and the server's own death. The real binary, the
//! real harness, real torch (CPU), the corpus cases; Python as in check_cli.rs.

#[macro_use]
mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::check::{check_command, read_jsonl, repo, run_check};
use common::{line_containing, result_for, stderr, stdout};

#[test]
fn fork_server_serves_healthy_cases_around_a_crash_and_a_hang() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("results.jsonl");
    let hostile = repo().join("corpus/cases/hostile.py");
    let started = Instant::now();
    let output = run_check(
        repo(),
        Some(python),
        &[
            "corpus/cases/hazards.py::case_item_break",
            "corpus/cases/hostile.py::case_segfault",
            "corpus/cases/hazards.py::case_multi_scale",
            "corpus/cases/hostile.py::case_hang",
            "corpus/cases/clean.py::case_clean_training",
            "--backend",
            "eager",
            "--warmup",
            "1",
            "--steps",
            "2",
            "--timeout",
            "20",
            "--jsonl",
            jsonl.to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        started.elapsed() < Duration::from_secs(180),
        "took {:?}",
        started.elapsed()
    );
    let results = read_jsonl(&jsonl);
    assert_eq!(results.len(), 5);
    for (position, result) in results.iter().enumerate() {
        let worker = &result["worker"];
        assert_eq!(worker["mode"], "fork_server", "{result:#}");
        assert_eq!(worker["served"], position + 1, "one server, in order");
        assert_eq!(
            worker["start_seconds"],
            results[0]["worker"]["start_seconds"]
        );
        let phases = &result["phase_seconds"];
        assert!(phases["fork"].as_f64().is_some(), "{phases}");
        // torch was imported once, in the server: reported there, in no case's phases.
        assert!(phases["interpreter_start"].is_null(), "{phases}");
        assert!(
            phases["torch_import"].as_f64().unwrap_or(0.0) < 0.2,
            "{phases}"
        );
    }
    assert!(
        results[0]["worker"]["start_seconds"].as_f64().unwrap() > 0.2,
        "the server's start-up (it imported torch) is reported"
    );
    for healthy in [
        "::case_item_break",
        "::case_multi_scale",
        "::case_clean_training",
    ] {
        let result = result_for(&results, healthy);
        assert_eq!(result["status"], "ok", "{result:#}");
        assert_eq!(result["parity_ok"], true, "{result:#}");
    }
    assert_eq!(
        result_for(&results, "::case_item_break")["graph_break_count"],
        1
    );
    assert_eq!(result_for(&results, "::case_multi_scale")["recompiles"], 1);

    let segfault = result_for(&results, "::case_segfault");
    assert_eq!(segfault["status"], "crash", "{segfault:#}");
    assert!(
        segfault["error"]["message"]
            .as_str()
            .unwrap()
            .contains("SIGSEGV"),
        "{segfault:#}"
    );
    let crash_line = line_containing(&hostile, "ctypes.string_at(0)");
    assert_eq!(segfault["error"]["filename"], hostile.display().to_string());
    assert_eq!(segfault["error"]["line"], crash_line);

    let hang = result_for(&results, "::case_hang");
    assert_eq!(hang["status"], "timeout", "{hang:#}");
    let wall = hang["wall_seconds"].as_f64().unwrap();
    assert!(
        (20.0..30.0).contains(&wall),
        "timeout enforced at 20 s: {wall}"
    );
    let stderr_tail = hang["stderr_tail"].as_str().unwrap();
    assert!(stderr_tail.contains("in case_hang"), "{stderr_tail}");
    // Each case's output tail is its own: the crash's faulthandler dump is not in the next case's tail.
    let next = result_for(&results, "::case_multi_scale");
    assert!(
        !next["stderr_tail"]
            .as_str()
            .unwrap()
            .contains("Segmentation fault"),
        "{next:#}"
    );
    assert!(
        !stderr_tail.contains("graphbreak-worker"),
        "control records are not part of the tails"
    );
}

/// A Python thread alive after `import torch` (here: started by a sitecustomize on PYTHONPATH) makes
/// forking unsafe: the lane spawns each case instead, and the results say so.
#[cfg(target_os = "linux")]
#[test]
fn fork_server_falls_back_to_spawning_when_a_thread_is_alive() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        site.join("sitecustomize.py"),
        "import threading, time\nthreading.Thread(target=time.sleep, args=(3600,), name='sleeper', daemon=True).start()\n",
    )
    .unwrap();
    let jsonl = dir.path().join("results.jsonl");
    let output = check_command(
        repo(),
        Some(python),
        &[
            "corpus/cases/hazards.py::case_item_break",
            "corpus/cases/hostile.py::case_segfault",
            "--no-measure",
            "--jsonl",
            jsonl.to_str().unwrap(),
        ],
    )
    .env("PYTHONPATH", &site)
    .output()
    .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let results = read_jsonl(&jsonl);
    assert_eq!(results.len(), 2);
    for result in &results {
        let worker = &result["worker"];
        assert_eq!(worker["mode"], "spawn", "{result:#}");
        let fallback = worker["fallback"].as_str().unwrap();
        assert!(
            fallback.contains("2 Python threads alive after importing torch (MainThread, sleeper)"),
            "{fallback}"
        );
        assert!(result["phase_seconds"]["fork"].is_null(), "{result:#}");
    }
    assert_eq!(result_for(&results, "::case_item_break")["status"], "ok");
    assert_eq!(
        result_for(&results, "::case_item_break")["graph_break_count"],
        1
    );
    assert_eq!(result_for(&results, "::case_segfault")["status"], "crash");
    // The failed attempt's cost is reported once, on the lane's first case.
    assert!(results[0]["worker"]["start_seconds"].as_f64().is_some());
    assert!(results[1]["worker"]["start_seconds"].is_null());
}

/// A process of ours that is still running (not a zombie) and runs `expected` (its argv contains it).
#[cfg(target_os = "linux")]
fn running_with_argv(pid: &str, expected: &[u8]) -> bool {
    let proc = Path::new("/proc").join(pid);
    let Ok(stat) = std::fs::read_to_string(proc.join("stat")) else {
        return false;
    };
    // `pid (comm) STATE ...`: the state follows the last ')'.
    let state = stat.rsplit(')').next().unwrap_or("").trim_start();
    let cmdline = std::fs::read(proc.join("cmdline")).unwrap_or_default();
    !state.starts_with('Z')
        && cmdline
            .windows(expected.len())
            .any(|window| window == expected)
}

/// The fork server dies under a case (hostile.py::case_kills_fork_server SIGKILLs it, as the OOM killer
/// would, and leaves a `sleep` holding the server's pipes): that case is re-run spawned (where its parent is
/// graphbreak, so it is healthy), says so, and the later cases spawn; the run neither hangs nor waits for
/// the timeout, and no process of the dead server's case outlives graphbreak.
#[cfg(target_os = "linux")]
#[test]
fn fork_server_death_reruns_the_case_spawned_and_spawns_the_rest() {
    let python = require_torch!();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("results.jsonl");
    let record = dir.path().join("pids");
    std::fs::create_dir_all(&record).unwrap();
    let killer = format!(
        "corpus/cases/hostile.py::case_kills_fork_server[record_dir={}]",
        record.display()
    );
    let started = Instant::now();
    let output = run_check(
        repo(),
        Some(python),
        &[
            "corpus/cases/hazards.py::case_item_break",
            &killer,
            "corpus/cases/hazards.py::case_multi_scale",
            "--no-measure",
            // Far above the run's own time: a lost server noticed only at the case's timeout shows.
            "--timeout",
            "120",
            "--jsonl",
            jsonl.to_str().unwrap(),
        ],
    );
    let elapsed = started.elapsed();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        elapsed < Duration::from_secs(90),
        "the server's death must be noticed at once, not at the 120 s timeout: took {elapsed:?}"
    );

    let results = read_jsonl(&jsonl);
    assert_eq!(results.len(), 3, "every case has a result: {results:#?}");
    for result in &results {
        assert_eq!(result["status"], "ok", "{result:#}");
    }
    let first = &results[0]["worker"];
    assert_eq!(first["mode"], "fork_server", "{first:#}");
    assert_eq!(first["served"], 1);
    assert!(first.get("server_lost").is_none(), "{first:#}");

    let killed = result_for(&results, &killer);
    let worker = &killed["worker"];
    assert_eq!(
        worker["mode"], "spawn",
        "re-run in a fresh interpreter: {killed:#}"
    );
    assert_eq!(
        worker["server_lost"], "the fork server died: signal: 9 (SIGKILL)",
        "{killed:#}"
    );
    let fallback = worker["fallback"].as_str().unwrap();
    assert!(
        fallback.starts_with(&format!(
            "the fork server was lost during its case 2 ({killer}): the fork server died"
        )),
        "{fallback}"
    );
    // The result is the re-run's alone: the forked attempt's output is not in it.
    assert!(
        !killed["stderr_tail"]
            .as_str()
            .unwrap()
            .contains("yet its child lives on"),
        "{killed:#}"
    );
    assert!(
        stderr(&output).contains("re-run spawned (the fork server was lost)"),
        "the progress line says so"
    );
    assert!(
        stdout(&output).contains("worker: the fork server was lost while this case ran in it"),
        "the details say so"
    );

    let last = result_for(&results, "::case_multi_scale");
    assert_eq!(last["worker"]["mode"], "spawn", "{last:#}");
    assert_eq!(last["worker"]["fallback"], fallback);
    assert!(last["worker"].get("server_lost").is_none(), "{last:#}");
    assert_eq!(last["recompiles"], 1);

    // What ran: the server (killed), its forked child (killed by its parent-death signal), the child's
    // `sleep` (killed with the child's process group), then the spawned re-run.
    let mut recorded: Vec<(String, String)> = std::fs::read_dir(&record)
        .unwrap()
        .map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let (role, pid) = name.split_once('-').unwrap();
            (role.to_owned(), pid.to_owned())
        })
        .collect();
    recorded.sort();
    let roles: Vec<&str> = recorded.iter().map(|(role, _)| role.as_str()).collect();
    assert_eq!(roles, ["child", "grandchild", "server", "spawned"]);
    for (role, pid) in &recorded {
        let argv: &[u8] = match role.as_str() {
            "grandchild" => b"sleep\x00120",
            // The forked child runs the server's argv.
            "server" | "child" => b"\x00serve\x00",
            _ => continue,
        };
        assert!(
            !running_with_argv(pid, argv),
            "the dead server's {role} (pid {pid}) outlived graphbreak"
        );
    }
}
