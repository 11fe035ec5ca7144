//! Entering and leaving a function: its frame, parameters, annotations and nested definitions.

use super::*;
use crate::semantic::generated::MarkerTarget;
use thin_vec::ThinVec;

impl<'a> SemanticModel<'a> {
    /// Records a `def` (its decorators already visited) and enters its frame.
    pub(crate) fn enter_function(&mut self, def: &'a ast::StmtFunctionDef) -> FunctionScope {
        let mut compile_decorator = None;
        let mut compile_fullgraph = false;
        let mut disabled = false;
        let mut disabled_frame_only = false;
        let mut marked_by = None;
        for decorator in &def.decorator_list {
            let target = match &decorator.expression {
                Expr::Call(call) => &*call.func,
                other => other,
            };
            let fullgraph = match &decorator.expression {
                Expr::Call(call) => super::calls::passes_fullgraph(call),
                _ => false,
            };
            match self.qualified(target).as_deref() {
                Some("torch.compile") => {
                    compile_decorator = Some(CompileForm::TorchCompile);
                    compile_fullgraph = fullgraph;
                }
                Some(name)
                    if matches!(decorator.expression, Expr::Call(_))
                        && super::calls::DYNAMO_COMPILE_DECORATORS.contains(&name) =>
                {
                    compile_decorator = Some(CompileForm::DynamoOptimize);
                    compile_fullgraph = fullgraph;
                }
                // Another of Dynamo's markers whose marked function breaks when called
                // (`torch._dynamo.decorators.skip`; `rules/data/dynamo_markers.toml`).
                Some(name)
                    if !matches!(name, "torch.compiler.disable" | "torch._dynamo.disable") =>
                {
                    if let Some(marked) = self.marker_of(target, MarkerTarget::Function) {
                        disabled = true;
                        marked_by = Some(marked);
                    }
                }
                Some(_) => {
                    let recursive = match &decorator.expression {
                        Expr::Call(call) => {
                            call.arguments.find_keyword("recursive").map(|k| &k.value)
                        }
                        _ => None,
                    };
                    if matches!(recursive, Some(Expr::BooleanLiteral(b)) if !b.value) {
                        disabled_frame_only = true;
                    } else {
                        disabled = true;
                    }
                }
                _ => {}
            }
        }

        let name = def.name.id.as_str().to_owned();
        let (qual, class) = match self.frames.last() {
            Some(frame) => {
                let class = matches!(frame.kind, FrameKind::Class).then(|| frame.qual.clone());
                (format!("{}.{name}", frame.qual), class)
            }
            None => (name.clone(), None),
        };
        // `forward` of a class marked as a whole (`@torch.compiler.disable class Block`).
        if let Some(marked) = self.class_mark_of_method(class.as_deref(), &name) {
            disabled = true;
            marked_by = Some(marked);
        }
        self.record_nested_def(def, &qual);
        let param_callables = self.param_callable_defaults(def);
        let param_instances = self.param_instance_defaults(def);
        let idx = self.summary.functions.len() as FuncIdx;
        self.summary.functions.push(FunctionInfo {
            name: name.clone(),
            class: class.clone(),
            compile_decorator,
            compile_fullgraph,
            memoized: self.is_memoized(def),
            line: self.row(def.range.start().into()),
            end_line: 0,
            disabled,
            disabled_frame_only,
            marked_by,
            calls: Vec::new(),
            outside_writes: ThinVec::new(),
            is_property: def.decorator_list.iter().any(|d| {
                matches!(&d.expression, Expr::Name(n) if matches!(n.id.as_str(), "property" | "cached_property"))
                    || matches!(&d.expression, Expr::Attribute(a) if a.attr.id.as_str() == "cached_property")
            }),
            cached_getter: def.decorator_list.iter().any(|d| {
                matches!(&d.expression, Expr::Name(n) if n.id.as_str() == "cached_property")
                    || matches!(&d.expression, Expr::Attribute(a) if a.attr.id.as_str() == "cached_property")
            }),
            returned_classes: self.annotated_return_class(def).into_iter().collect(),
            returned_callables: ThinVec::new(),
            decorators: def
                .decorator_list
                .iter()
                .filter_map(|decorator| {
                    let called = match &decorator.expression {
                        Expr::Call(call) => &*call.func,
                        other => other,
                    };
                    self.resolve(called)
                })
                .collect(),
            bare_decorators: def
                .decorator_list
                .iter()
                .filter(|decorator| !matches!(decorator.expression, Expr::Call(_)))
                .filter_map(|decorator| self.resolve(&decorator.expression))
                .collect(),
            predicate: None,
            flag_params: ThinVec::new(),
            none_flags: ThinVec::new(),
            size_checked_params: ThinVec::new(),
            const_params: ThinVec::new(),
            param_defaults: ThinVec::new(),
            tests_self_attrs: false,
            self_writes: ThinVec::new(),
            replaces_forward: self.frames.is_empty()
                && dispatch::replaces_forward_with_dispatcher(def),
            fixed_positional: 0,
            vararg: def
                .parameters
                .vararg
                .as_ref()
                .filter(|_| self.ctx.roots_configured)
                .map(|p| p.name.id.as_str().to_owned()),
            kwarg: def
                .parameters
                .kwarg
                .as_ref()
                .filter(|_| self.ctx.roots_configured)
                .map(|p| p.name.id.as_str().to_owned()),
            index_params: ThinVec::new(),
            tensor_annotated_params: ThinVec::new(),
            alias_annotated_params: ThinVec::new(),
            host_index_returns: ThinVec::new(),
            tensor_returns: ThinVec::new(),
        });
        // `@name.setter` / `@name.deleter` reuse the property's name: `self.name` still reads
        // (and Dynamo traces) the getter, so the getter keeps the name.
        let accessor = def.decorator_list.iter().any(|d| {
            matches!(&d.expression, Expr::Attribute(a) if matches!(a.attr.id.as_str(), "setter" | "deleter"))
        });
        if !accessor || !self.summary.function_by_name.contains_key(&qual) {
            self.summary.function_by_name.insert(qual.clone(), idx);
        }
        if let Some(frame) = self.function_frame_mut() {
            frame.bindings.insert(name, Binding::Def(qual.clone()));
        }

        let mut locals = FxMap::default();
        let mut self_name = None;
        let mut first_input = None;
        let params = &def.parameters;
        let has_self = class.is_some() && !self.is_static(def);
        self.flow_enter_function(idx, def, has_self, class.as_deref());
        let all_positions: ThinVec<(String, Option<u32>)> = params
            .posonlyargs
            .iter()
            .chain(params.args.iter())
            .skip(usize::from(has_self))
            .enumerate()
            .map(|(position, p)| {
                (
                    p.parameter.name.id.as_str().to_owned(),
                    Some(position as u32),
                )
            })
            .chain(
                params
                    .kwonlyargs
                    .iter()
                    .map(|p| (p.parameter.name.id.as_str().to_owned(), None)),
            )
            .collect();
        let param_names: Vec<String> = all_positions.iter().map(|(n, _)| n.clone()).collect();
        let param_positions = if self.ctx.roots_configured {
            all_positions.to_vec()
        } else {
            Vec::new()
        };
        self.summary.functions[idx as usize].index_params = all_positions;
        let comment_kinds = self.type_comment_kinds(def, has_self);
        for (position, param) in params
            .posonlyargs
            .iter()
            .chain(params.args.iter())
            .enumerate()
        {
            let param_name = param.parameter.name.id.as_str().to_owned();
            if position == 0 && has_self {
                self_name = Some(param_name);
                continue;
            }
            let from_comment = comment_kinds
                .as_ref()
                .and_then(|kinds| kinds.get(position - usize::from(has_self)).copied());
            let kind = param
                .parameter
                .annotation
                .as_deref()
                .map(|ann| self.annotation_kind(ann))
                .or(from_comment)
                .unwrap_or(TensorKind::Unknown);
            if position == usize::from(self_name.is_some()) {
                // The input: unannotated or annotated as a tensor (a `Union[Tensor, Dict]`
                // annotation says the dict path is real).
                let plain = param.parameter.annotation.is_none() || kind == TensorKind::Tensor;
                first_input = plain.then(|| param_name.clone());
            }
            locals.insert(param_name, kind);
        }
        for param in &params.kwonlyargs {
            let kind = param
                .parameter
                .annotation
                .as_deref()
                .map_or(TensorKind::Unknown, |ann| self.annotation_kind(ann));
            locals.insert(param.parameter.name.id.as_str().to_owned(), kind);
        }
        for variadic in params.vararg.iter().chain(params.kwarg.iter()) {
            locals.insert(variadic.name.id.as_str().to_owned(), TensorKind::NotTensor);
        }
        let offset = usize::from(self_name.is_some());
        let none_flags: ThinVec<String> = if !self.ctx.roots_configured {
            ThinVec::new()
        } else {
            params
                .iter_non_variadic_params()
                .filter(|param| matches!(param.default.as_deref(), Some(Expr::NoneLiteral(_))))
                .map(|param| param.parameter.name.id.as_str().to_owned())
                .collect()
        };
        self.summary.functions[idx as usize].none_flags = none_flags;
        // A root's input annotated `Optional[Tensor]` is a tensor whenever its user passes one
        // (the body's `is not None` tests say so): it joins the annotated tensors here, while the
        // body still reads it as unknown (it may be None).
        let optional_tensors: Vec<&str> = params
            .iter_non_variadic_params()
            .filter(|param| {
                // A default other than `None` says what the input really is
                // (`output_attentions: Tensor | None = False` is a flag).
                matches!(param.default.as_deref(), None | Some(Expr::NoneLiteral(_)))
                    && param
                        .parameter
                        .annotation
                        .as_deref()
                        .is_some_and(|ann| self.is_optional_tensor_annotation(ann))
            })
            .map(|param| param.parameter.name.id.as_str())
            .collect();
        // An annotation naming something this file cannot read as a type (`OptTensor`, imported
        // from the project's typing module): a tensor alias or not, linking decides.
        let alias_annotated: ThinVec<(String, Sym)> = params
            .iter_non_variadic_params()
            .filter(|param| matches!(param.default.as_deref(), None | Some(Expr::NoneLiteral(_))))
            .filter_map(|param| {
                let annotation = param.parameter.annotation.as_deref()?;
                if !matches!(annotation, Expr::Name(_) | Expr::Attribute(_))
                    || self.annotation_kind(annotation) != TensorKind::Unknown
                {
                    return None;
                }
                let sym = match self.resolve(annotation)? {
                    Sym::Dotted(dotted) if self.is_project_dotted(&dotted) => Sym::Dotted(dotted),
                    Sym::Local(local) => Sym::Local(local),
                    _ => return None,
                };
                Some((param.parameter.name.id.as_str().to_owned(), sym))
            })
            .collect();
        self.summary.functions[idx as usize].alias_annotated_params = alias_annotated;
        self.summary.functions[idx as usize].tensor_annotated_params = param_names
            .iter()
            .filter(|name| {
                locals.get(name.as_str()) == Some(&TensorKind::Tensor)
                    || optional_tensors.contains(&name.as_str())
            })
            .cloned()
            .collect();
        self.summary.functions[idx as usize].fixed_positional =
            (params.posonlyargs.len() + params.args.len() - usize::from(self_name.is_some()))
                as u32;
        let flag_params: ThinVec<(String, Option<u32>)> = if !self.ctx.roots_configured {
            ThinVec::new()
        } else {
            params
                .posonlyargs
                .iter()
                .chain(params.args.iter())
                .enumerate()
                .skip(offset)
                .map(|(position, param)| (param, Some((position - offset) as u32)))
                .chain(params.kwonlyargs.iter().map(|param| (param, None)))
                .filter(|(param, _)| {
                    matches!(
                        param.default.as_deref(),
                        Some(Expr::BooleanLiteral(b)) if !b.value
                    ) || matches!(param.default.as_deref(), Some(Expr::NoneLiteral(_)))
                        || matches!(param.default.as_deref(), Some(Expr::NumberLiteral(n))
                        if matches!(&n.value, ast::Number::Int(i) if i.as_u8() == Some(0)))
                })
                .map(|(param, position)| (param.parameter.name.id.as_str().to_owned(), position))
                .collect()
        };
        self.summary.functions[idx as usize].flag_params = flag_params;
        // Literal defaults, for the constants of caller context (`context.rs`) and for
        // constructor options (`model/options.rs`): a method's `__init__`, and any function that
        // passes its own parameter on to a constructor (`def build(dim, drop=0.0): return
        // Block(dim, drop=drop)`, a factory). Recorded with or without roots: one
        // `ConstValue::of` per parameter default, no allocation for a function without one.
        {
            self.summary.functions[idx as usize].param_defaults = params
                .iter_non_variadic_params()
                .filter_map(|param| {
                    let default = ConstValue::of(param.default.as_deref()?)?;
                    Some((param.parameter.name.id.as_str().to_owned(), default))
                })
                .collect();
        }

        self.note_function_def(idx, def);
        let param_classes = self.project_param_classes(def);
        self.frames.push(Frame {
            qual,
            kind: FrameKind::Function {
                idx,
                self_name,
                class,
            },
            bindings: FxMap::default(),
            locals,
            facts: LocalFacts::default(),
            values: FxMap::default(),
            value_joins: Default::default(),
            param_classes,
            first_input,
            param_positions,
            param_names,
            param_callables,
            param_instances,
            body_range: match (def.body.first(), def.body.last()) {
                (Some(first), Some(last)) => TextRange::new(first.start(), last.end()),
                _ => TextRange::default(),
            },
            isinstance_names: std::cell::OnceCell::new(),
            tensor_narrowed_params: Vec::new(),
            param_elements: FxMap::default(),
            returned: FxMap::default(),
            params_untouched_on_a_path: Vec::new(),
            params_rebound_unrecorded: Vec::new(),
        });
        let version_asserts = self.version_asserts.len();
        let asserted = self.top_level_version_asserts(&def.body);
        self.version_asserts.extend(asserted);
        let scope = FunctionScope {
            idx,
            version_asserts,
            path: std::mem::take(&mut self.path),
            feature_probe_depth: std::mem::replace(&mut self.feature_probe_depth, 0),
            import_probe_depth: std::mem::replace(&mut self.import_probe_depth, 0),
            loop_depth: std::mem::replace(&mut self.loop_depth, 0),
            try_body_depth: std::mem::replace(&mut self.try_body_depth, 0),
            unresumable_with_depth: std::mem::replace(&mut self.unresumable_with_depth, 0),
            stdlib_with_depth: std::mem::replace(&mut self.stdlib_with_depth, 0),
            index_bindings: self.index_loops.borrow().len(),
        };
        self.collect_nested_defs(&def.body);
        self.collect_compile_gates(def);
        scope
    }

