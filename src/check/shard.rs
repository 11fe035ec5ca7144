//! `check --shard K/N`: which (case, interpreter) units this job runs, so that CI systems that already spread
//! jobs over machines (GitHub Actions matrices, GitLab `parallel`, Buildkite, Slurm arrays) split a long check
//! without a scheduler of ours.
//!
//! The partition must come out the same in every job of the matrix, whatever order the cases were discovered
//! in: units are sorted by a stable key — the case's node id, then the interpreter as the user named it
//! (`torch:2.5` for a provisioned venv, `python:<path>` for an interpreter) — and dealt round-robin, so shard
//! sizes differ by at most one. Each unit also keeps its position in the sequential order (cases in
//! discovery order × interpreters in the order given), which `report merge` uses to put the shards' results
//! back into exactly the order one sequential run would have reported them.
//!
//! A shard's JSON report carries a `shard` object (see [`ShardInfo`]); `report merge` (src/check/merge.rs)
//! refuses shards of different plans, a shard given twice, a missing shard and overlapping units.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::provision::fnv1a;

/// `K/N`, 1 ≤ K ≤ N.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("`{text}`: expected K/N with 1 <= K <= N, e.g. 2/4");
        let (index, count) = text.split_once('/').ok_or_else(bad)?;
        let index: usize = index.trim().parse().map_err(|_| bad())?;
        let count: usize = count.trim().parse().map_err(|_| bad())?;
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// One (case, interpreter) pair to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    /// Index in the sequential order (case-major): the report order of a run without shards.
    pub position: usize,
    pub case: usize,
    pub interpreter: usize,
}

/// What a shard's JSON report says about the partition it ran (the `shard` key of the report).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardInfo {
    /// 1-based.
    pub index: usize,
    pub count: usize,
    /// Units of the whole plan (all shards).
    pub units: usize,
    /// Fingerprint of the whole plan (every unit key in sequential order): shards of one run share it.
    pub plan: String,
    /// Sequential position of each entry of `results`, in the same order.
    pub positions: Vec<usize>,
}

/// Every unit of the plan in sequential order: each case (discovery order) × each interpreter (given order).
pub fn all_units(case_count: usize, interpreter_count: usize) -> Vec<Unit> {
    let mut units = Vec::with_capacity(case_count * interpreter_count);
    for case in 0..case_count {
        for interpreter in 0..interpreter_count {
            units.push(Unit {
                position: units.len(),
                case,
                interpreter,
            });
        }
    }
    units
}

/// The units of `shard`, in sequential order. `case_keys` are node ids, `interpreter_keys` the stable names of
/// the interpreters (see [`interpreter_key`]).
pub fn select(
    units: &[Unit],
    case_keys: &[String],
    interpreter_keys: &[String],
    shard: Shard,
) -> Vec<Unit> {
    let mut ranked: Vec<&Unit> = units.iter().collect();
    // Position breaks ties only between identical keys (the same target listed twice).
    ranked.sort_by(|a, b| {
        (
            &case_keys[a.case],
            &interpreter_keys[a.interpreter],
            a.position,
        )
            .cmp(&(
                &case_keys[b.case],
                &interpreter_keys[b.interpreter],
                b.position,
            ))
    });
    let mut chosen: Vec<Unit> = ranked
        .into_iter()
        .enumerate()
        .filter(|(rank, _)| rank % shard.count == shard.index - 1)
        .map(|(_, unit)| *unit)
        .collect();
    chosen.sort_by_key(|unit| unit.position);
    chosen
}

/// Fingerprint of the plan: the same cases and interpreters in the same order give the same string.
pub fn plan_fingerprint(case_keys: &[String], interpreter_keys: &[String]) -> String {
    let mut text = String::new();
    for case in case_keys {
        text.push_str(case);
        text.push('\n');
    }
    text.push('\u{1}');
    for interpreter in interpreter_keys {
        text.push_str(interpreter);
        text.push('\n');
    }
    format!("{:016x}", fnv1a(text.as_bytes()))
}

/// How an interpreter is named in the partition: independent of the machine where that is possible (a path
/// under the current directory is taken relative to it; a `--torch` venv by its version, not its cache path).
pub fn interpreter_key(python: Option<&Path>, torch: Option<&str>, cwd: &Path) -> String {
    match (python, torch) {
        (_, Some(version)) => format!("torch:{version}"),
        (Some(path), None) => {
            let shown = path.strip_prefix(cwd).unwrap_or(path);
            format!("python:{}", shown.display())
        }
        (None, None) => "python:".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_k_of_n() {
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "-1/2", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    /// Every unit lands in exactly one shard, sizes differ by at most one, and each shard keeps the
    /// sequential order.
    #[test]
    fn shards_partition_the_plan() {
        let cases = keys(&["b.py::x", "a.py::y", "c.py::z", "a.py::w", "d.py::v"]);
        let interpreters = keys(&["torch:2.5", "torch:2.11"]);
        let units = all_units(cases.len(), interpreters.len());
        for count in 1..=12 {
            let mut seen = Vec::new();
            let mut sizes = Vec::new();
            for index in 1..=count {
                let chosen = select(&units, &cases, &interpreters, Shard { index, count });
                assert!(chosen.windows(2).all(|w| w[0].position < w[1].position));
                sizes.push(chosen.len());
                seen.extend(chosen.iter().map(|u| u.position));
            }
            seen.sort();
            assert_eq!(seen, (0..units.len()).collect::<Vec<_>>(), "N={count}");
            assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
        }
    }

    /// Discovery order does not change which shard runs a (case, interpreter).
    #[test]
    fn assignment_is_stable_under_reordering() {
        let assignment = |cases: &[String], interpreters: &[String]| {
            let units = all_units(cases.len(), interpreters.len());
            let mut pairs = Vec::new();
            for index in 1..=3 {
                for unit in select(&units, cases, interpreters, Shard { index, count: 3 }) {
                    pairs.push((
                        cases[unit.case].clone(),
                        interpreters[unit.interpreter].clone(),
                        index,
                    ));
                }
            }
            pairs.sort();
            pairs
        };
        let cases = keys(&["b.py::x", "a.py::y", "c.py::z", "a.py::w"]);
        let interpreters = keys(&["torch:2.5", "python:.venv/bin/python"]);
        let mut reversed_cases = cases.clone();
        reversed_cases.reverse();
        let mut reversed_interpreters = interpreters.clone();
        reversed_interpreters.reverse();
        assert_eq!(
            assignment(&cases, &interpreters),
            assignment(&reversed_cases, &reversed_interpreters)
        );
        assert_ne!(
            plan_fingerprint(&cases, &interpreters),
            plan_fingerprint(&reversed_cases, &interpreters),
            "the plan's fingerprint follows the sequential order (it orders the merged report)"
        );
    }

    #[test]
    fn interpreter_keys_do_not_depend_on_the_checkout_path() {
        let key = |cwd: &str| {
            interpreter_key(
                Some(Path::new(&format!("{cwd}/.venv/bin/python"))),
                None,
                Path::new(cwd),
            )
        };
        assert_eq!(key("/home/runner/work/p"), key("/builds/p"));
        assert_eq!(
            interpreter_key(
                Some(Path::new("/x/venv/bin/python")),
                Some("2.5"),
                Path::new("/")
            ),
            "torch:2.5"
        );
    }
}
