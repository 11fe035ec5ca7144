//! Parameters bound at compiled call sites: the project class or function a compiled function's
//! call site in the same file passes to a parameter, so that what the function does with the
//! parameter is a call edge.
//!
//! ```python
//! class Recorder:
//!     def __setattr__(self, name, value): ...      # Dynamo inlines this for `rec.last = y`
//! def step(rec, head, x):
//!     y = head(x)                                   # the function passed in: `scale`
//!     rec.last = y                                  # `Recorder.__setattr__`
//!     return rec.summary(y)                         # `Recorder.summary`
//! torch.compile(step)(Recorder(), scale, x)
//! ```
//!
//! Why: a frame's inputs are whatever its caller passes, and Dynamo traces into a project
//! function or method reached through one exactly as through a name. The function's own body does
//! not say what the parameter holds; its compiled call sites do. The body is walked before the
//! call sites (they follow the `def`), so the walk records the *uses* of each parameter whose value
//! it cannot tell (a call through it, a method call on it, an implicit dunder) and the call sites
//! record what they pass; the file's end joins the two into call edges (`SemanticModel::finish`).
//! Only compiled call sites bind: an ordinary call site of the same function is Python's business,
//! not a frame input's.

use super::*;

/// What a compiled call site passes to a parameter, when it is a project value.
#[derive(Clone, Debug, PartialEq, Eq)]
enum BoundValue {
    /// An instance of this project class (`Recorder()`, or a local built by one).
    Instance(Sym),
    /// This project function (`scale`, a function of this file or a project import).
    Function(Sym),
}

/// A use of a parameter the function's own code does not type.
struct ParamUse {
    func: FuncIdx,
    param: String,
    /// The method called on it (`rec.summary(...)`, or a dunder such as `__setattr__`); `None`
    /// when the parameter itself is called.
    method: Option<String>,
    path: Box<[PathStep]>,
    row: u32,
}

#[derive(Default)]
pub(crate) struct ParamBindings {
    /// The file mentions `compile` or `optimize`: without one it has no compiled call site, and no
    /// use is recorded (most files of a large tree).
    may_compile: bool,
    bound: FxMap<(FuncIdx, String), Vec<BoundValue>>,
    uses: Vec<ParamUse>,
}

impl<'a> SemanticModel<'a> {
    /// Before the walk: whether the file can have a compiled call site at all.
    pub(crate) fn note_may_compile(&mut self) {
        let text = self.source.as_bytes();
        self.param_bindings.may_compile = memchr::memmem::find(text, b"compile").is_some()
            || memchr::memmem::find(text, b"optimize").is_some();
    }

    /// `p(...)` or `p.m(...)` with `p` a parameter of the current function whose class the
    /// function does not know: recorded for the call sites to bind.
    pub(super) fn note_param_call(&mut self, call: &ast::ExprCall) {
        if !self.param_bindings.may_compile {
            return;
        }
        let (receiver, method) = match &*call.func {
            Expr::Attribute(attribute) => (
                &*attribute.value,
                Some(attribute.attr.id.as_str().to_owned()),
            ),
            receiver => (receiver, None),
        };
        self.note_param_use(receiver, method, call.start());
    }

    /// Implicit dunder calls on a parameter (`p.a = v` runs `__setattr__`).
    pub(super) fn note_param_dunders(&mut self, receiver: &Expr, dunders: &[&str], at: TextSize) {
        if !self.param_bindings.may_compile {
            return;
        }
        for dunder in dunders {
            self.note_param_use(receiver, Some((*dunder).to_owned()), at);
        }
    }

    /// Whether the file may hold a compiled call site (`note_may_compile`).
    pub(super) fn param_bindings_may_compile(&self) -> bool {
        self.param_bindings.may_compile
    }

    fn note_param_use(&mut self, receiver: &Expr, method: Option<String>, at: TextSize) {
        let Some((func, param)) = self.unchanged_parameter(receiver) else {
            return;
        };
        let use_ = ParamUse {
            func,
            param: param.to_owned(),
            method,
            path: self.path.as_slice().into(),
            row: self.row(at.into()),
        };
        self.param_bindings.uses.push(use_);
    }

    /// A compiled call site passes `arg` to `param` of `func`: keep it when it is a project
    /// instance or function.
    pub(super) fn bind_compiled_param(&mut self, func: FuncIdx, param: &str, arg: &Expr) {
        let mut values: Vec<BoundValue> = Vec::new();
        if let Some(class) = self.instance_class(arg) {
            values.push(BoundValue::Instance(class));
        } else if matches!(arg, Expr::Name(_)) {
            values.extend(
                self.callables_of(arg)
                    .into_iter()
                    .filter(|sym| matches!(sym, Sym::Local(_) | Sym::Dotted(_)))
                    .map(BoundValue::Function),
            );
        }
        if values.is_empty() {
            return;
        }
        let slot = self
            .param_bindings
            .bound
            .entry((func, param.to_owned()))
            .or_default();
        for value in values {
            if !slot.contains(&value) {
                slot.push(value);
            }
        }
    }

    /// At the file's end: each recorded use of a bound parameter becomes a call edge to what the
    /// call sites pass (one per target, use path and function).
    pub(super) fn bind_param_uses(&mut self) {
        let uses = std::mem::take(&mut self.param_bindings.uses);
        if self.param_bindings.bound.is_empty() {
            return;
        }
        let mut seen: Vec<(FuncIdx, Sym, Box<[PathStep]>)> = Vec::new();
        for use_ in uses {
            let Some(values) = self
                .param_bindings
                .bound
                .get(&(use_.func, use_.param.clone()))
            else {
                continue;
            };
            for value in values {
                let sym = match (value, &use_.method) {
                    (BoundValue::Instance(class), method) => Sym::Instance {
                        class: Box::new(class.clone()),
                        method: method.clone().unwrap_or_else(|| "__call__".to_owned()),
                    },
                    (BoundValue::Function(function), None) => function.clone(),
                    // A method of a function object (`f.__name__`, `f.cache_clear()`): not a
                    // project call.
                    (BoundValue::Function(_), Some(_)) => continue,
                };
                let key = (use_.func, sym, use_.path.clone());
                if seen.contains(&key) {
                    continue;
                }
                let edge = CallEdge {
                    sym: key.1.clone(),
                    path: use_.path.clone(),
                    row: use_.row,
                    // What the parameter's call passes is not recorded: unknown arguments, so
                    // caller-context facts never read "passes nothing" from it.
                    args: self.ctx.roots_configured.then(|| {
                        Box::new(CallArgs {
                            star: Some(String::new()),
                            double_star: Some(String::new()),
                            ..CallArgs::default()
                        })
                    }),
                    host_index_args: Box::default(),
                    tensor_args: Box::default(),
                };
                self.summary.functions[use_.func as usize].calls.push(edge);
                seen.push(key);
            }
        }
    }
}
