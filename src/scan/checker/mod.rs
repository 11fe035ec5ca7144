//! Phase 2–3 of `scan`, per file and in parallel: read, parse (recovering), and walk the AST once.
//! The walk updates the semantic model (`src/semantic/model.rs`) and is the only place that calls
//! rules: at each node kind, every rule with a hook for it (`rules::Hooks`) runs with a read-only
//! view of the model and reports through [`Checker::report`].

use crate::diagnostics::{Edit, Noqa};
use crate::rules::{self, RuleMeta, Scope};
use crate::semantic::Sym;
use crate::semantic::data::TORCH;
use crate::semantic::model::{FileContext, SemanticModel};
use crate::semantic::summary::{
    Branch, Candidate, CertainBreak, FileSummary, FrameSkipCall, FuncIdx, Hazard, PathStep,
    Requirement, VersionBound,
};
use crate::source::{LineIndex, Location, read_source};
use ruff_python_ast::token::TokenKind;
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};
use std::path::Path;

/// Deeper than this, the walk stops descending and reports E003 (no real code nests this deep;
/// generated or hostile files do, and recursion must stay bounded).
const MAX_AST_DEPTH: u32 = 1500;

mod control_flow;
mod finding;
mod hooks;

pub use finding::Finding;

pub struct Checker<'a> {
    semantic: SemanticModel<'a>,
    candidates: Vec<Candidate>,
    /// Findings waiting for a fact known only once the file is walked.
    /// Most of them are dropped (BR011 reports every call or attribute read of a `self.<attr>`),
    /// so their rows and columns are computed only for those that hold.
    pending: Vec<(Unplaced<'a>, Requirement)>,
    depth: u32,
    too_deep: bool,
    /// The statement being visited (rows are computed only when a finding is reported).
    statement: Option<&'a Stmt>,
    /// The conditional blocks around the code being visited, innermost last (their ranges).
    conditional_blocks: Vec<TextRange>,
    /// Per function being visited (innermost last): has a `return` been passed, so that what
    /// follows may not run on every call?
    returned: Vec<bool>,
}

pub fn analyze_path(path: &Path, ctx: &FileContext<'_>) -> FileSummary {
    let mut summary = FileSummary {
        path: path.to_path_buf(),
        module: ctx.module.clone(),
        torch_floor: ctx.torch_floor,
        ..FileSummary::default()
    };
    let read = read_source(path).map_err(|err| err.to_string());
    let read = if super::notebook::is_notebook(path) {
        // A notebook is analyzed as its code cells joined; rows map back to cells at report time.
        read.and_then(|text| super::notebook::parse(&text))
            .map(|notebook| {
                summary.cell_starts = notebook.cell_starts;
                notebook.source
            })
    } else {
        read
    };
    let source = match read {
        Ok(source) => source,
        Err(message) => {
            let start = Location { row: 1, column: 1 };
            summary.file_diagnostics.push(file_diagnostic(
                &rules::meta::UnreadableFile::META,
                message,
                start,
                start,
            ));
            return summary;
        }
    };
    analyze_source(&source, ctx, summary)
}

fn file_diagnostic(
    meta: &RuleMeta,
    message: String,
    location: Location,
    end_location: Location,
) -> Candidate {
    crate::rules::project_candidate(
        meta,
        message,
        (location, end_location),
        None,
        Vec::new(),
        Hazard::NoBreak,
    )
}

