//! Argument context at the defaults (src/semantic/context.rs, src/semantic/options.rs): a branch
//! that only a value no call passes could take is not in the normal tier. Each file of
//! corpus/reach/default_context marks its lines `# gated` (the option tier: reached only when a
//! user sets an option or argument off its default), `# normal` (reported whatever the values)
//! or `# never` (no context reaches it: not reported at all);
//! tests/python/test_default_context_proofs.py shows the same lines under Dynamo.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{finding_tiers, graphbreak, scan_findings, tagged_lines, text};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/default_context")
}

/// `dir/pkg` holding copies of the fixture's `names` (a tree to add one module to).
fn copy_fixture(dir: &Path, names: &[&str]) -> PathBuf {
    let pkg = dir.join("pkg");
    std::fs::create_dir(&pkg).unwrap();
    for name in names {
        std::fs::copy(fixture().join("pkg").join(name), pkg.join(name)).unwrap();
    }
    pkg
}

/// The `gated_by` of every finding in the fixture's file `name` (no roots).
fn gates_in_file(name: &str) -> Vec<serde_json::Value> {
    scan_findings(&fixture(), &[])
        .iter()
        .filter(|f| f["filename"].as_str().unwrap().ends_with(name))
        .map(|f| f["gated_by"].clone())
        .collect()
}

/// The `gated_by` of the finding on line `gated` once `pkg/build.py` (`source`) is added to a
/// tree holding copies of the fixture's `names`; panics when nothing is reported there.
fn gated_by_with_build(names: &[&str], source: &str, gated: u64) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let pkg = copy_fixture(dir.path(), names);
    common::write(&pkg, "build.py", source);
    scan_findings(dir.path(), &[])
        .iter()
        .find(|f| f["location"]["row"] == gated)
        .unwrap_or_else(|| panic!("line {gated} reported with {source}"))["gated_by"]
        .clone()
}

const TAGS: [&str; 3] = ["gated", "normal", "never"];

/// `(file, line)` → tag, for the lines the fixture marks (`never` lines are expected absent).
fn marked() -> BTreeMap<(String, u32), &'static str> {
    let mut out = BTreeMap::new();
    let dir = fixture().join("pkg");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|ext| ext != "py") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(&path).unwrap();
        for (line, tag) in tagged_lines(&source, &TAGS) {
            out.insert((name.clone(), line), tag);
        }
    }
    out
}

/// `(file, line)` → the tier scan reports it in.
fn tiers(args: &[&str]) -> BTreeMap<(String, u32), &'static str> {
    finding_tiers(&fixture(), args)
        .into_iter()
        .map(|(name, row, tier)| ((name, row), tier))
        .collect()
}

fn expected_reported() -> BTreeMap<(String, u32), &'static str> {
    marked()
        .into_iter()
        .filter(|(_, tag)| *tag != "never")
        .collect()
}

#[test]
fn each_marked_line_lands_in_its_tier_with_roots() {
    // A root's own arguments are the user's: only its callees' are decided by the tree's calls.
    let expected = expected_reported();
    assert!(expected.len() >= 4, "{expected:?}");
    let roots = [
        "--roots",
        "pkg.numeric.Dropper",
        "--roots",
        "pkg.chains.Doubled",
        "--roots",
        "pkg.chains.WorkerNet",
        "--roots",
        "pkg.chains.HookNet",
        "--roots",
        "pkg.inherited.PositionalGate",
        "--roots",
        "pkg.inherited.RenamedGate",
        "--roots",
        "pkg.factories.FactoryNet",
        "--roots",
        "pkg.settings.SettingNet",
        "--roots",
        "pkg.option_args.Selector",
        "--roots",
        "pkg.option_args.Sampler",
        "--roots",
        "pkg.option_args.Literal",
        "--roots",
        "pkg.option_args.Checked",
    ];
    assert_eq!(tiers(&roots), expected);
}

/// Options through factory functions and module/class settings are decided without roots too
/// (the factory's parameter defaults and the settings are recorded whatever the roots).
#[test]
fn factories_and_settings_land_in_their_tier_without_roots() {
    let ours = |name: &String| name == "factories.py" || name == "settings.py";
    let expected: BTreeMap<(String, u32), &'static str> = expected_reported()
        .into_iter()
        .filter(|((name, _), _)| ours(name))
        .collect();
    assert_eq!(expected.len(), 8);
    let found: BTreeMap<(String, u32), &'static str> = tiers(&[])
        .into_iter()
        .filter(|((name, _), _)| ours(name))
        .collect();
    assert_eq!(found, expected);
}

