//! Reachability through the type flow (`src/semantic/typeflow`): each fixture tree under
//! corpus/typeflow/ pins one Python idiom to the call edge it must produce, read from
//! `scan --show-reached --output-format json` (the function, and the call that reached it).
//! Each idiom also makes a finding appear that no other edge reaches (asserted with `--why`).

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/typeflow")
        .join(name)
}

/// One function of the region and its chain: `(function, call "file:line" in its caller)`.
type Reached = (String, Vec<(String, Option<String>)>);

/// Every function of the region, with its chain from the root.
fn reached(name: &str, extra: &[&str]) -> Vec<Reached> {
    let dir = fixture(name);
    let mut args = vec![
        "scan",
        ".",
        "--type-flow",
        "--show-reached",
        "--output-format",
        "json",
    ];
    args.extend_from_slice(extra);
    let out = graphbreak(&dir, &args);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out));
    let items: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    items
        .iter()
        .map(|item| {
            let chain = item["reached_from"]
                .as_array()
                .unwrap()
                .iter()
                .map(|link| {
                    let call = link["call"].as_str().map(|c| {
                        // Relative to the fixture: `pkg/model.py:11`.
                        let (path, line) = c.rsplit_once(':').unwrap();
                        let path = Path::new(path);
                        let path = path.strip_prefix(&dir).unwrap_or(path);
                        format!("{}:{line}", path.display())
                    });
                    (link["function"].as_str().unwrap().to_owned(), call)
                })
                .collect();
            (item["function"].as_str().unwrap().to_owned(), chain)
        })
        .collect()
}

/// The region reaches `callee` through a call at `call` (`file:line` in the caller).
fn assert_edge(name: &str, extra: &[&str], callee: &str, call: &str) {
    let region = reached(name, extra);
    let Some((_, chain)) = region.iter().find(|(f, _)| f == callee) else {
        panic!(
            "{name}: {callee} not reached; region: {:?}",
            region.iter().map(|(f, _)| f).collect::<Vec<_>>()
        );
    };
    let last = chain.last().unwrap();
    assert_eq!(last.0, callee);
    assert_eq!(last.1.as_deref(), Some(call), "{name}: chain {chain:?}");
}

#[test]
fn a_module_given_to_the_constructor_is_called_through_its_attribute() {
    for roots in [&[][..], &["--roots", "pkg.model.Detector"][..]] {
        assert_edge(
            "constructor_injection",
            roots,
            "pkg.parts.Head.loss",
            "pkg/model.py:11",
        );
    }
}

#[test]
fn an_attribute_a_factory_function_returns_is_typed_by_its_return() {
    assert_edge(
        "factory_function",
        &["--roots", "pkg.model.Net"],
        "pkg.heads.Head.compute",
        "pkg/model.py:12",
    );
}

#[test]
fn a_subclass_passing_a_module_to_super_init_types_the_base_attribute() {
    assert_edge(
        "super_init_chain",
        &["--roots", "pkg.model.Sub"],
        "pkg.necks.Neck.run",
        "pkg/base.py:10",
    );
}

#[test]
fn keywords_forwarded_through_kwargs_up_a_super_init_chain_reach_the_base() {
    assert_edge(
        "subclass_passes_up",
        &["--roots", "pkg.model.Leaf"],
        "pkg.parts.Refiner.refine",
        "pkg/base.py:10",
    );
}

#[test]
fn an_attribute_set_from_a_method_return_is_called() {
    assert_edge(
        "method_return",
        &["--roots", "pkg.model.Model"],
        "pkg.losses.DetectionLoss.__call__",
        "pkg/model.py:19",
    );
}

#[test]
fn iterating_module_containers_yields_their_elements() {
    let roots = ["--roots", "pkg.model.Net"];
    assert_edge(
        "module_containers",
        &roots,
        "pkg.blocks.Block.step",
        "pkg/model.py:21",
    );
    assert_edge(
        "module_containers",
        &roots,
        "pkg.blocks.Branch.merge",
        "pkg/model.py:23",
    );
    assert_edge(
        "module_containers",
        &roots,
        "pkg.blocks.Stage.prepare",
        "pkg/model.py:24",
    );
}

#[test]
fn a_class_looked_up_in_a_registry_dict_runs_every_candidate() {
    let roots = ["--roots", "pkg.model.Net"];
    assert_edge(
        "registry_lookup",
        &roots,
        "pkg.ops.Scale.apply_op",
        "pkg/model.py:17",
    );
    assert_edge(
        "registry_lookup",
        &roots,
        "pkg.ops.Shift.apply_op",
        "pkg/model.py:17",
    );
}