pub fn analyze_source(
    source: &str,
    ctx: &FileContext<'_>,
    mut summary: FileSummary,
) -> FileSummary {
    let lines = LineIndex::new(source);
    let parsed = ruff_python_parser::parse_unchecked_source(source, ast::PySourceType::Python);

    for error in parsed.errors().iter().take(20) {
        let location = lines.location(source, error.location.start().into());
        let end_location = lines.location(source, error.location.end().into());
        summary.file_diagnostics.push(file_diagnostic(
            &rules::meta::SyntaxError::META,
            format!("SyntaxError: {}", error.error),
            location,
            end_location,
        ));
    }

    for token in parsed.tokens().iter() {
        if token.kind() == TokenKind::Comment {
            let range = token.range();
            let text = &source[range];
            if let Some((noqa, own)) = Noqa::parse_directive(text) {
                let row = lines.line_of(range.start().into()) as u32 + 1;
                if let Noqa::Codes(codes) = &noqa {
                    for code in codes.iter().filter(|c| rules::is_unknown_own_code(c, own)) {
                        let location = lines.location(source, range.start().into());
                        let end_location = lines.location(source, range.end().into());
                        summary.file_diagnostics.push(file_diagnostic(
                            &rules::meta::UnknownSuppressionCode::META,
                            format!(
                                "`{code}` is not a graphbreak rule code; this comment suppresses \
                                 nothing under it (see `graphbreak rules`)"
                            ),
                            location,
                            end_location,
                        ));
                    }
                }
                summary.noqa.insert(row, noqa);
            }
        }
    }

    let module = parsed.syntax();
    let mut checker = Checker {
        semantic: SemanticModel::new(source, &lines, ctx, summary),
        candidates: Vec::new(),
        pending: Vec::new(),
        depth: 0,
        too_deep: false,
        statement: None,
        conditional_blocks: Vec::new(),
        returned: Vec::new(),
    };
    checker.semantic.collect_module_bindings(&module.body);
    checker.semantic.note_module_settings(&module.body);
    checker.semantic.note_module_body(&module.body);
    checker.visit_body(&module.body);
    let too_deep = checker.too_deep;
    let summary = checker.finish();
    // A pathologically deep tree would overflow the stack in its recursive destructor; leak it
    // instead (the process is short-lived and the size is bounded by the file).
    if too_deep {
        std::mem::forget(parsed);
    }
    summary
}

/// The findings of the rules' `project` hooks for one file, once the project is linked (the
/// second place the checker calls rules, after the walk).
pub fn project_findings(
    project: &crate::semantic::link::Project<'_>,
    file: crate::semantic::summary::FileId,
) -> Vec<Candidate> {
    rules::ALL
        .iter()
        .filter_map(|rule| rule.hooks.project)
        .flat_map(|hook| hook(project, file))
        .collect()
}