    /// Leaves the frame [`SemanticModel::enter_function`] entered, once its body was visited.
    pub(crate) fn leave_function(&mut self, scope: FunctionScope, def: &'a ast::StmtFunctionDef) {
        self.path = scope.path;
        self.feature_probe_depth = scope.feature_probe_depth;
        self.import_probe_depth = scope.import_probe_depth;
        self.loop_depth = scope.loop_depth;
        self.try_body_depth = scope.try_body_depth;
        self.unresumable_with_depth = scope.unresumable_with_depth;
        self.stdlib_with_depth = scope.stdlib_with_depth;
        self.index_loops.borrow_mut().truncate(scope.index_bindings);
        self.version_asserts.truncate(scope.version_asserts);
        let predicate = self.predicate_of_body(&def.body);
        let end_line = self.row(def.range.end().into());
        let info = &mut self.summary.functions[scope.idx as usize];
        info.predicate = predicate;
        info.end_line = end_line;
        self.frames.pop();
    }

    pub(super) fn is_static(&self, def: &ast::StmtFunctionDef) -> bool {
        def.decorator_list
            .iter()
            .any(|d| matches!(&d.expression, Expr::Name(n) if n.id.as_str() == "staticmethod"))
    }

    /// Nested `def`s are callable anywhere in the enclosing body, including before their line.
    pub(super) fn collect_nested_defs(&mut self, body: &'a [Stmt]) {
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        for stmt in body {
            if let Stmt::FunctionDef(def) = stmt {
                let name = def.name.id.as_str().to_owned();
                let qual = format!("{}.{name}", frame.qual);
                frame.bindings.insert(name, Binding::Def(qual));
            }
        }
    }

