use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::model::OutsideBuilt;
use crate::semantic::summary::{Hazard, Requirement};
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags, in code Dynamo traces, a `with` that enters a context manager built outside the
    /// frame Dynamo is tracing:
    /// - `with self.<attr>:` where a method of the class stores an instance in `self.<attr>`
    ///   (`self.cm = Recorder()` in `__init__`);
    /// - `with NAME:` where the module binds `NAME` once to an instance (`RECORDER = Recorder()`);
    /// - `with ctx:` where `ctx` was built earlier in the same function and a graph break of the
    ///   function comes between: Dynamo resumes in a new frame after the break, and `ctx` is an
    ///   input there.
    ///
    /// The classes are context-manager classes of the file (a class defining `__enter__`, or
    /// inheriting it from a class of the file) and, for the first two, the torch classes
    /// `rules/data/input_context_managers.toml` lists (`torch.no_grad()`,
    /// `torch.set_grad_enabled(False)`, ...). A parameter given one by the compiled call site is
    /// BR030's.
    ///
    /// ## Why is this bad?
    /// Dynamo enters a context manager it saw built while tracing the frame. One that reaches the
    /// frame from outside is "Unsupported context manager" (GB0142), and since a `with` cannot
    /// break part-way, Dynamo gives up on the whole frame: the function runs eagerly, every call.
    /// Measured with `backend="eager"` on torch 2.2, 2.5, 2.8 and 2.11: a module whose `forward`
    /// enters `self.cm` or a module-level instance compiles 0 graphs, for a class of the file, a
    /// subclass of one, `torch.no_grad()` and `torch.set_grad_enabled(False)`; `torch.autocast`
    /// and `contextlib.nullcontext()` are entered and not flagged. Across a graph break, torch's
    /// own context managers are carried over (a local `torch.no_grad()` built before a break and
    /// entered after it compiles), an instance of a class of the file is not: the resumed frame
    /// stops at the `with` and runs eagerly from there (torch 2.5, 2.8, 2.11; torch 2.2 already
    /// skips the whole frame at the break, so that case is reported from a torch floor of 2.5).
    ///
    /// ## Example
    /// ```python
    /// class Block(nn.Module):
    ///     def __init__(self):
    ///         super().__init__()
    ///         self.timer = Timer()          # a class with __enter__/__exit__
    ///
    ///     def forward(self, x):
    ///         with self.timer:              # GB0142: forward runs eagerly
    ///             return self.proj(x)
    /// ```
    ///
    /// ## Fix
    /// Enter it outside the compiled code (a lock around the compiled call), or build a fresh
    /// one in the `with` itself (`with Timer():`), keeping the state it needs on the object; move
    /// a local's construction after the break.
    ///
    /// ## Torch versions
    /// Measured on torch 2.2, 2.5, 2.8 and 2.11 (tests/python/test_outside_context_manager_proofs.py).
    pub struct OutsideContextManager {
        code: "BR041",
        name: "outside-context-manager",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "`with` over a context manager built outside the traced frame (stored on `self`, a module global, or a local built before a graph break): Dynamo will not enter it and runs the frame eagerly",
        hooks: { statement: check_statement },
    }
}

// The label is looked up once per process.
static LABEL: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| super::graph_break_label("Unsupported context manager"));

/// Torch 2.2 skips the whole frame at the break itself, so the `with` is where it stops only from
/// 2.5 on (measured).
const CROSSING_FROM: [u32; 3] = [2, 5, 0];

fn check_statement(checker: &mut Checker<'_>, stmt: &Stmt) {
    let Stmt::With(with) = stmt else { return };
    if with.is_async {
        return;
    }
    for item in &with.items {
        check_item(checker, &item.context_expr);
    }
}

fn check_item(checker: &mut Checker<'_>, value: &Expr) {
    let semantic = checker.semantic();
    let Some(built) = semantic.outside_built_context_manager(value) else {
        return;
    };
    let consequence = format!(
        "Dynamo will not enter a context manager that reaches the frame from outside ({}): it gives up on the whole frame, which runs eagerly",
        *LABEL
    );
    let finding = match built {
        OutsideBuilt::Attribute { class, attr, func } => {
            let message = format!(
                "`self.{attr}` holds a context manager built outside this frame (stored on the object): {consequence}; enter it outside the compiled code, or build it in the `with` itself"
            );
            Finding::new(value.range(), message)
                .with_hazard(Hazard::FrameSkip)
                .requiring(Requirement::OutsideContextManagerAttribute { class, attr, func })
        }
        OutsideBuilt::ModuleGlobal { class } => {
            let name = match value {
                Expr::Name(name) => name.id.as_str(),
                _ => return,
            };
            let message = format!(
                "`{name}` is a module-level `{class}` instance, built outside this frame: {consequence}; enter it outside the compiled code, or build it in the `with` itself"
            );
            Finding::new(value.range(), message).with_hazard(Hazard::FrameSkip)
        }
        OutsideBuilt::BeforeBreak { class, row } => {
            if !crate::semantic::model::torch_at_least_holds(CROSSING_FROM, semantic.torch_floor())
            {
                return;
            }
            let name = match value {
                Expr::Name(name) => name.id.as_str(),
                _ => return,
            };
            let message = format!(
                "`{name}` (a `{class}` built on line {row}) crosses a graph break of this function: the frame Dynamo resumes in receives it as an input, and Dynamo will not enter a context manager from outside its frame ({}): the resumed frame runs eagerly; build it after the break, or in the `with` itself",
                *LABEL
            );
            Finding::new(value.range(), message)
                .with_hazard(Hazard::FrameSkip)
                .requiring_break_since(row)
        }
    };
    checker.report(&OutsideContextManager::META, finding);
}
