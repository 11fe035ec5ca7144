use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::summary::Hazard;
use ruff_python_ast::Stmt;
use ruff_text_size::{Ranged, TextRange};

declare_rule! {
    /// ## What it does
    /// Flags a `class` statement inside a function Dynamo traces (a class defined in `forward`,
    /// or in a helper it calls).
    ///
    /// ## Why is this bad?
    /// A `class` statement compiles to the `LOAD_BUILD_CLASS` bytecode, which calls the builtin
    /// `__build_class__`; Dynamo does not trace it. Measured with `backend="eager"`: on torch 2.11
    /// the graph breaks at the statement (GB0007 "Attempted to call function marked as skipped",
    /// on `builtins.__build_class__`: two graphs around it); on torch 2.2, 2.5 and 2.8 Dynamo
    /// gives up on the whole frame ("missing: LOAD_BUILD_CLASS" / "LOAD_BUILD_CLASS bytecode not
    /// supported"), so nothing of the function is compiled. Under `fullgraph=True` it is an
    /// error on every version.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x):
    ///     class Output(NamedTuple):
    ///         logits: torch.Tensor
    ///     return Output(self.head(x))
    /// ```
    ///
    /// ## Fix
    /// Define the class once at module level (or as a class attribute) and use it from the
    /// function; the class object is then a constant Dynamo can read.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2, 2.5, 2.8 and 2.11 (tests/python/test_recall_proofs.py).
    pub struct ClassStatementInRegion {
        code: "BR020",
        name: "class-statement-in-region",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "class statement inside traced code: Dynamo does not trace __build_class__ (graph break on 2.11, whole frame eager before)",
        hooks: { statement: check_statement },
    }
}

fn check_statement(checker: &mut Checker<'_>, stmt: &Stmt) {
    let Stmt::ClassDef(class_def) = stmt else {
        return;
    };
    if !checker.semantic().in_function() {
        return;
    }
    let label = super::graph_break_label("Attempted to call function marked as skipped");
    // The `class Name` header: the body is not the cause, and a long class would bury the line.
    let range = TextRange::new(class_def.start(), class_def.name.end());
    checker.report(
        &ClassStatementInRegion::META,
        Finding::new(
            range,
            format!(
                "`class {}` inside traced code: Dynamo does not trace the builtin `__build_class__` a class statement calls; the graph breaks here (torch 2.11: {label}; before 2.11 the whole frame runs eagerly). Define the class at module level",
                class_def.name
            ),
        )
        .with_hazard(Hazard::GraphBreak),
    );
}
