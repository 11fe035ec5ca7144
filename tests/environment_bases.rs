//! Bases from the Python environment (src/semantic/environment.rs): a project class deriving from
//! a class of another installed distribution is an nn.Module when that base's own chain reaches
//! one, read from the environment's source (never imported), and the overrides the base's
//! `forward` calls on `self` (here through a mixin) are traced. corpus/reach/environment_bases
//! holds the project (`project/`) and the environment (`env/`, a venv layout);
//! tests/python/test_reach_proofs.py shows Dynamo (torch 2.11, backend="eager") breaks at exactly
//! the line reported, and not in the class whose environment base is not a Module.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{stderr, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/environment_bases")
}

/// `graphbreak ARGS` in the fixture's project, with `VIRTUAL_ENV` as given (never inherited).
fn scan(virtual_env: Option<&Path>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_graphbreak"));
    command
        .current_dir(fixture().join("project"))
        .env_remove("VIRTUAL_ENV")
        .args(args);
    if let Some(env) = virtual_env {
        command.env("VIRTUAL_ENV", env);
    }
    command.output().expect("run graphbreak")
}

#[test]
fn an_environment_base_makes_the_class_a_module_and_its_forward_calls_the_override() {
    let env = fixture().join("env");
    let env_arg = env.to_str().unwrap();
    for roots in [&[][..], &["--roots", "pkg.model.*"][..]] {
        let named = stdout(&scan(
            None,
            &[&["scan", ".", "--python-env", env_arg], roots].concat(),
        ));
        let active = stdout(&scan(Some(&env), &[&["scan", "."], roots].concat()));
        assert_eq!(named, active, "--python-env and $VIRTUAL_ENV differ");
        // Scorer.compute, run by Runner.forward -> run_step (a mixin) -> self.compute; not
        // Tally.compute (its base is no Module).
        insta::assert_snapshot!(named);
    }
    let reached = stdout(&scan(
        None,
        &[
            "scan",
            ".",
            "--python-env",
            env_arg,
            "--roots",
            "pkg.model.*",
            "--show-reached",
        ],
    ));
    assert!(reached.contains("pkg.model.Scorer.compute"), "{reached}");
    assert!(!reached.contains("pkg.model.Tally"), "{reached}");
}

#[test]
fn without_an_environment_nothing_is_read() {
    let text = stdout(&scan(None, &["scan", "."]));
    assert!(!text.contains("pkg/model.py"), "{text}");
}

#[test]
fn an_environment_that_is_none_is_a_clear_error() {
    let output = scan(None, &["scan", ".", "--python-env", "no-such-env"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("no-such-env is neither a Python environment"),
        "{}",
        stderr(&output)
    );
}

/// A stale or unusual `$VIRTUAL_ENV` (a shell left activated, a hook's own environment) is not the
/// user naming an environment: the scan warns and runs as without one, never exits 2.
#[test]
fn an_active_environment_that_is_none_is_skipped_with_a_warning() {
    let stale = fixture().join("no-such-env");
    let output = scan(Some(&stale), &["scan", "."]);
    let without = scan(None, &["scan", "."]);
    assert_eq!(
        output.status.code(),
        without.status.code(),
        "{}",
        stderr(&output)
    );
    assert_eq!(stdout(&output), stdout(&without));
    assert!(
        stderr(&output).contains("warning: ignoring $VIRTUAL_ENV"),
        "{}",
        stderr(&output)
    );
}
