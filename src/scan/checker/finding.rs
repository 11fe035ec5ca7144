//! What a rule reports: a [`Finding`], built with the builder methods below and handed to
//! [`super::Checker::report`].

use crate::diagnostics::Fix;
use crate::semantic::model::Hypothesis;
use crate::semantic::summary::{Hazard, IndexDep, Requirement, ReturnDep};
use ruff_text_size::TextRange;

/// What a rule reports: where, what, and what the code does under torch.compile.
pub struct Finding {
    pub range: TextRange,
    pub message: String,
    pub fix: Option<Fix>,
    pub hazard: Hazard,
    /// A fact the finding depends on that is known only at the end of the file.
    pub requires: Option<Requirement>,
    /// The finding holds only on torch below this version.
    pub holds_below: Option<crate::config::TorchVersion>,
    /// The finding holds only when one of these is a host value once the project is linked.
    pub host_index: Option<Box<[IndexDep]>>,
    /// The finding holds only when some call passes a tensor for one of these parameters of
    /// its function, once the project is linked.
    pub tensor_params: Option<Box<[String]>>,
    /// With `tensor_params`: the call must pass a boolean mask for one of them.
    pub tensor_params_masks: bool,
    /// The finding holds (also) when one of these project calls returns a tensor where its
    /// local was bound, once the project is linked (either this or `tensor_params` suffices).
    pub tensor_returns: Option<Box<[ReturnDep]>>,
    /// With `tensor_returns`: the call must return a boolean mask there.
    pub tensor_returns_masks: bool,
    /// The break happens only when something fails at run time (a failed import probe): it is
    /// not a certain break, so it does not make a loop or `try` frame skip for certain.
    pub breaks_only_on_failure: bool,
    /// Holds only after a graph break of its function that follows this row (see
    /// `Candidate::after_break_since`).
    pub after_break_since: Option<u32>,
    /// Holds only when the tree's setting of a Dynamo config flag is the given answer.
    pub dynamo_config: Option<(&'static str, bool)>,
    /// Holds only when whether only `fullgraph=True` compiles reach its function is the answer.
    pub fullgraph_only: Option<bool>,
}

impl Finding {
    pub fn new(range: TextRange, message: impl Into<String>) -> Finding {
        Finding {
            range,
            message: message.into(),
            fix: None,
            hazard: Hazard::NoBreak,
            requires: None,
            holds_below: None,
            host_index: None,
            tensor_params: None,
            tensor_params_masks: false,
            tensor_returns: None,
            tensor_returns_masks: false,
            breaks_only_on_failure: false,
            after_break_since: None,
            dynamo_config: None,
            fullgraph_only: None,
        }
    }

    /// A finding about a value that is a tensor outright (`params` None), or only where a call
    /// passes a tensor for one of `params` (`tensor_params`: linking decides); then the message
    /// names them (`` (`x` or `n`: a call passes a tensor) ``).
    pub fn on_tensor_or_params(
        range: TextRange,
        message: impl Into<String>,
        params: Option<Vec<String>>,
    ) -> Finding {
        let message = message.into();
        match params {
            None => Finding::new(range, message),
            Some(params) => Finding::new(
                range,
                format!("{message} ({}: a call passes a tensor)", either_of(&params)),
            )
            .requiring_tensor_params(params),
        }
    }

    /// As [`Finding::on_tensor_or_params`], with what a project call returned also taken for a
    /// tensor (`SemanticModel::tensor_if_inputs_are`): the message names the locals and calls too
    /// (`` (`mask`: `helper` returns a tensor) ``).
    pub fn on_tensor_or_inputs(
        range: TextRange,
        message: impl Into<String>,
        hypothesis: Option<Hypothesis>,
    ) -> Finding {
        let message = message.into();
        let Some(hypothesis) = hypothesis else {
            return Finding::new(range, message);
        };
        let returns = hypothesis.returns.unwrap_or_default();
        if returns.is_empty() {
            return Finding::on_tensor_or_params(range, message, Some(hypothesis.params));
        }
        let mut reasons = Vec::new();
        if !hypothesis.params.is_empty() {
            reasons.push(format!(
                "{}: a call passes a tensor",
                either_of(&hypothesis.params)
            ));
        }
        reasons.push(returned_by(&returns, "a tensor"));
        let mut finding = Finding::new(range, format!("{message} ({})", reasons.join("; ")));
        if !hypothesis.params.is_empty() {
            finding = finding.requiring_tensor_params(hypothesis.params);
        }
        finding.tensor_returns = Some(returns.into_iter().map(|(_, dep)| dep).collect());
        finding
    }

