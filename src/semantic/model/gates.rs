//! Collects the facts of `semantic/gates.rs` while the file is walked: boolean field defaults of each
//! class body, and the `if` tests above each `torch.compile(...)` call of a function.

use super::SemanticModel;
use crate::semantic::Sym;
use crate::semantic::gates::{CompileGate, FieldDefault, GateExpr};
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;
use rustc_hash::FxHashMap as HashMap;

/// How far a gate follows locals (`ok = a and b` then `gate = ok and c`).
const MAX_GATE_DEPTH: u32 = 6;

impl<'a> SemanticModel<'a> {
    /// Literal boolean defaults declared in a class body: `flag: bool = True`, `flag = False`,
    /// `field(default=True)` (dataclasses, attrs), `Field(True)` / `Field(default=True)` (pydantic),
    /// `attr.ib(default=True)`.
    pub(crate) fn class_field_defaults(&self, class: &ast::StmtClassDef) -> Vec<FieldDefault> {
        let mut fields = Vec::new();
        for stmt in &class.body {
            let (target, value) = match stmt {
                Stmt::AnnAssign(assign) => match &assign.value {
                    Some(value) => (&*assign.target, &**value),
                    None => continue,
                },
                Stmt::Assign(assign) => match assign.targets.as_slice() {
                    [target] => (target, &*assign.value),
                    _ => continue,
                },
                _ => continue,
            };
            let Expr::Name(name) = target else { continue };
            if let Some(default) = literal_default(value) {
                fields.push(FieldDefault {
                    name: name.id.as_str().to_owned(),
                    default,
                    location: self.location(stmt.start().into()),
                });
            }
        }
        fields
    }

    /// Records every `torch.compile(...)` call in `def`'s body that sits under `if` tests.
    pub(crate) fn collect_compile_gates(&mut self, def: &'a ast::StmtFunctionDef) {
        // Most functions never mention compile: skip the walk (it runs for every function).
        let text = self
            .source
            .get(usize::from(def.start())..usize::from(def.end()))
            .unwrap_or_default();
        if !text.contains("compile") {
            return;
        }
        let mut params = HashMap::default();
        for param in def.parameters.iter_non_variadic_params() {
            if let Some(annotation) = param.parameter.annotation.as_deref()
                && let Some(class) = self.annotation_class(annotation)
            {
                params.insert(param.parameter.name.id.as_str(), class);
            }
        }
        let gates = {
            let mut walk = GateWalk {
                model: self,
                params,
                locals: HashMap::default(),
                tests: Vec::new(),
                gates: Vec::new(),
            };
            walk.body(&def.body);
            walk.gates
        };
        self.summary.compile_gates.extend(gates);
    }

    /// The class an annotation names: `Config`, `cfg.TrainConfig`, `Optional[Config]`, `Config | None`.
    pub(crate) fn annotation_class(&self, annotation: &Expr) -> Option<Sym> {
        match annotation {
            Expr::Name(_) | Expr::Attribute(_) => match self.resolve(annotation)? {
                sym @ (Sym::Dotted(_) | Sym::Local(_)) => Some(sym),
                _ => None,
            },
            Expr::Subscript(subscript) if matches!(&*subscript.value, Expr::Name(n) if n.id.as_str() == "Optional") => {
                self.annotation_class(&subscript.slice)
            }
            Expr::BinOp(binop) if binop.op == ast::Operator::BitOr => match &*binop.right {
                Expr::NoneLiteral(_) => self.annotation_class(&binop.left),
                _ => None,
            },
            _ => None,
        }
    }
}

