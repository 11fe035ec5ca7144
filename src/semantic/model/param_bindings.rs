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

/// A use of a parameter the function's own code does not type. Borrowed names and an offset:
/// recorded for every such use in every file, turned into an edge only where a call site binds
/// the parameter (rare), so recording allocates nothing but the guard path.
struct ParamUse<'a> {
    func: FuncIdx,
    param: &'a str,
    /// The method called on it (`rec.summary(...)`, or a dunder such as `__setattr__`); `None`
    /// when the parameter itself is called.
    method: Option<&'a str>,
    path: Box<[PathStep]>,
    at: TextSize,
}

#[derive(Default)]
pub(crate) struct ParamBindings<'a> {
    /// Function → (parameter, what its compiled call sites pass).
    bound: FxMap<FuncIdx, Vec<(String, Vec<BoundValue>)>>,
    uses: Vec<ParamUse<'a>>,
}

impl<'a> SemanticModel<'a> {
    /// `p(...)` or `p.m(...)` with `p` a parameter of the current function whose class the
    /// function does not know: recorded for the call sites to bind.
    pub(super) fn note_param_call(&mut self, call: &'a ast::ExprCall) {
        let (receiver, method) = match &*call.func {
            Expr::Attribute(attribute) => (&*attribute.value, Some(attribute.attr.id.as_str())),
            receiver => (receiver, None),
        };
        self.note_param_use(receiver, method, call.start());
    }

    /// Implicit dunder calls on a parameter (`p.a = v` runs `__setattr__`).
    pub(super) fn note_param_dunders(
        &mut self,
        receiver: &'a Expr,
        dunders: &[&'a str],
        at: TextSize,
    ) {
        for dunder in dunders {
            // An attribute read (`p.shape`) would run a property getter of a bound class; it is
            // left out: every read of a tensor parameter's attribute comes here, and a bound
            // instance's properties are rare beside its methods and dunders.
            if dunder.starts_with("__") {
                self.note_param_use(receiver, Some(dunder), at);
            }
        }
    }

    fn note_param_use(&mut self, receiver: &'a Expr, method: Option<&'a str>, at: TextSize) {
        let Some((func, param)) = self.unchanged_parameter(receiver) else {
            return;
        };
        let use_ = ParamUse {
            func,
            param,
            method,
            path: self.path.as_slice().into(),
            at,
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
        let params = self.param_bindings.bound.entry(func).or_default();
        let slot = match params.iter().position(|(name, _)| name == param) {
            Some(at) => &mut params[at].1,
            None => {
                params.push((param.to_owned(), Vec::new()));
                &mut params.last_mut().expect("just pushed").1
            }
        };
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
                .get(&use_.func)
                .and_then(|params| params.iter().find(|(name, _)| name == use_.param))
                .map(|(_, values)| values)
            else {
                continue;
            };
            for value in values {
                let sym = match (value, &use_.method) {
                    (BoundValue::Instance(class), method) => Sym::Instance {
                        class: Box::new(class.clone()),
                        method: method.unwrap_or("__call__").to_owned(),
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
                    row: self.row(use_.at.into()),
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