impl<'a> Checker<'a> {
    /// The semantic model, read-only: what rules consult.
    pub fn semantic(&self) -> &SemanticModel<'a> {
        &self.semantic
    }

    pub fn edit(&self, range: TextRange, content: impl Into<String>) -> Edit {
        self.semantic.edit(range, content)
    }

    /// Records a finding of `meta`'s rule at the current place (its function, guard path and
    /// statement). A rule scoped to compiled regions reports nothing outside functions: module
    /// and class bodies run once at import, Dynamo never traces them.
    pub fn report(&mut self, meta: &'static RuleMeta, finding: Finding) {
        let func = self.semantic.current_function();
        if meta.scope == Scope::CompiledRegion && func.is_none() {
            return;
        }
        // A break Dynamo cannot resume from (inside a loop or a `try` body) skips the whole frame:
        // the function runs eagerly and its later hazards are never traced (`scan/merge.rs`).
        let skips_frame = match finding.breaks_only_on_failure {
            true => None,
            false => self.semantic.break_skips_frame(),
        };
        let (hazard, message) = match (finding.hazard, skips_frame) {
            (Hazard::GraphBreak, Some(block)) => (
                Hazard::FrameSkip,
                format!(
                    "{} (inside a {block}, where Dynamo cannot resume after a break: it skips the whole frame and runs this function eagerly)",
                    finding.message
                ),
            ),
            (hazard, _) => (hazard, finding.message),
        };
        if let Some(func) = func
            && matches!(hazard, Hazard::GraphBreak | Hazard::FrameSkip)
            && meta.scope == Scope::CompiledRegion
            && finding.requires.is_none()
            && finding.holds_below.is_none()
            && finding.host_index.is_none()
            && finding.tensor_params.is_none()
            && finding.tensor_returns.is_none()
            && !finding.breaks_only_on_failure
            && finding.after_break_since.is_none()
            && finding.dynamo_config.is_none()
            && finding.fullgraph_only.is_none()
            && self.runs_on_every_call_or_iteration()
        {
            let location = self.semantic.location(finding.range.start().into());
            self.semantic
                .summary_mut()
                .certain_breaks
                .push(CertainBreak { func, location });
        }
        let unplaced = Unplaced {
            candidate: Candidate {
                code: meta.code,
                message,
                location: Location { row: 0, column: 0 },
                end_location: Location { row: 0, column: 0 },
                statement_rows: (0, 0),
                fix: finding.fix,
                func,
                path: self.semantic.path().to_vec(),
                scope: meta.scope,
                hazard,
                holds_below: finding.holds_below.map(|below| VersionBound {
                    below,
                    asserted: self
                        .semantic
                        .version_flags_asserted_before(finding.range.start().into()),
                }),
                host_index: finding.host_index,
                tensor_params: finding.tensor_params,
                tensor_params_masks: finding.tensor_params_masks,
                tensor_returns: finding.tensor_returns,
                tensor_returns_masks: finding.tensor_returns_masks,
                conditional_block: None,
                cites: None,
                after_break_since: finding.after_break_since,
                dynamo_config: finding.dynamo_config,
                fullgraph_only: finding.fullgraph_only,
            },
            range: finding.range,
            statement: self.statement,
            conditional_block: self.conditional_blocks.last().copied(),
        };
        match finding.requires {
            Some(requirement) => self.pending.push((unplaced, requirement)),
            None => self.candidates.push(unplaced.place(&self.semantic)),
        }
    }

    /// Is the code being visited run on every call of its function: no branch, guard, loop,
    /// comprehension or failure path around it, no `return` before it?
    fn runs_on_every_call(&self) -> bool {
        self.conditional_blocks.is_empty()
            && self.returned.last() == Some(&false)
            && !self.semantic.iterates()
            && self.semantic.path().is_empty()
    }

    /// Does the code run on every call (`runs_on_every_call`), or on every iteration of the
    /// statement loops around it, with no branch, guard, comprehension or failure path and no
    /// `return` before it (every call that enters the loop runs it)?
    fn runs_on_every_call_or_iteration(&self) -> bool {
        self.conditional_blocks.is_empty()
            && self.returned.last() == Some(&false)
            && (!self.semantic.iterates() || self.semantic.in_loop_body())
            && self.semantic.path().is_empty()
    }

    /// Where a project call is, for frames a breaking callee makes Dynamo skip
    /// (`FileSummary::frame_skip_calls`, `FileSummary::every_call_calls`).
    fn note_project_call(&mut self, (func, call): (FuncIdx, u32), range: TextRange) {
        if let Some(block) = self.semantic.break_skips_frame() {
            let location = self.semantic.location(range.start().into());
            let statement_rows = self.statement.map_or_else(
                || {
                    let row = row_of(&self.semantic, range.start());
                    (row, row)
                },
                |stmt| statement_rows_of(&self.semantic, stmt),
            );
            let conditional_block = self.conditional_blocks.last().map(|block| {
                (
                    row_of(&self.semantic, block.start()),
                    row_of(&self.semantic, block.end()),
                )
            });
            self.semantic
                .summary_mut()
                .frame_skip_calls
                .push(FrameSkipCall {
                    func,
                    call,
                    location,
                    statement_rows,
                    conditional_block,
                    block,
                });
        } else if self.runs_on_every_call() {
            self.semantic
                .summary_mut()
                .every_call_calls
                .push((func, call));
        }
    }

    fn finish(self) -> FileSummary {
        let Checker {
            semantic,
            mut candidates,
            pending,
            ..
        } = self;
        let mut unwrapped_class_checks = std::collections::HashMap::default();
        let mut factory_class_checks = std::collections::HashMap::default();
        let mut call_site_reported = std::collections::HashSet::new();
        // Dynamo tests `isinstance`, so a class deriving from one counts.
        let unwrapped = |name: &str| {
            TORCH
                .generated
                .unwrapped_modules
                .on_every_from(name, semantic.torch_floor())
                .is_some()
        };
        for (unplaced, requirement) in pending {
            let holds = match &requirement {
                Requirement::IntAttribute { class, attr } => semantic.is_int_attribute(class, attr),
                Requirement::UnwrappedClass { class } => {
                    let sym = Sym::Local(class.clone());
                    if semantic.derives_from(&sym, &unwrapped) {
                        true
                    } else if semantic.derives_from(&sym, &|name| semantic.is_project_dotted(name))
                        || semantic.is_abstract_class(class)
                    {
                        // A base another project file defines, or an abstract class whose
                        // instances are its subclasses': linking decides.
                        unwrapped_class_checks.insert(candidates.len(), Box::from([sym]));
                        true
                    } else {
                        false
                    }
                }
                Requirement::MarkedTorchFunction { name } => {
                    semantic.marked_torch_function(name).is_some()
                }
                Requirement::UnwrappedModuleAttribute { class, attr } => {
                    // A class a helper picks counts only when every class it can return does.
                    let classes = semantic.self_attribute_classes(class, attr);
                    // Picked by a helper imported from another file: linking decides.
                    if classes.is_empty()
                        && let Some(helper) = semantic.self_attribute_imported_factory(class, attr)
                    {
                        factory_class_checks.insert(candidates.len(), helper.clone());
                        true
                    } else {
                        let undecided: Vec<&Sym> = classes
                            .iter()
                            .copied()
                            .filter(|sym| !semantic.derives_from(sym, &unwrapped))
                            .collect();
                        // A class outside the project that is not itself unwrapped
                        // (`nn.Linear`) derives from nothing linking could add: the finding
                        // fails here, not after it was kept (with its message) for every
                        // `self.<attr>` use until linking.
                        let outside = undecided.iter().any(|sym| {
                            matches!(sym, Sym::Dotted(name) if !semantic.is_project_dotted(name))
                        });
                        // A class this file imports (or derives from an imported one) may be a
                        // project subclass defined elsewhere: linking decides.
                        if !classes.is_empty() && !undecided.is_empty() && !outside {
                            unwrapped_class_checks
                                .insert(candidates.len(), undecided.into_iter().cloned().collect());
                        }
                        !classes.is_empty() && !outside
                    }
                }
                Requirement::OutsideContextManagerAttribute { class, attr, func } => {
                    semantic.self_attribute_enters_refused(class, attr, *func)
                }
                Requirement::SlotOnHost { slot, on_host } => {
                    semantic.slot_on_host(slot) == *on_host
                }
                // One finding per parameter and kind: the first use breaks (later ones are
                // after that break, in the resumed frame, and name the same cause).
                Requirement::CallSiteArgument { func, param, kinds } => {
                    semantic
                        .call_site_argument_kinds(*func, param)
                        .intersects(*kinds)
                        && call_site_reported.insert((*func, param.clone(), *kinds))
                }
            };
            if holds {
                candidates.push(unplaced.place(&semantic));
            }
        }
        let mut summary = semantic.finish();
        summary.candidates = candidates;
        summary.unwrapped_class_checks = unwrapped_class_checks;
        summary.factory_class_checks = factory_class_checks;
        summary.shrink_to_fit();
        summary
    }

    fn report_too_deep(&mut self, range: TextRange) {
        if self.too_deep {
            return;
        }
        self.too_deep = true;
        let location = self.semantic.location(range.start().into());
        self.semantic
            .summary_mut()
            .file_diagnostics
            .push(file_diagnostic(
                &rules::meta::TooDeeplyNested::META,
                format!(
                    "code nests more than {MAX_AST_DEPTH} levels deep; the rest of this construct was not analyzed"
                ),
                location,
                location,
            ));
    }
}

