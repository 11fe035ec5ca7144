//! `graphbreak report merge A.json B.json ... -o ALL.json`: one report from the JSON reports of several jobs —
//! the shards of one `check --shard K/N` run, or runs that split the matrix by hand (one job per torch version).
//! The result has the schema of one run's report and, for shards, the exact result order one sequential run
//! would have written, so `--baseline` gates it as it gates a single run (same exit codes).
//!
//! Refused, with the file named (exit 2): reports of different `schema_version`s or graphbreak versions, run
//! with different options, shards of different plans (another case list or interpreter list), a shard given
//! twice or missing, an interrupted report, and any (case, interpreter) present twice.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Value, json};

use super::OutputFormat;
use super::baseline;
use super::record::{CaseResult, ProbeEnvironment};
use super::report::{self, Document};
use super::shard::ShardInfo;

mod volatile;
use volatile::{
    VOLATILE_ENVIRONMENT_FIELDS, VOLATILE_FIELDS, VOLATILE_NOTE_PREFIXES, round_measurements,
};

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// JSON reports to combine (`check --output-format json -o FILE`, e.g. one per `--shard`).
    #[arg(required = true, value_name = "REPORT")]
    pub reports: Vec<PathBuf>,
    /// Write the merged report to FILE instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Format of the merged report.
    #[arg(long, value_enum, default_value = "json")]
    pub output_format: OutputFormat,
    /// Gate the merged report against a baseline, as `check --baseline` does (exit 1 on regressions).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Record the merged report as a baseline.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Compiled ms/step slowdown (percent) that counts as a regression (default: the reports' own option).
    #[arg(long, value_name = "PCT")]
    pub regression_threshold: Option<f64>,
}

#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// The report taken as the reference (e.g. a sequential run).
    pub first: PathBuf,
    /// The report compared with it (e.g. merged shards, or a `--gpus` run).
    pub second: PathBuf,
}

/// A result as `report diff` compares it: the record without [`VOLATILE_FIELDS`], the load reading and the
/// load notes, numbers to 9 significant digits.
pub fn comparable(result: &CaseResult) -> Value {
    let mut value = serde_json::to_value(result).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        for field in VOLATILE_FIELDS {
            map.remove(*field);
        }
        if let Some(environment) = map.get_mut("environment").and_then(Value::as_object_mut) {
            for field in VOLATILE_ENVIRONMENT_FIELDS {
                environment.remove(*field);
            }
        }
        if let Some(notes) = map.get_mut("notes").and_then(Value::as_array_mut) {
            notes.retain(|note| {
                let text = note.as_str().unwrap_or("");
                !VOLATILE_NOTE_PREFIXES.iter().any(|p| text.starts_with(p))
            });
        }
    }
    round_measurements(&mut value);
    value
}

/// The differences between two reports' facts, one line each (empty = the same run, as far as the code goes).
fn differences(first: &Input, second: &Input) -> Vec<String> {
    let mut lines = Vec::new();
    if first.options != second.options {
        lines.push(format!("options: {} → {}", first.options, second.options));
    }
    let label = |r: &CaseResult| {
        format!(
            "{} · torch {}",
            r.case.as_deref().unwrap_or("?"),
            r.torch_version.as_deref().unwrap_or("-")
        )
    };
    if first.results.len() != second.results.len() {
        lines.push(format!(
            "{} result(s) → {} result(s)",
            first.results.len(),
            second.results.len()
        ));
    }
    for (a, b) in first.results.iter().zip(&second.results) {
        let (a, b) = (comparable(a), comparable(b));
        let (Some(a_map), Some(b_map)) = (a.as_object(), b.as_object()) else {
            continue;
        };
        let who = label(&serde_json::from_value(a.clone()).unwrap_or_default());
        let keys: BTreeSet<&String> = a_map.keys().chain(b_map.keys()).collect();
        for key in keys {
            let (x, y) = (&a_map.get(key), &b_map.get(key));
            if x != y {
                let show = |v: &Option<&Value>| {
                    let text = v.map_or("(absent)".to_owned(), |v| v.to_string());
                    report::first_line(&text)
                        .chars()
                        .take(200)
                        .collect::<String>()
                };
                lines.push(format!("{who}: {key}: {} → {}", show(x), show(y)));
            }
        }
    }
    lines
}