/// A setting's gate names the module and says what to set, in JSON (`"setting": true`) and
/// in the text.
#[test]
fn a_setting_gate_says_what_to_set() {
    let gates = gates_in_file("settings.py");
    assert!(
        gates.contains(&serde_json::json!([{"class": "pkg.settings", "option": "Switch.strict", "default": "False", "needs": "True", "setting": true}])),
        "{gates:?}"
    );
    let shown = text(&graphbreak(&fixture(), &["scan", ".", "--no-config"]));
    assert!(
        shown.contains("only with pkg.settings.FAST_PATH = True"),
        "{shown}"
    );
    assert!(
        shown.contains("only with pkg.settings.LEVEL != 0"),
        "{shown}"
    );
    assert!(shown.contains("only with Dropper(prob != 0.0)"), "{shown}");
}

/// A store of the setting's name anywhere in the tree (`mod.FLAG = True` in another module)
/// changes it: the branch is back in the normal tier.
#[test]
fn a_setting_stored_elsewhere_in_the_tree_is_changed() {
    let settings = fixture().join("pkg/settings.py");
    let gated = common::line_containing(&settings, "# gated: needs FAST_PATH") as u64;
    let dir = tempfile::tempdir().unwrap();
    let pkg = copy_fixture(dir.path(), &["__init__.py", "settings.py"]);
    common::write(
        &pkg,
        "fast.py",
        "from . import settings\n\n\ndef go_fast():\n    settings.FAST_PATH = True\n",
    );
    let out = graphbreak(
        dir.path(),
        &["scan", ".", "--no-config", "--output-format", "json"],
    );
    let findings: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", text(&out)));
    let finding = findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["location"]["row"] == gated)
        .unwrap_or_else(|| panic!("line {gated} reported"));
    assert_eq!(finding["gated_by"], serde_json::json!([]));
}

/// A call of the factory that passes the option, by keyword or by position, sets it: the
/// branch is back in the normal tier.
#[test]
fn a_factory_call_passing_the_option_sets_it() {
    let factories = fixture().join("pkg/factories.py");
    for (build, marker) in [
        ("make_branch(4, drop=0.1)", "# gated: needs drop"),
        ("make_branch(4, 0.1)", "# gated: needs drop"),
        ("add_scaled(net, 4, 0.5)", "# gated: needs scale"),
        ("add_scaled(net, 4, scale=0.5)", "# gated: needs scale"),
    ] {
        let gated = common::line_containing(&factories, marker) as u64;
        let source = format!(
            "from .factories import add_scaled, make_branch\n\n\ndef make(net):\n    return {build}\n"
        );
        let gated_by = gated_by_with_build(&["__init__.py", "factories.py"], &source, gated);
        assert_eq!(gated_by, serde_json::json!([]), "{build}");
    }
}

/// `self.prob > 0` on a `prob=0.0` option is decided at the default, and the gate says which
/// value it needs.
#[test]
fn a_numeric_option_compared_with_a_number_is_gated_and_named() {
    let gates = gates_in_file("numeric.py");
    assert!(
        gates.contains(&serde_json::json!([{"class": "pkg.numeric.Dropper", "option": "prob", "default": "0.0", "needs": "!= 0.0"}])),
        "{gates:?}"
    );
}

/// The same tree plus one module whose calls pass the values the fixture never passes: the
/// `never` and `gated` lines of chains.py are then reached with them and reported in the normal
/// tier (the context joins every call edge; one that passes the value is enough).
#[test]
fn a_call_passing_the_value_puts_the_branch_back_in_the_normal_tier() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = copy_fixture(dir.path(), &["__init__.py", "chains.py"]);
    common::write(
        &pkg,
        "loud.py",
        "from torch import nn\n\
         from .chains import Clipped, Worker, hook\n\
         \n\
         class Loud(nn.Module):\n\
         \x20   def __init__(self):\n\
         \x20       super().__init__()\n\
         \x20       self.worker = Worker()\n\
         \x20       self.clipped = Clipped()\n\
         \n\
         \x20   def forward(self, x):\n\
         \x20       x = self.clipped(x, clip=True)\n\
         \x20       x = self.worker(x, opt=True)\n\
         \x20       return hook(x, strict=True)\n",
    );
    let out = graphbreak(
        dir.path(),
        &[
            "scan",
            ".",
            "--no-config",
            "--output-format",
            "json",
            "--roots",
            "pkg.chains.Doubled",
            "--roots",
            "pkg.chains.WorkerNet",
            "--roots",
            "pkg.chains.HookNet",
            "--roots",
            "pkg.loud.Loud",
        ],
    );
    let findings: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", text(&out)));
    let mut normal = Vec::new();
    for finding in findings.as_array().unwrap() {
        if finding["filename"].as_str().unwrap().ends_with("chains.py")
            && finding["gated_by"].as_array().unwrap().is_empty()
        {
            normal.push(finding["location"]["row"].as_u64().unwrap() as u32);
        }
    }
    normal.sort();
    let chains = fixture().join("pkg/chains.py");
    let mut expected: Vec<u32> = ["# gated:", "# never:", "# normal:"]
        .iter()
        .flat_map(|tag| {
            std::fs::read_to_string(&chains)
                .unwrap()
                .lines()
                .enumerate()
                .filter(|(_, line)| line.contains(tag))
                .map(|(index, _)| index as u32 + 1)
                .collect::<Vec<_>>()
        })
        .collect();
    expected.sort();
    assert_eq!(normal, expected);
}