    /// Holds only where one of these locals holds a boolean mask that a project call returned
    /// (`h, mask = helper(x)` then `h[mask]`); the message names them.
    pub fn on_mask_returns(
        range: TextRange,
        message: &str,
        returns: Vec<(String, ReturnDep)>,
    ) -> Finding {
        let mut finding = Finding::new(
            range,
            format!("{message} ({})", returned_by(&returns, "a boolean mask")),
        );
        finding.tensor_returns = Some(returns.into_iter().map(|(_, dep)| dep).collect());
        finding.tensor_returns_masks = true;
        finding
    }

    /// The break happens only when the code fails at run time (see the field).
    pub fn breaking_only_on_failure(mut self) -> Finding {
        self.breaks_only_on_failure = true;
        self
    }

    /// Holds only when one of `deps` turns out to be a host value once the project is linked
    /// (no dep is [`IndexDep::Host`]: those findings hold as they are).
    pub fn requiring_host_index(mut self, deps: Vec<IndexDep>) -> Finding {
        self.host_index = Some(deps.into());
        self
    }

    /// Holds only when some call (of the compiled function, or from traced code) passes a
    /// tensor for one of `params` of the finding's function (`semantic/tensor_params.rs`).
    pub fn requiring_tensor_params(mut self, params: Vec<String>) -> Finding {
        self.tensor_params = Some(params.into());
        self
    }

    /// Holds only where some traced call passes a boolean mask for one of `params` (`x[mask]`
    /// with `mask` a parameter); the message names them.
    pub fn on_mask_params(range: TextRange, message: &str, params: Vec<String>) -> Finding {
        let mut finding = Finding::new(
            range,
            format!(
                "{message} ({}: a call passes a boolean mask)",
                either_of(&params)
            ),
        )
        .requiring_tensor_params(params);
        finding.tensor_params_masks = true;
        finding
    }

    /// Holds only when a graph break of the same function lies between `row` and the finding.
    pub fn requiring_break_since(mut self, row: u32) -> Finding {
        self.after_break_since = Some(row);
        self
    }

    /// Holds only when some file of the tree sets the Dynamo config `flag` to `True` (`set`), or
    /// when none does (`!set`).
    pub fn requiring_dynamo_config(mut self, flag: &'static str, set: bool) -> Finding {
        self.dynamo_config = Some((flag, set));
        self
    }

    /// Holds only when every compile whose region holds its function passes `fullgraph=True`
    /// (`only`), or when some compile does not (`!only`): `Project::fullgraph_only`.
    pub fn requiring_fullgraph_only(mut self, only: bool) -> Finding {
        self.fullgraph_only = Some(only);
        self
    }

    pub fn holding_below(mut self, version: crate::config::TorchVersion) -> Finding {
        self.holds_below = Some(version);
        self
    }

    pub fn with_fix(mut self, fix: Fix) -> Finding {
        self.fix = Some(fix);
        self
    }

    pub fn with_hazard(mut self, hazard: Hazard) -> Finding {
        self.hazard = hazard;
        self
    }

    pub fn requiring(mut self, requirement: Requirement) -> Finding {
        self.requires = Some(requirement);
        self
    }
}

/// `` `x` or `n` ``: the parameters a finding's message names.
fn either_of(params: &[String]) -> String {
    params
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// `` `mask`: `helper` returns a tensor `` (or `` `a` or `b`: `f` or `g` returns ... ``).
fn returned_by(returns: &[(String, ReturnDep)], what: &str) -> String {
    let names: Vec<String> = returns.iter().map(|(name, _)| name.clone()).collect();
    let mut callees: Vec<String> = Vec::new();
    for (_, dep) in returns {
        let callee = format!("`{}`", dep.sym.last_segment());
        if !callees.contains(&callee) {
            callees.push(callee);
        }
    }
    format!(
        "{}: {} returns {what} there",
        either_of(&names),
        callees.join(" or ")
    )
}
