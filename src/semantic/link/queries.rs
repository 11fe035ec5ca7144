//! What rules ask the linked project: is this traced, which predicate a call evaluates, disabled
//! callees, findings per file, version flags.

use super::*;
use crate::semantic::summary::DynamoConfigScope;

impl<'a> Project<'a> {
    /// Is the Dynamo config flag `flag` set to `True` for the findings of `file`: by an assignment
    /// anywhere in the tree, or by a patch in `file` itself (`model/dynamo_config.rs`)? The
    /// tree's assignments are collected once; a question is then O(flags set).
    pub fn dynamo_config_set(&self, flag: &str, file: FileId) -> bool {
        let process = self.process_config_flags.get_or_init(|| {
            self.files
                .iter()
                .flat_map(|summary| &summary.dynamo_config_true)
                .filter(|(_, scope)| *scope == DynamoConfigScope::Process)
                .map(|(set, _)| set.as_str())
                .collect()
        });
        process.contains(flag)
            || self.files[file as usize]
                .dynamo_config_true
                .iter()
                .any(|(set, scope)| set == flag && *scope == DynamoConfigScope::File)
    }

    /// How many functions one root reaches (itself included), for `--show-roots`.
    pub fn reach_count(&self, root: FuncRef) -> usize {
        self.closure(std::iter::once(root), &mut CalleeCache::default(), None)
            .len()
    }

    /// Whether a project class is an nn.Module (through project bases, aliases or the table's
    /// third-party bases): what a root pattern must name, and whose `forward` may go unreached.
    pub fn is_module_class(&self, class: ClassRef) -> bool {
        self.module_classes.contains(&class)
    }

    /// `module.QualName` and row of a function, for `--show-roots`.
    pub fn describe(&self, func: FuncRef) -> (String, &Path, u32) {
        let file = &self.files[func.0 as usize];
        let info = &file.functions[func.1 as usize];
        let qualname = file
            .function_by_name
            .iter()
            .find(|(_, idx)| **idx == func.1)
            .map_or(info.name.as_str(), |(name, _)| name.as_str());
        let qualname = crate::semantic::summary::display_qualname(qualname);
        let dotted = if file.module.is_empty() {
            qualname.into_owned()
        } else {
            format!("{}.{qualname}", file.module)
        };
        (dotted, &file.path, info.line)
    }

    /// The guard formula a call to `sym` evaluates to, when it calls a project predicate.
    pub fn predicate_formula(&self, sym: &Sym, file: FileId) -> Option<Cond> {
        match self.resolve_sym(sym, file).into_iter().next()? {
            Target::Function((file, idx)) => {
                let predicate = self.files[file as usize].functions[idx as usize]
                    .predicate
                    .as_ref()?;
                Some(self.localize(predicate, file))
            }
            Target::PredicateAlias(file, name) => {
                Some(self.localize(&self.files[file as usize].predicate_aliases[&name], file))
            }
            Target::Class(_) | Target::VersionFlag(..) => None,
        }
    }

    /// The formula of the torch-version flag a project name read for truth is, if it is one.
    pub fn version_flag_formula(&self, sym: &Sym, file: FileId) -> Option<Cond> {
        let (flag_file, flag) = self.torch_version_flag_def(sym, file)?;
        Some(self.localize(flag, flag_file))
    }

    /// The torch-version flag `sym` (read in `file`) names, with the file that defines it.
    fn torch_version_flag_def(&self, sym: &Sym, file: FileId) -> Option<(FileId, &Cond)> {
        match self.resolve_sym(sym, file).into_iter().next()? {
            Target::VersionFlag(flag_file, name) => Some((
                flag_file,
                self.files[flag_file as usize]
                    .torch_version_flags
                    .get(&name)?,
            )),
            _ => None,
        }
    }

    /// Project atoms inside a formula are relative to the file that wrote them; inline them
    /// one level so the formula can be evaluated from any file.
    pub(super) fn localize(&self, cond: &Cond, file: FileId) -> Cond {
        self.localize_depth(cond, file, 0)
    }