impl<'a> Visitor<'a> for Checker<'a> {
    fn visit_body(&mut self, body: &'a [Stmt]) {
        let mark = self.semantic.mark();
        // A block that ends in `raise` (or `torch._assert(False, ...)`) is a failure path:
        // `raise ValueError(f"{x.item()}")` and what leads to it run only when something already
        // went wrong — from the last statement that can leave the block another way on.
        let failure_from = self.semantic.failure_only_from(body);
        for (index, stmt) in body.iter().enumerate() {
            if failure_from == Some(index) {
                self.semantic.push_step(PathStep::FailureOnly);
            }
            self.visit_stmt(stmt);
            self.semantic.after_statement(stmt);
        }
        self.semantic.restore(mark);
    }

    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        self.depth += 1;
        if self.depth > MAX_AST_DEPTH {
            self.report_too_deep(stmt.range());
            self.depth -= 1;
            return;
        }
        self.semantic.clear_last_if_guard();
        let saved_statement = self.statement.replace(stmt);
        for hook in hooks::HOOKS.statement.iter() {
            hook(self, stmt);
        }
        self.semantic.note_outside_writes(stmt);
        self.semantic.note_option_stores(stmt);
        self.semantic.note_returned_callable(stmt);
        self.semantic.note_returned_class(stmt);
        self.semantic.note_returned_instance(stmt);
        self.semantic.note_return_index_deps(stmt);
        self.semantic.note_returned_tensors(stmt);
        self.semantic.record_statement_dunders(stmt);
        match stmt {
            Stmt::FunctionDef(def) => {
                for decorator in &def.decorator_list {
                    self.visit_expr(&decorator.expression);
                }
                for param in def.parameters.iter_non_variadic_params() {
                    if let Some(default) = &param.default {
                        self.visit_expr(default);
                    }
                }
                let scope = self.semantic.enter_function(def);
                self.returned.push(false);
                self.visit_body(&def.body);
                self.returned.pop();
                self.semantic.leave_function(scope, def);
            }
            Stmt::ClassDef(class) => {
                for decorator in &class.decorator_list {
                    self.visit_expr(&decorator.expression);
                }
                if let Some(arguments) = &class.arguments {
                    for base in arguments.args.iter() {
                        self.visit_expr(base);
                    }
                }
                self.semantic.enter_class(class);
                self.visit_body(&class.body);
                self.semantic.leave_class();
            }
            Stmt::If(stmt_if) => self.visit_if(stmt_if),
            Stmt::While(stmt_while) => {
                // The test itself breaks and resumes (measured: 2 graphs); a break in the body
                // cannot resume mid-loop.
                // The test runs again after each iteration: it sees what the body binds.
                let join = self.semantic.begin_loop(None, &stmt_while.body);
                self.visit_truth_test(&stmt_while.test);
                self.visit_expr(&stmt_while.test);
                self.semantic.enter_loop();
                self.visit_body(&stmt_while.body);
                self.semantic.leave_loop();
                self.semantic.finish_loop(join, &stmt_while.body);
                self.visit_loop_else(&stmt_while.body, &stmt_while.orelse);
            }
            Stmt::For(stmt_for) => {
                self.semantic
                    .note_flow_loop(&stmt_for.target, &stmt_for.iter);
                self.visit_expr(&stmt_for.iter);
                self.semantic
                    .bind_loop_target_kinds(&stmt_for.target, &stmt_for.iter);
                let join = self
                    .semantic
                    .begin_loop(Some(&stmt_for.target), &stmt_for.body);
                self.visit_expr(&stmt_for.target);
                self.semantic.enter_loop();
                let bound = self
                    .semantic
                    .bind_loop_targets(&[(&stmt_for.target, &stmt_for.iter)]);
                self.visit_body(&stmt_for.body);
                self.semantic.unbind_loop_targets(bound);
                self.semantic.leave_loop();
                self.semantic.finish_loop(join, &stmt_for.body);
                self.visit_loop_else(&stmt_for.body, &stmt_for.orelse);
            }
            Stmt::Match(stmt_match) => self.visit_match(stmt_match),
            Stmt::With(with) => {
                for item in &with.items {
                    self.visit_with_item(item);
                    if let Some(target) = &item.optional_vars {
                        self.semantic.forget_target(target);
                    }
                }
                let unresumable = self.semantic.enter_with(with);
                self.visit_body(&with.body);
                if let Some(kind) = unresumable {
                    self.semantic.leave_unresumable_with(kind);
                }
            }
            Stmt::Import(import) => {
                self.semantic.note_imported_names(stmt);
                self.semantic.bind_import(import)
            }
            Stmt::ImportFrom(import) => {
                self.semantic.note_imported_names(stmt);
                self.semantic.bind_import_from(import)
            }
            Stmt::Assign(assign) => {
                let targets: Vec<&Expr> = assign.targets.iter().collect();
                self.semantic.note_flow_assignment(&targets, &assign.value);
                for target in &assign.targets {
                    self.semantic
                        .note_marker_application(&assign.value, Some(target));
                    self.semantic.note_self_assignment(target, &assign.value);
                    self.semantic
                        .note_slot_assignment(target, &assign.value, false);
                    self.semantic.note_self_callable(target, &assign.value);
                    self.semantic.note_compiled_alias(target, &assign.value);
                    self.semantic
                        .note_dynamo_config_assignment(target, &assign.value);
                }
                visitor::walk_stmt(self, stmt);
                self.semantic.bind_assignment(&targets, &assign.value);
            }
            Stmt::AnnAssign(assign) => {
                visitor::walk_stmt(self, stmt);
                if let Some(value) = &assign.value {
                    self.semantic
                        .note_slot_assignment(&assign.target, value, false);
                    self.semantic.note_flow_assignment(&[&assign.target], value);
                    // `self.update: Callable = self._wrap(self.update)` stores like `=` does.
                    self.semantic.note_self_callable(&assign.target, value);
                    self.semantic.bind_assignment(&[&assign.target], value);
                }
            }
            Stmt::AugAssign(assign) => {
                self.semantic
                    .note_slot_assignment(&assign.target, &assign.value, true);
                visitor::walk_stmt(self, stmt);
            }
            Stmt::Try(stmt_try) => self.visit_try(stmt_try),
            Stmt::Assert(assert) => {
                self.visit_expr(&assert.test);
                if let Some(message) = &assert.msg {
                    // The message is evaluated only when the assertion fails.
                    let mark = self.semantic.mark();
                    self.semantic.push_step(PathStep::FailureOnly);
                    self.visit_expr(message);
                    self.semantic.restore(mark);
                }
            }
            Stmt::Global(global) => self.semantic.note_declared_globals(global),
            Stmt::Expr(expr) => {
                visitor::walk_stmt(self, stmt);
                self.semantic.note_marker_application(&expr.value, None);
            }
            _ => visitor::walk_stmt(self, stmt),
        }
        if let (Stmt::Return(_), Some(returned)) = (stmt, self.returned.last_mut()) {
            *returned = true;
        }
        self.statement = saved_statement;
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        self.depth += 1;
        if self.depth > MAX_AST_DEPTH {
            self.report_too_deep(expr.range());
            self.depth -= 1;
            return;
        }
        self.semantic.record_expression_dunders(expr);
        match expr {
            Expr::Call(call) => {
                // Resolve the callee once; every rule that matches on it shares the answer.
                let callee = self.semantic.resolve(&call.func);
                let qualified = match &callee {
                    Some(Sym::Dotted(qualified)) => Some(qualified.as_str()),
                    _ => None,
                };
                for hook in hooks::HOOKS.call.iter() {
                    hook(self, call, qualified);
                }
                self.semantic.note_dynamo_config_call(call, callee.as_ref());
                let sites_before = self.semantic.project_call_sites();
                self.semantic.record_call(call, callee.as_ref());
                if let Some(site) = self.semantic.project_call_site_since(sites_before) {
                    self.note_project_call(site, call.range());
                }
                self.semantic.note_callee(&call.func);
            }
            Expr::Name(name) => self.semantic.record_name_reference(name),
            Expr::Attribute(attribute) => {
                self.semantic.record_self_read(attribute);
                self.semantic.record_collaborator_read(attribute);
                self.semantic.note_attribute_value(&attribute.value);
                for hook in hooks::HOOKS.attribute.iter() {
                    hook(self, attribute);
                }
                if attribute.ctx.is_store() {
                    self.semantic.record_implicit_dunders(
                        &attribute.value,
                        &["__setattr__"],
                        attribute.start(),
                    );
                }
            }
            Expr::Subscript(subscript) => {
                for hook in hooks::HOOKS.subscript.iter() {
                    hook(self, subscript);
                }
                let dunder = match subscript.ctx {
                    ast::ExprContext::Store => Some("__setitem__"),
                    ast::ExprContext::Load => Some("__getitem__"),
                    _ => None,
                };
                if let Some(dunder) = dunder {
                    self.semantic.record_implicit_dunders(
                        &subscript.value,
                        &[dunder],
                        subscript.start(),
                    );
                }
            }
            Expr::Compare(compare) => {
                for hook in hooks::HOOKS.compare.iter() {
                    hook(self, compare);
                }
                if let Some(op) = compare.ops.first() {
                    self.semantic.record_implicit_dunders(
                        &compare.left,
                        crate::semantic::model::comparison_dunders(*op),
                        compare.start(),
                    );
                }
            }
            Expr::If(if_expr) => {
                self.visit_truth_test(&if_expr.test);
                // `torch.compiler.x() if hasattr(torch.compiler, "x") else ...`: the body is probed.
                // `x if is_compiling() else x.item()`: each side is guarded like an if/else.
                self.visit_expr(&if_expr.test);
                let mark = self.semantic.mark();
                self.semantic.push_probes(&if_expr.test);
                self.semantic.enter_guard(&if_expr.test, Branch::WhenTrue);
                self.visit_conditional(Some(if_expr.body.range()), |checker| {
                    checker.visit_expr(&if_expr.body);
                });
                self.semantic.restore(mark);
                self.semantic.enter_guard(&if_expr.test, Branch::WhenFalse);
                self.visit_conditional(Some(if_expr.orelse.range()), |checker| {
                    checker.visit_expr(&if_expr.orelse);
                });
                self.semantic.restore(mark);
                self.depth -= 1;
                return;
            }
            Expr::ListComp(ast::ExprListComp { generators, .. })
            | Expr::SetComp(ast::ExprSetComp { generators, .. })
            | Expr::DictComp(ast::ExprDictComp { generators, .. })
            | Expr::Generator(ast::ExprGenerator { generators, .. }) => {
                self.semantic.note_flow_comprehension(generators);
                // The element is read with the generators' targets bound (host-index facts).
                let pairs: Vec<(&Expr, &Expr)> =
                    generators.iter().map(|g| (&g.target, &g.iter)).collect();
                let bound = self.semantic.bind_loop_targets(&pairs);
                let shadowed = self.semantic.bind_comprehension_kinds(&pairs);
                self.semantic.enter_comprehension();
                // An `if` clause is a truth test of each element (`[l for l, d in zip(ls, drop) if
                // not d]` branches on every 0-d tensor `d`).
                for condition in generators.iter().flat_map(|g| g.ifs.iter()) {
                    self.visit_truth_test(condition);
                }
                visitor::walk_expr(self, expr);
                self.semantic.leave_comprehension();
                self.semantic.unshadow_locals(shadowed);
                self.semantic.unbind_loop_targets(bound);
                self.depth -= 1;
                return;
            }
            Expr::Named(named) => {
                visitor::walk_expr(self, expr);
                self.semantic.forget_target(&named.target);
                self.depth -= 1;
                return;
            }
            Expr::BoolOp(boolop) => {
                // Short-circuit: in `a and b`, `b` runs only when `a` is True (in `a or b`, only when
                // it is False), so earlier operands guard later ones for every rule —
                // `not is_compiling() and x.item() > 0` never reads under Dynamo — and
                // `hasattr(torch.compiler, "x") and torch.compiler.x()` is a probe.
                let and = boolop.op == ast::BoolOp::And;
                let mark = self.semantic.mark();
                for value in &boolop.values {
                    self.visit_expr(value);
                    if and {
                        self.semantic.push_probes(value);
                    }
                    self.semantic.enter_guard(value, Branch::taken_when(and));
                }
                self.semantic.restore(mark);
                self.depth -= 1;
                return;
            }
            _ => {}
        }
        visitor::walk_expr(self, expr);
        self.depth -= 1;
    }

    // Annotations never run under Dynamo and cannot hold hazards.
    fn visit_annotation(&mut self, _expr: &'a Expr) {}
}