/// `True` / `False`, or a field-declaring call with a literal boolean default.
fn literal_default(value: &Expr) -> Option<bool> {
    match value {
        Expr::BooleanLiteral(literal) => Some(literal.value),
        Expr::Call(call) => {
            let name = match &*call.func {
                Expr::Name(name) => name.id.as_str(),
                Expr::Attribute(attribute) => attribute.attr.id.as_str(),
                _ => return None,
            };
            if !matches!(name, "field" | "Field" | "ib" | "attrib") {
                return None;
            }
            if let Some(keyword) = call.arguments.find_keyword("default") {
                return literal_bool(&keyword.value);
            }
            // pydantic's `Field(True, description=...)`: the default is the first argument.
            if name == "Field" {
                return call.arguments.args.first().and_then(literal_bool);
            }
            None
        }
        _ => None,
    }
}

fn literal_bool(expr: &Expr) -> Option<bool> {
    match expr {
        Expr::BooleanLiteral(literal) => Some(literal.value),
        _ => None,
    }
}

struct GateWalk<'m, 'a> {
    model: &'m SemanticModel<'a>,
    /// Parameters annotated with a class.
    params: HashMap<&'a str, Sym>,
    /// The value last assigned to each local, in statement order.
    locals: HashMap<&'a str, &'a Expr>,
    tests: Vec<GateExpr>,
    gates: Vec<CompileGate>,
}