    pub(super) fn localize_depth(&self, cond: &Cond, file: FileId, depth: u32) -> Cond {
        if depth > 6 {
            return Cond::Unknown;
        }
        match cond {
            Cond::Atom(crate::semantic::cond::Atom::Call(sym)) => {
                match self.resolve_sym(sym, file).into_iter().next() {
                    Some(Target::Function((f, idx))) => {
                        match &self.files[f as usize].functions[idx as usize].predicate {
                            Some(inner) => self.localize_depth(inner, f, depth + 1),
                            None => Cond::Unknown,
                        }
                    }
                    Some(Target::PredicateAlias(f, name)) => self.localize_depth(
                        &self.files[f as usize].predicate_aliases[&name],
                        f,
                        depth + 1,
                    ),
                    _ => Cond::Unknown,
                }
            }
            Cond::Atom(crate::semantic::cond::Atom::ProjectFlag(sym)) => {
                match self.torch_version_flag_def(sym, file) {
                    Some((flag_file, flag)) => self.localize_depth(flag, flag_file, depth + 1),
                    None => Cond::Unknown,
                }
            }
            // A flag parameter means something only inside its own function.
            Cond::Atom(
                crate::semantic::cond::Atom::FlagParam(_)
                | crate::semantic::cond::Atom::VarargLen(..)
                | crate::semantic::cond::Atom::ParamIsSize(..)
                | crate::semantic::cond::Atom::ParamTest(..)
                | crate::semantic::cond::Atom::SelfAttr { .. }
                | crate::semantic::cond::Atom::SelfAttrIs { .. }
                | crate::semantic::cond::Atom::Setting { .. },
            ) => Cond::Unknown,
            Cond::Not(inner) => Cond::Not(Box::new(self.localize_depth(inner, file, depth))),
            Cond::Choice(a, b) => Cond::Choice(
                Box::new(self.localize_depth(a, file, depth)),
                Box::new(self.localize_depth(b, file, depth)),
            ),
            Cond::And(items) => Cond::And(
                items
                    .iter()
                    .map(|c| self.localize_depth(c, file, depth))
                    .collect(),
            ),
            Cond::Or(items) => Cond::Or(
                items
                    .iter()
                    .map(|c| self.localize_depth(c, file, depth))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    // ----- deciding findings ----------------------------------------------------------------

    /// Is a finding with this path unreachable while Dynamo traces (eager-only or failure-only
    /// code)?
    pub(super) fn eager_only<'p>(
        &self,
        file: FileId,
        func: FuncIdx,
        path: impl IntoIterator<Item = &'p PathStep>,
    ) -> bool {
        self.eager_only_with(file, func, path, false)
    }

    /// `eager_only`; `at_defaults`: `self.<attr>` of a constructor option nothing in the tree
    /// sets reads its default's value (`semantic/options.rs`).
    pub(crate) fn eager_only_with<'p>(
        &self,
        file: FileId,
        func: FuncIdx,
        path: impl IntoIterator<Item = &'p PathStep>,
        at_defaults: bool,
    ) -> bool {
        let summary = &self.files[file as usize];
        let resolve = |sym: &Sym| self.predicate_formula(sym, file);
        let resolve_flag = |sym: &Sym| self.version_flag_formula(sym, file);
        let assume = Assumptions {
            torch_floor: summary.torch_floor,
            export_reading: ExportReading::FromTable,
            input_is_tensor: summary.functions[func as usize].name == "forward"
                && self.root_funcs.contains(&(file, func)),
            flag_at_default: &|name: &str| {
                self.flags_pinned
                    .get(&(file, func))
                    .is_some_and(|pinned| pinned.contains(name))
            },
            vararg_len: self.vararg_lens.get(&(file, func)).copied(),
            param_is_size: &|name: &str| {
                self.size_params
                    .get(&(file, func))
                    .is_some_and(|params| params.contains(name))
            },
            param_value: &|name: &str| {
                self.param_values
                    .get(&(file, func))
                    .and_then(|values| values.get(name))
                    .cloned()
                    .or_else(|| {
                        at_defaults
                            .then(|| self.option_param((file, func), name))
                            .flatten()
                            .map(|passed| passed.value.clone())
                    })
            },
            self_attr: &|attr: &str| {
                self.self_facts
                    .get(&(file, func))
                    .and_then(|facts| facts.get(attr))
                    .copied()
            },
            resolve_call: &resolve,
            resolve_flag: &resolve_flag,
            option_value: &|attr: &str| {
                if !at_defaults {
                    return None;
                }
                self.option_fact((file, func), attr)
                    .map(|fact| fact.value.clone())
            },
            setting_value: &|name: &str| {
                if !at_defaults {
                    return None;
                }
                self.options.settings.get(&(file, name.to_owned())).cloned()
            },
        };
        path.into_iter().any(|step| match *step {
            PathStep::Guard(guard, branch) => {
                let truth = summary.guards[guard as usize].cond.eval(&assume);
                let taken = match truth {
                    Truth::True => crate::semantic::summary::Branch::WhenTrue,
                    Truth::False => crate::semantic::summary::Branch::WhenFalse,
                    Truth::Unknown => return false,
                };
                taken != branch
            }
            PathStep::AfterException | PathStep::FailureOnly | PathStep::MisuseOnly => true,
        })
    }

    /// Is the code of this finding traced by Dynamo?
    pub fn is_traced(&self, file: FileId, candidate: &Candidate) -> bool {
        match self.region_source {
            RegionSource::Computed => match candidate.func {
                Some(func) => {
                    self.in_region.contains(&(file, func))
                        && !self.eager_only(file, func, &candidate.path)
                }
                None => false,
            },
            RegionSource::Lines(lines) => {
                let (first, last) = candidate.statement_rows;
                lines
                    .get(&self.files[file as usize].path)
                    .is_some_and(|rows| (first..=last).any(|row| rows.contains(&row)))
                    && !candidate.func.is_some_and(|func| {
                        // Only the guards: whether an exception handler or a failure path ran,
                        // the map knows.
                        let guards = candidate
                            .path
                            .iter()
                            .filter(|step| matches!(step, PathStep::Guard(..)));
                        self.eager_only(file, func, guards)
                    })
            }
        }
    }

    /// False only when nothing in function `func` can be traced: a cheap filter before costly
    /// work on a candidate (`is_traced` still decides).
    pub fn may_trace(&self, file: FileId, func: FuncIdx) -> bool {
        match self.region_source {
            RegionSource::Computed => self.in_region.contains(&(file, func)),
            RegionSource::Lines(_) => true,
        }
    }

    /// Is a guard at `row` of function `func` in traced code?
    pub fn guard_traced(&self, file: FileId, func: FuncIdx, row: u32) -> bool {
        match self.region_source {
            RegionSource::Computed => self.in_region.contains(&(file, func)),
            RegionSource::Lines(lines) => lines
                .get(&self.files[file as usize].path)
                .is_some_and(|rows| rows.contains(&row)),
        }
    }

    /// The function a call to `sym` (from `file`) reaches when Dynamo does not trace its frame
    /// (`@torch.compiler.disable`, also with `recursive=False`: the call still breaks, measured
    /// on torch 2.2 to 2.11; or any other Dynamo marker, `FunctionInfo::marked_by`): the
    /// function and its file.
    pub fn disabled_callee(
        &self,
        sym: &Sym,
        file: FileId,
    ) -> Option<(&'a crate::semantic::summary::FunctionInfo, &'a Path)> {
        // Whatever `sym` resolves to, a disabled target's name is among `disabled_names`.
        if self.disabled_names.is_empty() {
            return None;
        }
        // `instance(...)` runs the class's `__call__` or, for a Module, its `forward`.
        if let Sym::Instance { method, .. } = sym
            && method == "__call__"
            && !self.disabled_names.contains("__call__")
            && !self.disabled_names.contains("forward")
        {
            return None;
        }
        let last = match sym {
            Sym::Dotted(name) | Sym::Local(name) => name.rsplit('.').next(),
            Sym::SelfAttr { attr, .. } | Sym::SuperAttr { attr, .. } => attr.rsplit('.').next(),
            // `instance(...)` may run `forward`: no cheap name to test.
            Sym::Instance { method, .. } if method != "__call__" => Some(method.as_str()),
            Sym::Instance { .. } | Sym::DictValues(_) => None,
            Sym::FunctionRef(inner) => Some(inner.last_segment()),
        };
        // A call of a module instance (`self.block(x)`) runs its `forward`: a class marked as a
        // whole (`@torch.compiler.disable class Block`) has a disabled `forward`.
        if last.is_some_and(|name| !self.disabled_names.contains(name))
            && !self.disabled_names.contains("forward")
        {
            return None;
        }
        self.resolve_sym(sym, file)
            .into_iter()
            .find_map(|target| match target {
                Target::Function((callee_file, idx)) => {
                    let summary = &self.files[callee_file as usize];
                    let info = &summary.functions[idx as usize];
                    (info.disabled || info.disabled_frame_only)
                        .then_some((info, summary.path.as_path()))
                }
                _ => None,
            })
    }

    /// Calls of function `func` that the type flow alone resolves to a disabled project function
    /// (a function passed in as an argument, `outer(f, x)` → `fn(x)`): the call, and the callee's
    /// qualified name, file and line.
    pub fn disabled_flow_callees(
        &self,
        file: FileId,
        func: FuncIdx,
    ) -> Vec<(
        &'a crate::semantic::typeflow::FlowCall,
        String,
        &'a Path,
        u32,
    )> {
        let mut out = Vec::new();
        if self.disabled_names.is_empty() {
            return out;
        }
        let Some(scope) = self.files[file as usize].flow.functions.get(func as usize) else {
            return out;
        };
        let calls = &scope.calls;
        for edge in self.flow.edges.get(&(file, func)).into_iter().flatten() {
            if edge.by_name {
                continue;
            }
            let (callee_file, idx) = edge.callee;
            let summary = &self.files[callee_file as usize];
            let info = &summary.functions[idx as usize];
            if info.disabled
                && let Some(call) = calls.get(edge.call as usize)
            {
                out.push((
                    call,
                    info.qualified_name(),
                    summary.path.as_path(),
                    info.line,
                ));
            }
        }
        out
    }

    /// The first write to outside state in the function(s) `sym` names (a checkpointed body):
    /// the function, its name and file, and the write.
    pub fn outside_write_of(
        &self,
        sym: &Sym,
        file: FileId,
    ) -> Option<(
        FuncRef,
        String,
        &'a Path,
        &'a crate::semantic::summary::OutsideWrite,
    )> {
        self.resolve_sym(sym, file)
            .into_iter()
            .find_map(|target| match target {
                Target::Function((callee_file, idx)) => {
                    let summary = &self.files[callee_file as usize];
                    let info = &summary.functions[idx as usize];
                    let write = info.outside_writes.first()?;
                    Some((
                        (callee_file, idx),
                        info.qualified_name(),
                        summary.path.as_path(),
                        write,
                    ))
                }
                _ => None,
            })
    }

    /// The functions a call to `sym` runs: the callee; for a class, its `__init__` (building an
    /// object in traced code runs it: a loss module constructed inside a loss function); for a
    /// property getter, also what it returns (`self.loss_function(...)` calls
    /// `LOSS_MAPPING[self.loss_type]`).
    pub(super) fn call_targets(&self, sym: &Sym, file: FileId) -> Vec<FuncRef> {
        let mut out = Vec::new();
        for target in self.resolve_sym(sym, file) {
            match target {
                Target::Function(callee) => {
                    out.push(callee);
                    out.extend(self.traced_with_autograd_forward(callee));
                    let getter = &self.files[callee.0 as usize].functions[callee.1 as usize];
                    if getter.is_property {
                        for returned in &getter.returned_callables {
                            for target in self.resolve_sym(returned, callee.0) {
                                match target {
                                    Target::Function(f) => out.push(f),
                                    Target::Class(class) => out.extend(self.constructor(class)),
                                    Target::PredicateAlias(..) | Target::VersionFlag(..) => {}
                                }
                            }
                        }
                    }
                }
                Target::Class(class) => out.extend(self.constructor(class)),
                Target::PredicateAlias(..) | Target::VersionFlag(..) => {}
            }
        }
        out
    }

    /// What calling a class runs: `__new__`, then `__init__`; with no project `__init__` (a
    /// dataclass's generated one), its `__post_init__`.
    fn constructor(&self, class: ClassRef) -> impl Iterator<Item = FuncRef> {
        let init = self.lookup_method(class, "__init__", 0);
        let post_init = init
            .is_none()
            .then(|| self.lookup_method(class, "__post_init__", 0))
            .flatten();
        [self.lookup_method(class, "__new__", 0), init, post_init]
            .into_iter()
            .flatten()
    }

    /// With a custom autograd function's `forward` (reached through `Fn.apply`), Dynamo traces
    /// its `setup_context` and `backward` too (measured on torch 2.11: test_reach_proofs.py).
    fn traced_with_autograd_forward(&self, callee: FuncRef) -> Vec<FuncRef> {
        let summary = &self.files[callee.0 as usize];
        let info = &summary.functions[callee.1 as usize];
        if info.name != "forward" || self.autograd_functions.is_empty() {
            return Vec::new();
        }
        let Some(&class) = info
            .class
            .as_deref()
            .and_then(|qual| summary.class_by_name.get(qual))
        else {
            return Vec::new();
        };
        if !self.autograd_functions.contains(&(callee.0, class)) {
            return Vec::new();
        }
        ["setup_context", "backward"]
            .into_iter()
            .filter_map(|name| self.lookup_method((callee.0, class), name, 0))
            .collect()
    }

    /// The literal boolean default of `field` in the class `class` names (as seen from `file`),
    /// searching its project bases too: the declaring class's name, file and the declaration.
    pub fn field_default(
        &self,
        class: &Sym,
        file: FileId,
        field: &str,
    ) -> Option<(&'a str, &'a Path, &'a crate::semantic::gates::FieldDefault)> {
        let mut queue: VecDeque<ClassRef> = self
            .resolve_sym(class, file)
            .into_iter()
            .filter_map(|t| match t {
                Target::Class(class) => Some(class),
                _ => None,
            })
            .collect();
        let mut seen = HashSet::default();
        while let Some(class) = queue.pop_front() {
            if !seen.insert(class) || seen.len() > 32 {
                continue;
            }
            let file_summary = &self.files[class.0 as usize];
            let info = &file_summary.classes[class.1 as usize];
            if let Some(found) = info.fields.iter().find(|f| f.name == field) {
                return Some((info.qualname.as_str(), file_summary.path.as_path(), found));
            }
            queue.extend(self.project_bases(class));
        }
        None
    }

    /// Is `sym` (named in `file`) a project class deriving, through project classes in any file,
    /// from a torch module Dynamo will not wrap (`rules/data/unwrapped_modules.toml`)?
    pub(super) fn derives_from_unwrapped(
        &self,
        sym: &Sym,
        file: FileId,
        floor: Option<crate::config::TorchVersion>,
    ) -> bool {
        let unwrapped = |dotted: &str| is_unwrapped_module(dotted, floor);
        if let Sym::Dotted(dotted) = sym
            && unwrapped(dotted)
        {
            return true;
        }
        self.resolve_sym(sym, file)
            .into_iter()
            .filter_map(|target| match target {
                Target::Class(class) => Some(class),
                _ => None,
            })
            .any(|class| self.class_derives_from_unwrapped(class, floor, 0))
    }

    /// `derives_from_unwrapped` for one project class. An abstract class
    /// (`ClassInfo::is_abstract`: Python refuses to instantiate it) counts when it has project
    /// subclasses and each of them counts: every instance is one of theirs (a few levels deep).
    fn class_derives_from_unwrapped(
        &self,
        class: ClassRef,
        floor: Option<crate::config::TorchVersion>,
        depth: u32,
    ) -> bool {
        let unwrapped = |dotted: &str| is_unwrapped_module(dotted, floor);
        let mut queue: VecDeque<ClassRef> = VecDeque::from([class]);
        let mut seen: HashSet<ClassRef> = HashSet::default();
        while let Some(class) = queue.pop_front() {
            if !seen.insert(class) || seen.len() > 32 {
                continue;
            }
            let bases = &self.files[class.0 as usize].classes[class.1 as usize].bases;
            let external = bases.iter().any(|base| match base {
                Sym::Dotted(dotted) => unwrapped(dotted),
                _ => self
                    .external_base(base, class.0)
                    .is_some_and(|dotted| unwrapped(&dotted)),
            });
            if external {
                return true;
            }
            queue.extend(self.project_bases(class));
        }
        depth < 4
            && self.files[class.0 as usize].classes[class.1 as usize].is_abstract
            && self.subclasses.get(&class).is_some_and(|subclasses| {
                !subclasses.is_empty()
                    && subclasses
                        .iter()
                        .all(|&sub| self.class_derives_from_unwrapped(sub, floor, depth + 1))
            })
    }

    /// Is `helper` (named in `file`) a project function every class it can return derives from a
    /// torch module Dynamo will not wrap? Unknown returns (a parameter, a call) make it no.
    pub(super) fn factory_returns_unwrapped(
        &self,
        helper: &Sym,
        file: FileId,
        floor: Option<crate::config::TorchVersion>,
    ) -> bool {
        let targets = self.resolve_sym(helper, file);
        !targets.is_empty()
            && targets.iter().all(|target| {
                let Target::Function((home, idx)) = *target else {
                    return false;
                };
                let summary = &self.files[home as usize];
                let function = &summary.functions[idx as usize];
                if function.class.is_some() {
                    return false;
                }
                summary
                    .class_factory_returns
                    .get(&function.name)
                    .is_some_and(|classes| {
                        classes
                            .iter()
                            .all(|sym| self.derives_from_unwrapped(sym, home, floor))
                    })
            })
    }

    /// Does candidate `index` of `file` pass the class checks linking makes (a `self.<attr>` whose
    /// class, or the helper that picks it, must derive from an unwrapped torch module)? For a
    /// rule that cites another file candidate as its reason: one linking drops is no reason.
    /// Uncached: asked for a few candidates only.
    pub fn class_checks_hold(&self, file: FileId, index: usize) -> bool {
        let summary = &self.files[file as usize];
        summary
            .unwrapped_class_checks
            .get(&index)
            .is_none_or(|classes| {
                classes
                    .iter()
                    .all(|sym| self.derives_from_unwrapped(sym, file, summary.torch_floor))
            })
            && summary
                .factory_class_checks
                .get(&index)
                .is_none_or(|helper| {
                    self.factory_returns_unwrapped(helper, file, summary.torch_floor)
                })
    }

    /// The findings of one file that survive linking (rules' project hooks add theirs separately).
    pub fn findings(&self, file: FileId) -> Vec<&Candidate> {
        let summary = &self.files[file as usize];
        // Computed only for files with a version-bound finding (rare: VR001 on an old floor).
        let called_at = if summary.candidates.iter().any(|c| c.holds_below.is_some()) {
            self.called_only_at(file)
        } else {
            HashMap::default()
        };
        // BR011 candidates of one file name the same few classes many times over (every use of
        // `self.<attr>`): each class is decided once.
        let mut derives: HashMap<&Sym, bool> = HashMap::default();
        summary
            .file_diagnostics
            .iter()
            .chain(
                summary
                    .candidates
                    .iter()
                    .enumerate()
                    .filter_map(|(index, c)| {
                        let classes_hold =
                            summary
                                .unwrapped_class_checks
                                .get(&index)
                                .is_none_or(|classes| {
                                    classes.iter().all(|sym| {
                                        *derives.entry(sym).or_insert_with(|| {
                                            self.derives_from_unwrapped(
                                                sym,
                                                file,
                                                summary.torch_floor,
                                            )
                                        })
                                    })
                                });
                        let factory_holds =
                            summary
                                .factory_class_checks
                                .get(&index)
                                .is_none_or(|helper| {
                                    self.factory_returns_unwrapped(
                                        helper,
                                        file,
                                        summary.torch_floor,
                                    )
                                });
                        (classes_hold && factory_holds).then_some(c)
                    })
                    .filter(|c| {
                        let in_scope = match c.scope {
                            Scope::Anywhere => true,
                            Scope::CompiledRegion => self.is_traced(file, c),
                        };
                        in_scope
                            && c.host_index.as_ref().is_none_or(|deps| {
                                let facts = self.host_index.get_or_init(|| self.solve_host_index());
                                c.func.is_some_and(|f| {
                                    self.index_deps_hold(facts, file, (file, f), deps)
                                })
                            })
                            && self.tensor_inputs_hold(file, c)
                            && !c.holds_below.as_ref().is_some_and(|bound| {
                                // After an assertion in its own function, or called only after one.
                                let own = bound
                                    .asserted
                                    .iter()
                                    .filter_map(|flag| self.version_flag(flag, file))
                                    .max();
                                let callers = c.func.and_then(|f| called_at.get(&f).copied());
                                own.max(callers).is_some_and(|at| at >= bound.below)
                            })
                    }),
            )
            .collect()
    }

    /// A finding that needs a parameter (`tensor_params`) or a local a project call returned
    /// (`tensor_returns`) to be a tensor: either suffices; one that needs neither holds.
    fn tensor_inputs_hold(&self, file: FileId, c: &Candidate) -> bool {
        if c.tensor_params.is_none() && c.tensor_returns.is_none() {
            return true;
        }
        let params_hold = c.tensor_params.as_ref().is_some_and(|params| {
            let facts = self
                .tensor_params
                .get_or_init(|| self.solve_tensor_params());
            c.func.is_some_and(|f| {
                if c.tensor_params_masks {
                    facts.any_mask((file, f), params)
                } else {
                    facts.any((file, f), params)
                }
            })
        });
        params_hold
            || c.tensor_returns.as_ref().is_some_and(|deps| {
                self.tensor_returns_hold(file, c.func, deps, c.tensor_returns_masks)
            })
    }

    /// Per function of this file, the lowest torch version on which the project calls it: every
    /// call of it follows a top-level `assert TORCH_X_Y` (or `if not TORCH_X_Y: raise`) in its
    /// caller (`model/versions.rs`). Functions with an unguarded call, or none, are absent.
    pub(super) fn called_only_at(&self, file: FileId) -> HashMap<FuncIdx, TorchVersion> {
        let summary = &self.files[file as usize];
        let wanted: HashSet<&str> = summary
            .candidates
            .iter()
            .filter(|c| c.holds_below.is_some())
            .filter_map(|c| c.func)
            .map(|f| summary.functions[f as usize].name.as_str())
            .collect();
        let mut lowest: HashMap<FuncIdx, Option<TorchVersion>> = HashMap::default();
        for (caller_file, caller_summary) in self.files.iter().enumerate() {
            let caller_file = caller_file as FileId;
            for (caller, info) in caller_summary.functions.iter().enumerate() {
                for (index, call) in info.calls.iter().enumerate() {
                    if !wanted.contains(call.sym.last_segment()) {
                        continue;
                    }
                    for target in self.resolve_sym(&call.sym, caller_file) {
                        let Target::Function((callee_file, callee)) = target else {
                            continue;
                        };
                        if callee_file != file {
                            continue;
                        }
                        let asserted = caller_summary
                            .gated_calls
                            .iter()
                            .find(|g| g.func == caller as FuncIdx && g.call == index as u32)
                            .and_then(|g| {
                                g.flags
                                    .iter()
                                    .filter_map(|flag| self.version_flag(flag, caller_file))
                                    .max()
                            });
                        lowest
                            .entry(callee)
                            .and_modify(|known| {
                                *known = match (*known, asserted) {
                                    (Some(a), Some(b)) => Some(a.min(b)),
                                    _ => None,
                                }
                            })
                            .or_insert(asserted);
                    }
                }
            }
        }
        lowest
            .into_iter()
            .filter_map(|(func, version)| Some((func, version?)))
            .collect()
    }

    /// The version a module-level flag (`TORCH_2_8 = check_version(...)`) asserts.
    pub(super) fn version_flag(&self, flag: &Sym, from: FileId) -> Option<TorchVersion> {
        match flag {
            Sym::Local(name) => self.files[from as usize].version_flags.get(name).copied(),
            Sym::Dotted(dotted) => {
                let (module, name) = dotted.rsplit_once('.')?;
                let file = self.file_for_module(module, from)?;
                self.files[file as usize].version_flags.get(name).copied()
            }
            _ => None,
        }
    }
}

/// A torch module class Dynamo will not wrap on every generated torch at or above `floor`
/// (`rules/data/unwrapped_modules.toml`).
fn is_unwrapped_module(dotted: &str, floor: Option<crate::config::TorchVersion>) -> bool {
    TORCH
        .generated
        .unwrapped_modules
        .on_every_from(dotted, floor)
        .is_some()
}
