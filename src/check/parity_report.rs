//! How parity was judged, in words for the text, markdown and HTML reports: the reference (float64, or
//! float32 when the model cannot run in float64, or eager alone) and why a better one failed, gradients
//! that are `None` on one side and zeros on the other, and the tensors whose eager result is itself far
//! from the reference (outputs that reorder, such as top-k selections), which the ratio rule decides.

use super::record::{CaseResult, ParityEntry};
use super::report::{clip, first_line};

/// Eager's own error against the reference above this share of the reference's scale (RMSE over RMS) is
/// no rounding noise: the outputs reorder under any numeric change (a top-k selection permutes its
/// queries), so eager and compiled differ per index by a lot while both are as close to the reference.
/// The report then says that the ratio rule decided, so a large max abs diff next to `ok` is explained.
pub const EAGER_FAR_FROM_REFERENCE: f64 = 0.1;

/// How parity was judged: against what (and why not a better reference), how many tensors, the worst
/// compiled/eager error ratio; then one line per tensor whose eager result is itself far from the
/// reference (compared by ratio, not per index against eager).
pub fn parity_lines(result: &CaseResult) -> Vec<String> {
    let Some(reference) = result.parity_reference.as_deref() else {
        return Vec::new();
    };
    let mut entries: Vec<&ParityEntry> = result.parity_outputs.iter().collect();
    if let Some(grads) = &result.parity_grads {
        entries.extend(grads.worst.iter());
    }
    let failed: Vec<String> = result
        .parity_reference_failed
        .iter()
        .flatten()
        .filter(|(name, _)| name.as_str() != reference)
        .map(|(name, why)| format!("{name}: {}", clip(first_line(why), 120)))
        .collect();
    let why = if failed.is_empty() {
        String::new()
    } else {
        format!(" (no {})", failed.join("; no "))
    };
    let mut line = format!(
        "parity vs {reference}{why}: {} output(s)",
        result.parity_outputs.len()
    );
    if let Some(grads) = &result.parity_grads {
        let failed = grads.failed.unwrap_or(0);
        let failed = if failed > 0 {
            format!(" ({failed} worse than eager)")
        } else {
            String::new()
        };
        line.push_str(&format!(
            ", {} gradient(s){failed}",
            grads.compared.unwrap_or(0)
        ));
    }
    line.push_str(" compared");
    if let Some(zeros) = result
        .parity_grads
        .as_ref()
        .and_then(|g| g.none_vs_zero)
        .filter(|n| *n > 0)
    {
        line.push_str(&format!(
            "; {zeros} gradient(s) None on one side and all zeros on the other, counted equal"
        ));
    }
    let worst = entries
        .iter()
        .filter_map(|e| Some((e.ratio?, e)))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((ratio, entry)) = worst {
        line.push_str(&format!(
            "; worst compiled/eager error ratio {ratio:.2} ({})",
            entry.name.as_deref().unwrap_or("?")
        ));
    }
    if result.fallback_random == Some(true) {
        line.push_str("; fallback_random (the step draws random numbers)");
    }
    let mut lines = vec![line];
    for entry in entries.iter().filter(|e| {
        e.verdict.as_deref() == Some("within_multiplier")
            && e.eager_relative_error
                .is_some_and(|r| r > EAGER_FAR_FROM_REFERENCE)
    }) {
        lines.push(format!(
            "  {}: eager itself differs from the {reference} reference by {:.0}% (RMSE {}; eager vs \
             compiled max abs diff {}): compared by ratio, compiled's error {} × eager's (≤ {})",
            entry.name.as_deref().unwrap_or("?"),
            100.0 * entry.eager_relative_error.unwrap_or(0.0),
            significant(entry.eager_error),
            significant(entry.max_abs_diff),
            entry
                .ratio
                .map_or_else(|| "n/a".to_owned(), |r| format!("{r:.2}")),
            entry.multiplier.unwrap_or(0.0),
        ));
    }
    lines
}

fn significant(value: Option<f64>) -> String {
    value.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.3}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(value: serde_json::Value) -> CaseResult {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn says_which_reference_judged_and_why_eager_far_from_it_is_compared_by_ratio() {
        let result = record(json!({
            "parity_reference": "float32",
            "parity_reference_failed": {"float64": "RuntimeError: expected scalar type Double but found Float"},
            "parity_outputs": [
                {"name": "output['pred_boxes']", "verdict": "within_multiplier", "ok": true,
                 "max_abs_diff": 0.96, "eager_error": 0.21, "compiled_error": 0.2, "ratio": 0.95,
                 "multiplier": 3.0, "eager_relative_error": 0.38},
                {"name": "output['pred_logits']", "verdict": "allclose", "ok": true,
                 "eager_error": 0.01, "eager_relative_error": 0.004}
            ],
            "parity_grads": {"compared": 308, "failed": 0, "none_vs_zero": 156, "worst": []}
        }));
        let lines = parity_lines(&result);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].starts_with(
                "parity vs float32 (no float64: RuntimeError: expected scalar type Double but found Float): \
                 2 output(s), 308 gradient(s) compared; 156 gradient(s) None on one side and all zeros \
                 on the other, counted equal"
            ),
            "{}",
            lines[0]
        );
        assert_eq!(
            lines[1],
            "  output['pred_boxes']: eager itself differs from the float32 reference by 38% (RMSE 0.210; \
             eager vs compiled max abs diff 0.960): compared by ratio, compiled's error 0.95 × eager's (≤ 3)"
        );
    }

    #[test]
    fn a_float64_reference_with_eager_close_to_it_is_one_line() {
        let result = record(json!({
            "parity_reference": "float64",
            "parity_outputs": [{"name": "output", "verdict": "allclose", "ok": true, "ratio": 1.2,
                                "eager_relative_error": 0.003}]
        }));
        assert_eq!(
            parity_lines(&result),
            [
                "parity vs float64: 1 output(s) compared; worst compiled/eager error ratio 1.20 (output)"
            ]
        );
        assert!(parity_lines(&record(json!({}))).is_empty());
    }
}
