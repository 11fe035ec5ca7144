//! `scan --show-reached` (every function of the compiled region, with the root it is reached
//! from) and `scan --why FILE:LINE` (the call chain to one function), as text or JSON.

use super::display_path;
use crate::diagnostics::ChainLink;
use crate::scan::{ReachedFunction, WhyAnswer};
use std::io::Write;

/// `reached_from` as JSON: one object per function from the root, with the call that reached it.
pub fn chain_json(chain: &[ChainLink]) -> serde_json::Value {
    serde_json::Value::Array(
        chain
            .iter()
            .map(|link| {
                serde_json::json!({
                    "function": link.function,
                    "call": link.call_text(|p| p.display().to_string()),
                    "by_name": link.by_name,
                })
            })
            .collect(),
    )
}

/// The chain on one line: `root → a (path:12) → b (path:40)`.
pub fn chain_text(chain: &[ChainLink]) -> String {
    chain
        .iter()
        .map(|link| match link.call_text(display_path) {
            Some(call) if link.by_name => {
                format!("{} ({call}, by method name)", link.function)
            }
            Some(call) => format!("{} ({call})", link.function),
            None => link.function.clone(),
        })
        .collect::<Vec<_>>()
        .join(" -> ")
}

pub fn write_reached(
    out: &mut dyn Write,
    reached: &[ReachedFunction],
    json: bool,
) -> std::io::Result<()> {
    if json {
        let items: Vec<serde_json::Value> = reached
            .iter()
            .map(|r| {
                serde_json::json!({
                    "filename": r.path.display().to_string(),
                    "line": r.line,
                    "end_line": r.end_line,
                    "function": r.function,
                    "root": r.root,
                    "reached_from": chain_json(&r.reached_from),
                })
            })
            .collect();
        serde_json::to_writer_pretty(&mut *out, &items)?;
        return writeln!(out);
    }
    for r in reached {
        writeln!(
            out,
            "{}:{}: {} (via {})",
            display_path(&r.path),
            r.line,
            r.function,
            r.root
        )?;
    }
    Ok(())
}

pub fn write_why(out: &mut dyn Write, answer: &WhyAnswer, json: bool) -> std::io::Result<()> {
    if json {
        let value = match answer {
            WhyAnswer::Reached {
                function,
                root_reason,
                chain,
            } => serde_json::json!({
                "function": function,
                "reached": true,
                "root_reason": root_reason,
                "reached_from": chain_json(chain),
            }),
            WhyAnswer::NotReached { function, roots } => serde_json::json!({
                "function": function,
                "reached": false,
                "searched_from": roots,
            }),
        };
        serde_json::to_writer_pretty(&mut *out, &value)?;
        return writeln!(out);
    }
    match answer {
        WhyAnswer::Reached {
            function,
            root_reason,
            chain,
        } => {
            writeln!(out, "{function} is traced: {}", chain_text(chain))?;
            writeln!(out, "root: {root_reason}")
        }
        WhyAnswer::NotReached { function, roots } => {
            match function {
                Some(function) => writeln!(out, "{function} is not reached by any compile root.")?,
                None => writeln!(
                    out,
                    "this line is at module level: no compile root traces it."
                )?,
            }
            writeln!(out, "searched from {} root(s):", roots.len())?;
            for root in roots {
                writeln!(out, "  {root}")?;
            }
            Ok(())
        }
    }
}