#[test]
fn a_method_on_an_unknown_object_falls_back_to_its_name_with_low_confidence() {
    let dir = fixture("registry_lookup");
    assert_edge(
        "registry_lookup",
        &["--roots", "pkg.model.Net"],
        "pkg.ops.Rotate.transform",
        "pkg/model.py:19",
    );
    let out = graphbreak(
        &dir,
        &[
            "scan",
            ".",
            "--type-flow",
            "--roots",
            "pkg.model.Net",
            "--why",
            "pkg/ops.py:14",
        ],
    );
    assert!(stdout(&out).contains("by method name"), "{}", stdout(&out));
}

#[test]
fn names_bound_by_a_star_import_honour_all() {
    // `nn` comes only from `from .common import *` (listed in `__all__`): Net is a Module.
    assert_edge("star_import", &[], "pkg.common.report", "pkg/model.py:6");
}

#[test]
fn a_subclass_of_a_private_torch_module_class_is_a_module() {
    let region = reached("torch_loss_base", &[]);
    assert!(
        region.iter().any(|(f, _)| f == "pkg.losses.L1Sum.forward"),
        "{region:?}"
    );
}

#[test]
fn a_compile_target_typed_by_the_flow_is_a_root() {
    let dir = fixture("compile_method_target");
    let out = graphbreak(&dir, &["scan", ".", "--type-flow", "--show-roots"]);
    let text = stdout(&out);
    assert!(
        text.contains("pkg.sampler.Refiner.refine") && text.contains("via type flow"),
        "{text}"
    );
}

#[test]
fn a_class_nothing_builds_is_not_reached() {
    let region = reached("unreachable_class", &["--roots", "pkg.model.Net"]);
    let names: Vec<&str> = region.iter().map(|(f, _)| f.as_str()).collect();
    assert!(names.contains(&"pkg.model.Used.compute"), "{names:?}");
    assert!(
        !names.contains(&"pkg.model.NeverBuilt.compute"),
        "{names:?}"
    );
    let dir = fixture("unreachable_class");
    let out = graphbreak(
        &dir,
        &[
            "scan",
            ".",
            "--type-flow",
            "--roots",
            "pkg.model.Net",
            "--why",
            "pkg/model.py:10",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("pkg.model.NeverBuilt.compute is not reached"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn findings_carry_their_chain_and_why_rejects_bad_lines() {
    let dir = fixture("constructor_injection");
    let out = graphbreak(
        &dir,
        &[
            "scan",
            ".",
            "--type-flow",
            "--output-format",
            "json",
            "--exit-zero",
        ],
    );
    let items: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    let finding = items.iter().find(|d| d["code"] == "SY002").unwrap();
    let chain: Vec<&str> = finding["reached_from"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["function"].as_str().unwrap())
        .collect();
    assert_eq!(chain, ["pkg.model.Detector.forward", "pkg.parts.Head.loss"]);
    let full = graphbreak(
        &dir,
        &[
            "scan",
            ".",
            "--type-flow",
            "--output-format",
            "full",
            "--exit-zero",
        ],
    );
    assert!(
        stdout(&full)
            .contains("= via pkg.model.Detector.forward -> pkg.parts.Head.loss (pkg/model.py:11)"),
        "{}",
        stdout(&full)
    );
    for bad in [
        "pkg/model.py:999",
        "pkg/model.py:zero",
        "pkg/missing.py:3",
        "pkg/model.py",
    ] {
        let out = graphbreak(&dir, &["scan", ".", "--type-flow", "--why", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", common::text(&out));
    }
}

#[test]
fn a_disabled_function_passed_as_an_argument_is_a_deliberate_break_at_the_call() {
    let dir = fixture("disabled_argument");
    let flagged = |extra: &[&str]| {
        let mut args = vec!["scan", ".", "--select", "BR006", "--exit-zero"];
        args.extend_from_slice(extra);
        stdout(&graphbreak(&dir, &args))
    };
    let with_flow = flagged(&["--type-flow"]);
    assert!(
        with_flow.contains("model.py:18:12: BR006 call into `eager_helper` (passed in as a value)"),
        "{with_flow}"
    );
    // Without the type flow the parameter's value is unknown: nothing to report.
    assert!(!flagged(&[]).contains("BR006"), "{}", flagged(&[]));
}