/// A subclass forwarding its own parameter to the base's option (`super().__init__(dim, flag)`,
/// `flag=use_flag`) keeps the base's option at its default only while nothing sets the
/// subclass's parameter: a construction site passing it puts the branch in the normal tier.
#[test]
fn a_forwarded_option_set_at_a_construction_site_is_set() {
    let inherited = fixture().join("pkg/inherited.py");
    let gated = common::line_containing(&inherited, "# gated:") as u64;
    for build in ["PositionalGate(4, True)", "RenamedGate(4, use_flag=True)"] {
        let source = format!(
            "from .inherited import PositionalGate, RenamedGate\n\n\ndef make():\n    return {build}\n"
        );
        let gated_by = gated_by_with_build(&["__init__.py", "inherited.py"], &source, gated);
        assert_eq!(gated_by, serde_json::json!([]), "{build}");
    }
}

/// Roots for `option_args.py`: its modules are roots, the helpers they call are not.
const OPTION_ARG_ROOTS: [&str; 8] = [
    "--roots",
    "pkg.option_args.Selector",
    "--roots",
    "pkg.option_args.Sampler",
    "--roots",
    "pkg.option_args.Literal",
    "--roots",
    "pkg.option_args.Checked",
];

/// `(row, gated_by)` of the findings of `option_args.py` in `dir` (with its roots).
fn option_arg_gates(dir: &Path) -> Vec<(u64, serde_json::Value)> {
    scan_findings(dir, &OPTION_ARG_ROOTS)
        .iter()
        .filter(|f| f["filename"].as_str().unwrap().ends_with("option_args.py"))
        .map(|f| {
            (
                f["location"]["row"].as_u64().unwrap(),
                f["gated_by"].clone(),
            )
        })
        .collect()
}

/// `select(x, self.ratio, self.min_score)`: the helper's `min_score is not None` branch needs the
/// module's option off its default, and the gate names the module's option (also one caller
/// further, `resample(x, strategy=self.strategy)` → `draw(x, strategy)`).
#[test]
fn an_option_passed_as_an_argument_gates_the_callee_branch_and_names_the_option() {
    let source = fixture().join("pkg/option_args.py");
    let gates = option_arg_gates(&fixture());
    let min_score = common::line_containing(&source, "# gated: needs Selector") as u64;
    let strategy = common::line_containing(&source, "# gated: needs Sampler") as u64;
    assert!(
        gates.contains(&(
            min_score,
            serde_json::json!([{"class": "pkg.option_args.Selector", "option": "min_score", "default": "None", "needs": "not None"}])
        )),
        "{gates:?}"
    );
    assert!(
        gates.contains(&(
            strategy,
            serde_json::json!([{"class": "pkg.option_args.Sampler", "option": "strategy", "default": "'poisson'", "needs": "!= 'poisson'"}])
        )),
        "{gates:?}"
    );
}

/// A construction in the tree that sets the option (`Selector(min_score=0.1)`) makes it no
/// option: the helper's branch is back in the normal tier.
#[test]
fn an_option_argument_set_at_a_construction_site_is_in_the_normal_tier() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = copy_fixture(dir.path(), &["__init__.py", "option_args.py"]);
    common::write(
        &pkg,
        "build.py",
        "from .option_args import Selector\n\n\ndef make():\n    return Selector(min_score=0.1)\n",
    );
    let source = fixture().join("pkg/option_args.py");
    let min_score = common::line_containing(&source, "# gated: needs Selector") as u64;
    let gates = option_arg_gates(dir.path());
    assert!(
        gates.contains(&(min_score, serde_json::json!([]))),
        "{gates:?}"
    );
}

/// `if clip is not None and clip <= 0: raise ValueError(...)` before `self.clip = clip`: the
/// store is made on every construction, so `clip` is an option and its branch is gated.
#[test]
fn an_option_stored_after_a_validation_is_an_option() {
    let source = fixture().join("pkg/option_args.py");
    let clip = common::line_containing(&source, "# gated: needs Checked") as u64;
    let gates = option_arg_gates(&fixture());
    assert!(
        gates.contains(&(
            clip,
            serde_json::json!([{"class": "pkg.option_args.Checked", "option": "clip", "default": "None", "needs": "not None"}])
        )),
        "{gates:?}"
    );
}