    pub(super) fn annotation_kind(&self, annotation: &Expr) -> TensorKind {
        let text = match annotation {
            Expr::StringLiteral(literal) => literal.value.to_str().to_owned(),
            _ => match self.resolve(annotation) {
                Some(Sym::Dotted(qualified)) => qualified,
                _ => match annotation {
                    Expr::Name(name) => name.id.as_str().to_owned(),
                    _ => return TensorKind::Unknown,
                },
            },
        };
        if TORCH.tensor_annotations.contains(text.as_str()) {
            TensorKind::Tensor
        } else if TORCH.host_annotations.contains(text.as_str()) {
            TensorKind::NotTensor
        } else {
            TensorKind::Unknown
        }
    }

    /// `Optional[Tensor]`, `Union[Tensor, None]`, `Tensor | None` (or `None | Tensor`), and the
    /// same as a string annotation.
    pub(super) fn is_optional_tensor_annotation(&self, annotation: &Expr) -> bool {
        match annotation {
            Expr::Subscript(subscript) => {
                let Some(Sym::Dotted(wrapper)) = self.resolve(&subscript.value) else {
                    return false;
                };
                match (wrapper.as_str(), &*subscript.slice) {
                    ("typing.Optional", inner) => self.annotation_kind(inner) == TensorKind::Tensor,
                    ("typing.Union", Expr::Tuple(tuple)) => {
                        tuple.elts.len() == 2
                            && tuple.elts.iter().any(|e| e.is_none_literal_expr())
                            && tuple
                                .elts
                                .iter()
                                .any(|e| self.annotation_kind(e) == TensorKind::Tensor)
                    }
                    _ => false,
                }
            }
            Expr::BinOp(binop) if binop.op == ast::Operator::BitOr => {
                let (left, right) = (&*binop.left, &*binop.right);
                (left.is_none_literal_expr() && self.annotation_kind(right) == TensorKind::Tensor)
                    || (right.is_none_literal_expr()
                        && self.annotation_kind(left) == TensorKind::Tensor)
            }
            Expr::StringLiteral(literal) => {
                let text = literal.value.to_str();
                let inner = text
                    .strip_prefix("Optional[")
                    .or_else(|| text.strip_prefix("typing.Optional["))
                    .and_then(|rest| rest.strip_suffix(']'))
                    .or_else(|| text.strip_suffix(" | None"));
                inner.is_some_and(|inner| TORCH.tensor_annotations.contains(inner.trim()))
            }
            _ => false,
        }
    }

    /// A function whose every `return` yields a guard formula is a predicate (`_is_compiling()`).
    pub(super) fn predicate_of_body(&self, body: &[Stmt]) -> Option<Cond> {
        let mut returns = Vec::new();
        collect_returns(body, &mut returns, 0);
        if returns.is_empty() {
            return None;
        }
        let mut conds = Vec::with_capacity(returns.len());
        for value in returns {
            let cond = match value {
                Some(expr) => self.cond_of(expr),
                None => Cond::Const(false),
            };
            if matches!(cond, Cond::Unknown) {
                return None;
            }
            conds.push(cond);
        }
        if !conds.iter().any(Cond::is_interesting) {
            return None;
        }
        Some(if conds.len() == 1 {
            conds.pop().unwrap()
        } else {
            Cond::Or(conds)
        })
    }
}
