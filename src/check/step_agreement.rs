//! One step, two figures: the timing pass (`eager_ms` / `compiled_ms`: the median of interleaved eager and
//! compiled steps, each forward + loss + backward with grads set to None, synchronized per step) and the
//! `--profile` phase pass (`profile.<side>.step_ms`: the mean of each side's steps run alone afterwards,
//! the same step plus the case's `optimizer.step()`). The report compares them on the same step (the
//! profile's minus its optimizer phase) and says when they disagree beyond noise, and why that can be.

use super::record::CaseResult;

/// Timing and profile step times further apart than this share are not noise.
pub const STEP_AGREEMENT: f64 = 0.15;

/// One line per side with both figures: agreeing (within 15%) or the difference and its known causes.
pub fn lines(result: &CaseResult) -> Vec<String> {
    let Some(profile) = &result.profile else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for (name, timed, side) in [
        ("eager", result.eager_ms, profile.eager.as_ref()),
        ("compiled", result.compiled_ms, profile.compiled.as_ref()),
    ] {
        let (Some(timed), Some(side)) = (timed, side) else {
            continue;
        };
        let Some(profiled) = side.step_ms.filter(|ms| *ms > 0.0) else {
            continue;
        };
        let optimizer: f64 = side
            .phases
            .iter()
            .filter(|phase| phase.name == "optimizer")
            .map(|phase| phase.ms)
            .sum();
        let same_step = profiled - optimizer;
        let apart = (same_step - timed).abs() / timed.max(f64::MIN_POSITIVE);
        let optimizer_part = if optimizer > 0.0 {
            format!(" − optimizer {optimizer:.2} ms = {same_step:.2} ms")
        } else {
            String::new()
        };
        let mut line = format!(
            "step time ({name}): timing {timed:.2} ms (median, no optimizer) vs profile {profiled:.2} ms (mean){optimizer_part}: {:.0}% apart",
            100.0 * apart
        );
        if apart > STEP_AGREEMENT {
            line.push_str(
                " — beyond noise: the profile pass runs each side alone after timing and takes the mean \
                 (one slow step moves it), the timing pass interleaves both sides and takes the median; \
                 use the timing figure for the speed-up",
            );
        } else {
            line.push_str(" (agree)");
        }
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn compares_the_same_step_and_says_when_the_two_figures_disagree() {
        let result: CaseResult = serde_json::from_value(json!({
            "eager_ms": 30.0, "compiled_ms": 18.5,
            "profile": {"device": "cuda", "steps": 10,
                "eager": {"step_ms": 31.0, "phases": [{"name": "forward", "ms": 29.0, "share": 0.94},
                                                       {"name": "optimizer", "ms": 2.0, "share": 0.06}]},
                "compiled": {"step_ms": 35.0, "phases": [{"name": "forward", "ms": 33.0, "share": 0.94},
                                                          {"name": "optimizer", "ms": 2.0, "share": 0.06}]}}
        }))
        .unwrap();
        let lines = lines(&result);
        assert_eq!(
            lines[0],
            "step time (eager): timing 30.00 ms (median, no optimizer) vs profile 31.00 ms (mean) − optimizer \
             2.00 ms = 29.00 ms: 3% apart (agree)"
        );
        assert!(lines[1].starts_with(
            "step time (compiled): timing 18.50 ms (median, no optimizer) vs profile 35.00 ms (mean) − \
             optimizer 2.00 ms = 33.00 ms: 78% apart — beyond noise"
        ), "{}", lines[1]);
        assert!(super::lines(&CaseResult::default()).is_empty());
    }
}