impl<'a> GateWalk<'_, 'a> {
    fn body(&mut self, body: &'a [Stmt]) {
        for stmt in body {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            // Nested functions and classes are walked when the model enters them.
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            Stmt::If(stmt_if) => {
                self.calls_in(&stmt_if.test);
                let test = self.gate_expr(&stmt_if.test, 0);
                self.tests.push(test.clone());
                self.body(&stmt_if.body);
                self.tests.pop();
                // `elif`/`else`: this test was False (earlier `elif` tests are left unknown).
                for clause in &stmt_if.elif_else_clauses {
                    self.tests.push(GateExpr::Not(Box::new(test.clone())));
                    let pushed_clause = match &clause.test {
                        Some(clause_test) => {
                            self.calls_in(clause_test);
                            let clause_gate = self.gate_expr(clause_test, 0);
                            self.tests.push(clause_gate);
                            true
                        }
                        None => false,
                    };
                    self.body(&clause.body);
                    if pushed_clause {
                        self.tests.pop();
                    }
                    self.tests.pop();
                }
            }
            Stmt::For(stmt_for) => {
                self.calls_in(&stmt_for.iter);
                self.body(&stmt_for.body);
                self.body(&stmt_for.orelse);
            }
            Stmt::While(stmt_while) => {
                self.calls_in(&stmt_while.test);
                self.body(&stmt_while.body);
                self.body(&stmt_while.orelse);
            }
            Stmt::With(stmt_with) => {
                for item in &stmt_with.items {
                    self.calls_in(&item.context_expr);
                }
                self.body(&stmt_with.body);
            }
            Stmt::Try(stmt_try) => {
                self.body(&stmt_try.body);
                for handler in &stmt_try.handlers {
                    let ast::ExceptHandler::ExceptHandler(handler) = handler;
                    self.body(&handler.body);
                }
                self.body(&stmt_try.orelse);
                self.body(&stmt_try.finalbody);
            }
            Stmt::Assign(assign) => {
                self.calls_in(&assign.value);
                if let [Expr::Name(name)] = assign.targets.as_slice() {
                    self.locals.insert(name.id.as_str(), &assign.value);
                }
            }
            Stmt::AnnAssign(assign) => {
                if let Some(value) = &assign.value {
                    self.calls_in(value);
                    if let Expr::Name(name) = &*assign.target {
                        self.locals.insert(name.id.as_str(), value);
                    }
                }
            }
            Stmt::Expr(expr) => self.calls_in(&expr.value),
            Stmt::Return(ret) => {
                if let Some(value) = &ret.value {
                    self.calls_in(value);
                }
            }
            _ => {}
        }
    }

    /// Records the `torch.compile(...)` calls in `expr` (not inside lambdas) under the current tests.
    fn calls_in(&mut self, expr: &'a Expr) {
        if self.tests.is_empty() || self.tests.iter().all(|t| *t == GateExpr::Unknown) {
            return;
        }
        let mut finder = CompileCalls {
            model: self.model,
            found: Vec::new(),
        };
        finder.visit_expr(expr);
        for call in finder.found {
            self.gates.push(CompileGate {
                call_location: self.model.location(call.start().into()),
                call_end_location: self.model.location(call.end().into()),
                tests: self.tests.clone(),
            });
        }
    }

    fn gate_expr(&self, expr: &'a Expr, depth: u32) -> GateExpr {
        if depth > MAX_GATE_DEPTH {
            return GateExpr::Unknown;
        }
        match expr {
            Expr::BooleanLiteral(literal) => GateExpr::Const(literal.value),
            Expr::BoolOp(boolop) => {
                let items = boolop
                    .values
                    .iter()
                    .map(|v| self.gate_expr(v, depth + 1))
                    .collect();
                match boolop.op {
                    ast::BoolOp::And => GateExpr::And(items),
                    ast::BoolOp::Or => GateExpr::Or(items),
                }
            }
            Expr::UnaryOp(unary) if unary.op == ast::UnaryOp::Not => {
                GateExpr::Not(Box::new(self.gate_expr(&unary.operand, depth + 1)))
            }
            Expr::Name(name) => {
                if let Some(value) = self.locals.get(name.id.as_str()) {
                    return self.gate_expr(value, depth + 1);
                }
                if is_compile_switch(name.id.as_str()) {
                    GateExpr::CompileFlag
                } else {
                    GateExpr::Unknown
                }
            }
            Expr::Attribute(attribute) => {
                let field = attribute.attr.id.as_str();
                if is_compile_switch(field) {
                    return GateExpr::CompileFlag;
                }
                let Expr::Name(owner) = &*attribute.value else {
                    return GateExpr::Unknown;
                };
                let owner = owner.id.as_str();
                let text = format!("{owner}.{field}");
                if let Some(class) = self.params.get(owner) {
                    return GateExpr::Field {
                        class: class.clone(),
                        field: field.to_owned(),
                        text,
                    };
                }
                // `cfg = TrainConfig(...)`: the constructor's own arguments win over defaults.
                if let Some(Expr::Call(call)) = self.locals.get(owner)
                    && let Some(class @ (Sym::Dotted(_) | Sym::Local(_))) =
                        self.model.resolve(&call.func)
                {
                    if !call.arguments.args.is_empty()
                        || call.arguments.keywords.iter().any(|k| k.arg.is_none())
                    {
                        return GateExpr::Unknown;
                    }
                    if let Some(keyword) = call.arguments.find_keyword(field) {
                        return match &keyword.value {
                            Expr::BooleanLiteral(literal) => GateExpr::Const(literal.value),
                            _ => GateExpr::Unknown,
                        };
                    }
                    return GateExpr::Field {
                        class,
                        field: field.to_owned(),
                        text,
                    };
                }
                GateExpr::Unknown
            }
            _ => GateExpr::Unknown,
        }
    }
}

/// The switch that turns compiling on: `compile`, `use_compile`, `torch_compile`, `compile_model`.
fn is_compile_switch(name: &str) -> bool {
    name.to_ascii_lowercase().contains("compile")
}

struct CompileCalls<'m, 'a, 'e> {
    model: &'m SemanticModel<'a>,
    found: Vec<&'e ast::ExprCall>,
}

impl<'e> Visitor<'e> for CompileCalls<'_, '_, 'e> {
    fn visit_expr(&mut self, expr: &'e Expr) {
        match expr {
            Expr::Lambda(_) => return,
            Expr::Call(call)
                if self.model.qualified(&call.func).as_deref() == Some("torch.compile") =>
            {
                self.found.push(call);
            }
            _ => {}
        }
        visitor::walk_expr(self, expr);
    }
}