pub fn diff(args: DiffArgs) -> ExitCode {
    let loaded = load(&args.first).and_then(|a| Ok((a, load(&args.second)?)));
    let (first, second) = match loaded {
        Ok(pair) => pair,
        Err(message) => {
            eprintln!("graphbreak report diff: error: {message}");
            return ExitCode::from(2);
        }
    };
    let lines = differences(&first, &second);
    for line in &lines {
        println!("{line}");
    }
    if lines.is_empty() {
        eprintln!(
            "graphbreak: same facts in {} result(s) (timings, load and GPU placement not compared)",
            first.results.len()
        );
        ExitCode::SUCCESS
    } else {
        eprintln!("graphbreak: {} difference(s)", lines.len());
        ExitCode::from(1)
    }
}

/// One input report.
struct Input {
    path: PathBuf,
    schema_version: u64,
    graphbreak_version: Option<String>,
    options: Value,
    environment: Vec<ProbeEnvironment>,
    results: Vec<CaseResult>,
    interrupted: bool,
    shard: Option<ShardInfo>,
}

/// The reports combined, before rendering.
pub struct Merged {
    pub schema_version: u64,
    pub options: Value,
    pub environment: Vec<ProbeEnvironment>,
    pub results: Vec<CaseResult>,
    /// `{file, shard, results}` per input, in the order given.
    pub merged_from: Vec<Value>,
}