/// The range a block of statements spans (`None` for an empty one).
fn body_range(body: &[Stmt]) -> Option<TextRange> {
    Some(TextRange::new(body.first()?.start(), body.last()?.end()))
}

fn row_of(semantic: &SemanticModel<'_>, offset: TextSize) -> u32 {
    semantic.row(offset.into())
}

/// A finding with everything that depends on where the walk is, but not yet its rows and
/// columns (line lookups and a character count per location).
struct Unplaced<'a> {
    candidate: Candidate,
    range: TextRange,
    statement: Option<&'a Stmt>,
    conditional_block: Option<TextRange>,
}

impl Unplaced<'_> {
    fn place(self, semantic: &SemanticModel<'_>) -> Candidate {
        let Unplaced {
            mut candidate,
            range,
            statement,
            conditional_block,
        } = self;
        candidate.location = semantic.location(range.start().into());
        candidate.end_location = semantic.location(range.end().into());
        candidate.statement_rows = statement.map_or_else(
            || {
                let row = row_of(semantic, range.start());
                (row, row)
            },
            |stmt| statement_rows_of(semantic, stmt),
        );
        candidate.conditional_block = conditional_block.map(|range| {
            (
                row_of(semantic, range.start()),
                row_of(semantic, range.end()),
            )
        });
        candidate
    }
}

/// The rows a finding inside `stmt` is attributed to: the whole statement for simple ones,
/// the header (up to the end of its test / iterable / items) for compound ones.
fn statement_rows_of(semantic: &SemanticModel<'_>, stmt: &Stmt) -> (u32, u32) {
    let header_end = match stmt {
        Stmt::If(s) => s.test.end(),
        Stmt::While(s) => s.test.end(),
        Stmt::For(s) => s.iter.end(),
        Stmt::With(s) => s.items.last().map_or(s.start(), Ranged::end),
        Stmt::Match(s) => s.subject.end(),
        Stmt::Try(s) => s.start(),
        Stmt::FunctionDef(s) => s.parameters.end(),
        Stmt::ClassDef(s) => s.arguments.as_ref().map_or(s.name.end(), |a| a.end()),
        other => other.end(),
    };
    (row_of(semantic, stmt.start()), row_of(semantic, header_end))
}
