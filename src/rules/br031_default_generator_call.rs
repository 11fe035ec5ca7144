use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::Hazard;
use ruff_python_ast as ast;
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags a method call on torch's global CPU generator object, `torch.default_generator`
    /// (also spelled `torch.random.default_generator`), inside a function Dynamo traces:
    /// `get_state()`, `set_state(s)`, `manual_seed(n)`, `seed()`, `initial_seed()`, ...
    ///
    /// ## Why is this bad?
    /// The default generator is a `torch._C.Generator` object; Dynamo does not model its methods.
    /// Measured with `backend="eager"`: the graph breaks at the call on every torch version —
    /// torch 2.8 and 2.11: GB0156 "Unsupported method call"; 2.5: "call_method
    /// UserDefinedObjectVariable(Generator) ..."; 2.2: "skip function Generator.get_state" / "torch.*
    /// op returned non-Tensor". Reading an attribute (`torch.default_generator.device`) compiles.
    /// (`torch.get_rng_state()` / `torch.manual_seed()` are skipped functions, BR010.)
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     state = torch.default_generator.get_state()
    ///     noise = torch.rand_like(x)
    ///     torch.default_generator.set_state(state)
    ///     return x + noise
    /// ```
    ///
    /// ## Fix
    /// Save and restore the RNG state outside the compiled function, or draw the random values
    /// there and pass them in.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2, 2.5, 2.8 and 2.11 (tests/python/test_call_site_kind_proofs.py).
    pub struct DefaultGeneratorCall {
        code: "BR031",
        name: "default-generator-call",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "method call on torch.default_generator in traced code: Dynamo does not trace the generator object's methods (graph break)",
        hooks: { call: check_call },
    }
}

const GENERATOR_SPELLINGS: &[&str] = &[
    "torch.default_generator.",
    "torch.random.default_generator.",
];

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, qualified: Option<&str>) {
    let Some(qualified) = qualified else { return };
    let Some(method) = GENERATOR_SPELLINGS
        .iter()
        .find_map(|prefix| qualified.strip_prefix(prefix))
    else {
        return;
    };
    if method.is_empty() || method.contains('.') {
        return;
    }
    let label = super::graph_break_label("Unsupported method call");
    checker.report(
        &DefaultGeneratorCall::META,
        Finding::new(
            call.range(),
            format!(
                "`{qualified}(...)` in traced code: Dynamo does not trace methods of the generator object; the graph breaks here (torch 2.11: {label}). Save or restore the RNG state outside the compiled function"
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}