pub fn run(args: MergeArgs) -> ExitCode {
    match run_checked(args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("graphbreak report merge: error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run_checked(args: MergeArgs) -> Result<ExitCode, String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let inputs = args
        .reports
        .iter()
        .map(|path| load(path))
        .collect::<Result<Vec<_>, _>>()?;
    let baseline_document = args.baseline.as_deref().map(baseline::load).transpose()?;
    let merged = merge(inputs)?;

    let threshold = args
        .regression_threshold
        .or_else(|| merged.options["regression_threshold"].as_f64())
        .unwrap_or(10.0);
    let mut comparison = match &baseline_document {
        Some(baseline) => baseline::compare(&baseline.document, &merged.results, threshold, &cwd),
        None => baseline::Comparison::empty(),
    };
    if let Some(baseline) = &baseline_document {
        comparison
            .notes
            .splice(0..0, baseline.notes.iter().cloned());
    }
    let document = Document {
        environment: &merged.environment,
        results: &merged.results,
        options: merged.options.clone(),
        regressions: &comparison.regressions,
        baseline_notes: &comparison.notes,
        baseline_unchecked: &comparison.unchecked,
        baseline: args.baseline.as_deref(),
        interrupted: false,
        cwd: &cwd,
        shard: None,
    };
    let rendered = match args.output_format {
        OutputFormat::Json => {
            let mut value = report::to_json(&document);
            value["schema_version"] = json!(merged.schema_version);
            value["merged_from"] = Value::Array(merged.merged_from.clone());
            let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
            text.push('\n');
            text
        }
        OutputFormat::Text => report::render_text(&document),
        OutputFormat::Markdown => report::render_markdown(&document),
        OutputFormat::Html => super::html::render(&document),
    };
    match &args.output {
        Some(path) => {
            super::write_file(path, &rendered)?;
            eprintln!(
                "graphbreak: {} report(s), {} result(s) merged into {}",
                args.reports.len(),
                merged.results.len(),
                path.display()
            );
        }
        None => {
            use std::io::Write;
            let _ = std::io::stdout().write_all(rendered.as_bytes());
        }
    }
    if let Some(path) = &args.write_baseline {
        super::write_file(path, &baseline::render(&document))?;
        eprintln!("graphbreak: baseline written to {}", path.display());
    }

    // The exit status a sequential `check` of the same cases would have had.
    let failed = merged.results.iter().filter(|r| !r.status.is_ok()).count();
    let with_breaks = merged
        .results
        .iter()
        .filter(|r| r.graph_break_count.unwrap_or(0) > 0)
        .count();
    let fail_on_break = merged.options["fail_on_break"] == true;
    for regression in &comparison.regressions {
        eprintln!("REGRESSION {regression}");
    }
    for unchecked in &comparison.unchecked {
        eprintln!("UNCHECKED {unchecked}");
    }
    if failed > 0 {
        eprintln!("graphbreak: {failed} result(s) did not run cleanly");
    }
    Ok(
        if failed > 0 || !comparison.regressions.is_empty() || (fail_on_break && with_breaks > 0) {
            ExitCode::from(1)
        } else if !comparison.unchecked.is_empty() {
            ExitCode::from(3)
        } else {
            ExitCode::SUCCESS
        },
    )
}

fn load(path: &Path) -> Result<Input, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{shown}: not a JSON report (use check --output-format json): {e}"))?;
    from_value(path, &value)
}

fn from_value(path: &Path, value: &Value) -> Result<Input, String> {
    let shown = path.display();
    let Some(results) = value.get("results").filter(|r| r.is_array()) else {
        return Err(format!(
            "{shown}: no `results` list: not a graphbreak JSON report"
        ));
    };
    let results: Vec<CaseResult> = serde_json::from_value(results.clone())
        .map_err(|e| format!("{shown}: a result does not match the result schema: {e}"))?;
    let environment: Vec<ProbeEnvironment> = match value.get("environment") {
        None | Some(Value::Null) => Vec::new(),
        Some(environment) => serde_json::from_value(environment.clone())
            .map_err(|e| format!("{shown}: `environment` is not a list of interpreters: {e}"))?,
    };
    let shard = match value.get("shard") {
        None | Some(Value::Null) => None,
        Some(shard) => Some(
            serde_json::from_value::<ShardInfo>(shard.clone())
                .map_err(|e| format!("{shown}: unreadable `shard`: {e}"))?,
        ),
    };
    if let Some(shard) = &shard
        && shard.positions.len() != results.len()
    {
        return Err(format!(
            "{shown}: `shard.positions` has {} entries for {} results",
            shard.positions.len(),
            results.len()
        ));
    }
    Ok(Input {
        path: path.to_path_buf(),
        // Reports written before the field existed are version 1 (docs/check-protocol.md).
        schema_version: value["schema_version"].as_u64().unwrap_or(1),
        graphbreak_version: value["graphbreak_version"].as_str().map(str::to_owned),
        options: value.get("options").cloned().unwrap_or(Value::Null),
        environment,
        results,
        interrupted: value["interrupted"] == true,
        shard,
    })
}

/// Every input agrees on `what`, or an error lists each file's value.
fn agree<T: PartialEq + std::fmt::Debug>(
    inputs: &[Input],
    what: &str,
    pick: impl Fn(&Input) -> T,
) -> Result<(), String> {
    let first = pick(&inputs[0]);
    if inputs.iter().all(|input| pick(input) == first) {
        return Ok(());
    }
    let listing: Vec<String> = inputs
        .iter()
        .map(|input| format!("{}: {:?}", input.path.display(), pick(input)))
        .collect();
    Err(format!(
        "the reports differ in {what}; they are not parts of one run:\n  {}",
        listing.join("\n  ")
    ))
}

fn shard_name(input: &Input) -> String {
    match &input.shard {
        Some(shard) => format!(
            "shard {}/{} ({})",
            shard.index,
            shard.count,
            input.path.display()
        ),
        None => input.path.display().to_string(),
    }
}

/// A (case, interpreter) identity: the node id, the torch version and the interpreter's executable.
fn identity(result: &CaseResult) -> (String, String, String) {
    let field = |value: &Option<String>| value.clone().unwrap_or_default();
    (
        field(&result.case),
        field(&result.torch_version),
        field(&result.python_executable),
    )
}

fn merge(inputs: Vec<Input>) -> Result<Merged, String> {
    if inputs.is_empty() {
        return Err("no reports given".into());
    }
    agree(&inputs, "schema_version", |i| i.schema_version)?;
    agree(&inputs, "graphbreak version", |i| {
        i.graphbreak_version.clone()
    })?;
    agree(&inputs, "options", |i| i.options.clone())?;
    for input in &inputs {
        if input.interrupted {
            return Err(format!(
                "{} was interrupted: its report is incomplete (re-run that job)",
                shard_name(input)
            ));
        }
    }
    let sharded = inputs.iter().filter(|i| i.shard.is_some()).count();
    if sharded != 0 && sharded != inputs.len() {
        let plain: Vec<String> = inputs
            .iter()
            .filter(|i| i.shard.is_none())
            .map(|i| i.path.display().to_string())
            .collect();
        return Err(format!(
            "some reports are shards (check --shard) and some are not: {}",
            plain.join(", ")
        ));
    }

    // (sequential position, result); plain reports keep the order they were given in.
    let mut placed: Vec<(usize, CaseResult)> = Vec::new();
    if sharded > 0 {
        let shard_of = |input: &Input| input.shard.clone().expect("all sharded");
        agree(&inputs, "shard count", |i| shard_of(i).count)?;
        agree(
            &inputs,
            "plan (the case list or the interpreters differ)",
            |i| (shard_of(i).plan, shard_of(i).units),
        )?;
        let count = shard_of(&inputs[0]).count;
        let units = shard_of(&inputs[0]).units;
        let mut given: Vec<Option<&Input>> = vec![None; count + 1];
        for input in &inputs {
            let index = shard_of(input).index;
            if index == 0 || index > count {
                return Err(format!(
                    "{}: shard index {index} out of 1..{count}",
                    input.path.display()
                ));
            }
            if let Some(earlier) = given[index] {
                return Err(format!(
                    "shard {index}/{count} given twice: {} and {}",
                    earlier.path.display(),
                    input.path.display()
                ));
            }
            given[index] = Some(input);
        }
        let missing: Vec<String> = (1..=count)
            .filter(|index| given[*index].is_none())
            .map(|index| format!("{index}/{count}"))
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "missing shard(s) {}: the merged report would be incomplete",
                missing.join(", ")
            ));
        }
        let mut owner: Vec<Option<&Path>> = vec![None; units];
        for input in &inputs {
            for (position, result) in shard_of(input).positions.iter().zip(&input.results) {
                let Some(slot) = owner.get_mut(*position) else {
                    return Err(format!(
                        "{}: position {position} is outside the plan of {units} run(s)",
                        input.path.display()
                    ));
                };
                if let Some(earlier) = slot {
                    return Err(format!(
                        "overlapping shards: {} appears in {} and {}",
                        result.case.as_deref().unwrap_or("?"),
                        earlier.display(),
                        input.path.display()
                    ));
                }
                *slot = Some(&input.path);
                placed.push((*position, result.clone()));
            }
        }
        if placed.len() != units {
            return Err(format!(
                "the shards hold {} of the plan's {units} run(s)",
                placed.len()
            ));
        }
        placed.sort_by_key(|(position, _)| *position);
    } else {
        for input in &inputs {
            for result in &input.results {
                placed.push((placed.len(), result.clone()));
            }
        }
    }

    let mut seen = BTreeSet::new();
    for (_, result) in &placed {
        let key = identity(result);
        if !seen.insert(key.clone()) {
            return Err(format!(
                "duplicate result: {} on torch {} ({}) appears more than once",
                key.0, key.1, key.2
            ));
        }
    }

    // Interpreters in the order their first result appears: the order one sequential run lists them in.
    let mut environment: Vec<ProbeEnvironment> = Vec::new();
    let all_environments: Vec<&ProbeEnvironment> =
        inputs.iter().flat_map(|i| i.environment.iter()).collect();
    for (_, result) in &placed {
        if let Some(env) = all_environments
            .iter()
            .find(|env| env.python_executable == result.python_executable)
            && !environment.contains(env)
        {
            environment.push((*env).clone());
        }
    }
    for env in all_environments {
        if !environment.contains(env) {
            environment.push(env.clone());
        }
    }

    let merged_from = inputs
        .iter()
        .map(|input| {
            json!({
                "file": input.path.display().to_string(),
                "shard": input.shard.as_ref().map(|s| format!("{}/{}", s.index, s.count)),
                "results": input.results.len(),
            })
        })
        .collect();
    Ok(Merged {
        schema_version: inputs[0].schema_version,
        options: inputs[0].options.clone(),
        environment,
        results: placed.into_iter().map(|(_, result)| result).collect(),
        merged_from,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(shard: Option<(usize, usize, Vec<usize>)>, cases: &[&str]) -> Value {
        let mut value = json!({
            "schema_version": 2, "graphbreak_version": "0.1.0", "options": {"device": "cpu"},
            "environment": [{"python_executable": "/v/bin/python", "torch_version": "2.11.0"}],
            "interrupted": false,
            "results": cases.iter().map(|case| json!({
                "case": case, "status": "ok", "torch_version": "2.11.0", "python_executable": "/v/bin/python"
            })).collect::<Vec<_>>(),
        });
        if let Some((index, count, positions)) = shard {
            value["shard"] = json!({"index": index, "count": count, "units": 3, "plan": "p",
                                    "positions": positions});
        }
        value
    }

    fn merged(reports: Vec<Value>) -> Result<Merged, String> {
        let inputs = reports
            .iter()
            .enumerate()
            .map(|(i, value)| from_value(Path::new(&format!("r{i}.json")), value))
            .collect::<Result<Vec<_>, _>>()?;
        merge(inputs)
    }

    fn cases(merged: &Merged) -> Vec<String> {
        merged
            .results
            .iter()
            .map(|r| r.case.clone().unwrap())
            .collect()
    }

    #[test]
    fn shards_come_back_in_sequential_order() {
        let all = merged(vec![
            report(Some((2, 2, vec![1])), &["b"]),
            report(Some((1, 2, vec![0, 2])), &["a", "c"]),
        ])
        .unwrap();
        assert_eq!(cases(&all), ["a", "b", "c"]);
        assert_eq!(
            all.environment.len(),
            1,
            "the shared interpreter is listed once"
        );
        // More shards than units: the empty ones merge too.
        let mut empty = report(Some((2, 3, vec![])), &[]);
        empty["environment"] = json!([]);
        let all = merged(vec![
            report(Some((1, 3, vec![0, 1])), &["a", "b"]),
            empty,
            report(Some((3, 3, vec![2])), &["c"]),
        ])
        .unwrap();
        assert_eq!(cases(&all), ["a", "b", "c"]);
    }

    #[test]
    fn refuses_what_is_not_one_run() {
        let error = |reports: Vec<Value>| merged(reports).err().expect("refused");
        let one = || report(Some((1, 2, vec![0, 2])), &["a", "c"]);
        let two = || report(Some((2, 2, vec![1])), &["b"]);
        assert!(error(vec![one(), one()]).contains("shard 1/2 given twice"));
        assert!(error(vec![one()]).contains("missing shard(s) 2/2"));
        let mut newer = two();
        newer["schema_version"] = json!(3);
        assert!(error(vec![one(), newer]).contains("differ in schema_version"));
        let mut other_options = two();
        other_options["options"]["device"] = json!("cuda");
        assert!(error(vec![one(), other_options]).contains("differ in options"));
        let overlapping = report(Some((2, 2, vec![2])), &["c"]);
        let message = error(vec![one(), overlapping]);
        assert!(
            message.contains("overlapping shards: c appears in r0.json and r1.json"),
            "{message}"
        );
        let mut other_plan = two();
        other_plan["shard"]["plan"] = json!("q");
        assert!(error(vec![one(), other_plan]).contains("differ in plan"));
        let mut cut = two();
        cut["interrupted"] = json!(true);
        assert!(error(vec![one(), cut]).contains("was interrupted"));
        assert!(error(vec![one(), report(None, &["b"])]).contains("some reports are shards"));
        // Plain reports: concatenated, a (case, interpreter) twice is refused.
        assert!(
            error(vec![report(None, &["a"]), report(None, &["a"])]).contains("duplicate result: a")
        );
        let plain = merged(vec![report(None, &["a"]), report(None, &["b"])]).unwrap();
        assert_eq!(cases(&plain), ["a", "b"]);
    }
}
