//! Resolution across files: modules, dotted names, symbols, bases, methods and typed attributes.

use super::*;

impl<'a> Project<'a> {
    pub(crate) fn file_for_module(&self, module: &str, from: FileId) -> Option<FileId> {
        let candidates = self.modules.get(module)?;
        if candidates.len() == 1 {
            return Some(candidates[0]);
        }
        // Several top-level scripts share a name (e.g. one `helpers.py` per directory): prefer the
        // one next to the importer, then the one sharing the longest path prefix.
        // Ties go to the smallest path, so the answer never depends on the order of scan roots.
        let from_path = &self.files[from as usize].path;
        candidates.iter().copied().max_by(|&a, &b| {
            let (path_a, path_b) = (&self.files[a as usize].path, &self.files[b as usize].path);
            common_prefix_len(path_a, from_path)
                .cmp(&common_prefix_len(path_b, from_path))
                .then_with(|| path_b.cmp(path_a))
        })
    }

    pub(crate) fn resolve_dotted(&self, dotted: &str, from: FileId, depth: u32) -> Option<Target> {
        if depth > 6 {
            return None;
        }
        let segments: Vec<&str> = dotted.split('.').collect();
        for split in (1..=segments.len()).rev() {
            let module = segments[..split].join(".");
            let Some(file) = self.file_for_module(&module, from) else {
                continue;
            };
            let rest = &segments[split..];
            if rest.is_empty() {
                return None;
            }
            return self.resolve_in_file(file, &rest.join("."), depth);
        }
        None
    }

    pub(crate) fn resolve_in_file(&self, file: FileId, local: &str, depth: u32) -> Option<Target> {
        let summary = &self.files[file as usize];
        if let Some(&idx) = summary.function_by_name.get(local) {
            return Some(Target::Function((file, idx)));
        }
        if let Some(&idx) = summary.class_by_name.get(local) {
            return Some(Target::Class((file, idx)));
        }
        if summary.predicate_aliases.contains_key(local) {
            return Some(Target::PredicateAlias(file, local.to_owned()));
        }
        if summary.torch_version_flags.contains_key(local) {
            return Some(Target::VersionFlag(file, local.to_owned()));
        }
        // `Fn.apply(x)` on a custom autograd function runs its `forward` (`call_targets` adds
        // what Dynamo traces with it).
        if let Some((owner, "apply")) = local.rsplit_once('.')
            && let Some(&class) = summary.class_by_name.get(owner)
            && self.autograd_functions.contains(&(file, class))
        {
            return self
                .lookup_method((file, class), "forward", 0)
                .map(Target::Function);
        }
        // `Flag.on()` where `on` is a classmethod (or any method) `Flag` inherits: attribute
        // lookup on a class walks its bases, as on an instance. One hash lookup per miss.
        if let Some((owner, member)) = local.rsplit_once('.')
            && let Some(&class) = summary.class_by_name.get(owner)
            && let Some(method) = self.lookup_method((file, class), member, 0)
        {
            return Some(Target::Function(method));
        }
        // A re-export: `from .utils import helper` in a package's __init__.py.
        let (first, rest) = local.split_once('.').map_or((local, ""), |(f, r)| (f, r));
        let Some(target) = summary.imports.get(first) else {
            return self.resolve_star_imported(file, first, local, depth);
        };
        let dotted = if rest.is_empty() {
            target.clone()
        } else {
            format!("{target}.{rest}")
        };
        self.resolve_dotted(&dotted, file, depth + 1)
    }

    pub(crate) fn resolve_sym(&self, sym: &Sym, file: FileId) -> Vec<Target> {
        match sym {
            Sym::Dotted(dotted) => self.with_alternatives(self.resolve_dotted(dotted, file, 0)),
            Sym::Local(local) => self.with_alternatives(self.resolve_in_file(file, local, 0)),
            Sym::SelfAttr { class, attr } => {
                let Some(&idx) = self.files[file as usize].class_by_name.get(class) else {
                    return Vec::new();
                };
                // `self.__class__.reset(...)`: the instance's class — this one or a subclass —
                // so its member or an override, as for `self.reset(...)`.
                let member = match attr.strip_prefix("__class__.") {
                    Some(member) if !member.contains('.') => member,
                    _ => attr,
                };
                let mut found: Vec<Target> = self
                    .methods_named((file, idx), member)
                    .into_iter()
                    .map(Target::Function)
                    .collect();
                if found.is_empty() {
                    // `self.criterion(...)` / `self.head.compute_loss(...)` where `__init__` stored
                    // `self.criterion = Loss()`: the call runs a method of the stored instance;
                    // `self.act(x)` where a method stored `self.act = identity`: the function.
                    found = self.typed_attribute_call(file, class, attr);
                    if let Some(stored) = self.files[file as usize]
                        .self_attr_callables
                        .get(class)
                        .and_then(|attrs| attrs.get(attr.as_str()))
                    {
                        for sym in stored {
                            found.extend(
                                self.resolve_sym(&Sym::FunctionRef(Box::new(sym.clone())), file),
                            );
                        }
                    }
                }
                // `self.step = self.wrap(self.step)` / `self.gate = make_gate(...)`: the instance
                // attribute shadows any method of that name and holds the closure the call
                // returned (beside every other candidate: the wrapper calls the method it wraps,
                // another store may hold a plain function).
                found.extend(
                    self.attribute_factory_closures(file, class, attr)
                        .into_iter()
                        .map(Target::Function),
                );
                found
            }
            Sym::Instance { class, method }
                if matches!(**class, Sym::Dotted(_) | Sym::Local(_)) =>
            {
                self.resolve_sym(class, file)
                    .into_iter()
                    .filter_map(|target| match target {
                        Target::Class(class) => {
                            let mut found = Vec::new();
                            self.instance_call_targets(class, method, &mut found);
                            Some(found)
                        }
                        _ => None,
                    })
                    .flatten()
                    .map(Target::Function)
                    .collect()
            }
            Sym::SuperAttr { class, attr } => {
                let Some(&idx) = self.files[file as usize].class_by_name.get(class) else {
                    return Vec::new();
                };
                let mut found = Vec::new();
                for base in self.project_bases((file, idx)) {
                    if let Some(method) = self.lookup_method(base, attr, 0) {
                        found.push(Target::Function(method));
                        break;
                    }
                }
                // `return super().__call__(*args, **kwargs)` in a Module's own `__call__`: torch's
                // `Module.__call__` runs the instance's `forward` (this class's or an override).
                if found.is_empty()
                    && attr == "__call__"
                    && self.module_classes.contains(&(file, idx))
                {
                    found.extend(
                        self.methods_named((file, idx), "forward")
                            .into_iter()
                            .map(Target::Function),
                    );
                }
                found
            }
            Sym::Instance { .. } => Vec::new(),
            // A function used as a value: functions only — a `self.<attr>` read reaches the
            // class's methods and property getters, never a stored instance's `__call__`.
            Sym::FunctionRef(inner) => match &**inner {
                // `self.kernel.width`, `dist.spread`: property getters of the receiver's class.
                Sym::SelfAttr { class, attr } if attr.contains('.') => self
                    .collaborator_property_getters(file, class, attr)
                    .into_iter()
                    .map(Target::Function)
                    .collect(),
                Sym::Instance { class, method } => self
                    .instance_property_getters(file, class, method)
                    .into_iter()
                    .map(Target::Function)
                    .collect(),
                Sym::SelfAttr { class, attr } if !attr.contains('.') => {
                    let Some(&idx) = self.files[file as usize].class_by_name.get(class) else {
                        return Vec::new();
                    };
                    self.methods_named((file, idx), attr)
                        .into_iter()
                        .filter(|&f| !self.untraced_cached_getter(f))
                        .map(Target::Function)
                        .collect()
                }
                Sym::Dotted(_) | Sym::Local(_) => self
                    .resolve_sym(inner, file)
                    .into_iter()
                    .filter(|target| matches!(target, Target::Function(_)))
                    .collect(),
                _ => Vec::new(),
            },
            Sym::DictValues(dict) => {
                let Sym::Dotted(dotted) = &**dict else {
                    return Vec::new();
                };
                let Some((module, name)) = dotted.rsplit_once('.') else {
                    return Vec::new();
                };
                let Some(dict_file) = self.file_for_module(module, file) else {
                    return Vec::new();
                };
                let Some(values) = self.files[dict_file as usize].module_dispatch.get(name) else {
                    return Vec::new();
                };
                values
                    .iter()
                    .filter(|value| !matches!(value, Sym::DictValues(_)))
                    .flat_map(|value| self.resolve_sym(value, dict_file))
                    .collect()
            }
        }
    }

    /// A name bound by several class statements of one scope (`summary::ALTERNATIVE_MARK`) may be
    /// any of those classes: the target and its alternatives. O(1) for every other target.
    fn with_alternatives(&self, target: Option<Target>) -> Vec<Target> {
        let Some(target) = target else {
            return Vec::new();
        };
        let alternatives = match &target {
            Target::Class((file, idx)) => self.files[*file as usize]
                .class_alternatives
                .get(idx)
                .map(|others| (*file, others)),
            _ => None,
        };
        let mut out = vec![target];
        if let Some((file, others)) = alternatives {
            out.extend(others.iter().map(|&idx| Target::Class((file, idx))));
        }
        out
    }

    /// The closures `self.<attr>` may hold when a method stored a call's result in it
    /// (`summary.self_attr_factories`): the functions each called factory defines inside itself
    /// and references (returns). Empty, at one hash lookup, for almost every attribute.
    fn attribute_factory_closures(&self, file: FileId, class: &str, attr: &str) -> Vec<FuncRef> {
        let Some(factories) = self.files[file as usize]
            .self_attr_factories
            .get(class)
            .and_then(|attrs| attrs.get(attr))
        else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for factory in factories {
            // A method factory resolves to methods only, never through other attributes' values:
            // `self.a = self.a(...)` must not send resolution round in circles.
            let funcs: Vec<FuncRef> = match factory {
                Sym::SelfAttr { class, attr } if !attr.contains('.') => {
                    match self.files[file as usize].class_by_name.get(class) {
                        Some(&idx) => self.methods_named((file, idx), attr),
                        None => Vec::new(),
                    }
                }
                Sym::Local(_) | Sym::Dotted(_) => self
                    .resolve_sym(factory, file)
                    .into_iter()
                    .filter_map(|target| match target {
                        Target::Function(func) => Some(func),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            for func in funcs {
                for inner in self.nested_functions_referenced(func) {
                    if !found.contains(&inner) {
                        found.push(inner);
                    }
                }
            }
        }
        found
    }

    pub(crate) fn project_bases(&self, class: ClassRef) -> Vec<ClassRef> {
        if let Some(bases) = self
            .class_bases
            .get(class.0 as usize)
            .and_then(|file| file.get(class.1 as usize))
        {
            return bases.clone();
        }
        self.resolve_bases(class)
    }

    pub(super) fn resolve_bases(&self, class: ClassRef) -> Vec<ClassRef> {
        let info = &self.files[class.0 as usize].classes[class.1 as usize];
        info.bases
            .iter()
            .flat_map(|base| self.resolve_sym(base, class.0))
            .filter_map(|target| match target {
                Target::Class(c) => Some(c),
                _ => None,
            })
            .collect()
    }

    /// Method lookup through project base classes (depth-first, like a simple MRO).
    pub(crate) fn lookup_method(&self, class: ClassRef, name: &str, depth: u32) -> Option<FuncRef> {
        if depth > 16 {
            return None;
        }
        let file = &self.files[class.0 as usize];
        let found = with_member_name(&file.classes[class.1 as usize].qualname, name, |qual| {
            file.function_by_name.get(qual).copied()
        });
        if let Some(idx) = found {
            return Some((class.0, idx));
        }
        self.project_bases(class)
            .into_iter()
            .find_map(|base| self.lookup_method(base, name, depth + 1))
    }

    /// The method a call on `self.<attr>[.<method>]` runs, when the attribute's class is known
    /// from an assignment `self.<attr> = Class(...)` in the class.
    pub(super) fn typed_attribute_call(
        &self,
        file: FileId,
        class: &str,
        attr: &str,
    ) -> Vec<Target> {
        let (stored, method) = attr.split_once('.').unwrap_or((attr, "__call__"));
        if let Some((path, last)) = method.rsplit_once('.') {
            return self.chained_attribute_call(file, class, &format!("{stored}.{path}"), last);
        }
        // Only a class named by an import or a local definition: `self.a = self.make(...)` is a
        // method call, not a class, and must not send resolution round in circles.
        if let Some(typed @ (Sym::Dotted(_) | Sym::Local(_))) = self.files[file as usize]
            .self_attr_types
            .get(class)
            .and_then(|attrs| attrs.get(stored))
        {
            let instance = Sym::Instance {
                class: Box::new(typed.clone()),
                method: method.to_owned(),
            };
            return self.resolve_sym(&instance, file);
        }
        // Stored by a project base (`self.cache = Cache()` in the base's `setup()`).
        self.chained_attribute_call(file, class, stored, method)
    }

    /// `self.<chain>.<last>(...)` (`self.cache.reset()` with the cache stored by a base,
    /// `self.backbone.body.stem(x)`): the classes stored along the chain
    /// (`stored_chain_classes`), then `last` as a method of the final holder or, where it has
    /// none, as a collaborator stored there and called.
    fn chained_attribute_call(
        &self,
        file: FileId,
        class: &str,
        chain: &str,
        last: &str,
    ) -> Vec<Target> {
        let Some(&idx) = self.files[file as usize].class_by_name.get(class) else {
            return Vec::new();
        };
        let mut found: Vec<FuncRef> = Vec::new();
        for holder in self.stored_chain_classes((file, idx), chain) {
            let before = found.len();
            self.instance_call_targets(holder, last, &mut found);
            if found.len() == before {
                for called in self.stored_chain_classes(holder, last) {
                    self.instance_call_targets(called, "__call__", &mut found);
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        found.into_iter().map(Target::Function).collect()
    }

    /// What `<instance of class>.method(...)` runs: the method (own or inherited; `forward` for
    /// `__call__` on a Module) unless it is a cached getter Dynamo does not trace, or, calling a
    /// Module with no project `forward`, the project's overrides torch's `__call__` runs
    /// (`link/torch_hooks.rs`).
    fn instance_call_targets(&self, class: ClassRef, method: &str, out: &mut Vec<FuncRef>) {
        match self
            .instance_method(class, method)
            .filter(|&f| !self.untraced_cached_getter(f))
        {
            Some(f) => out.push(f),
            None if method == "__call__" => out.extend(self.torch_hook_overrides(class)),
            None => {}
        }
    }

    /// The function that runs for `instance.method(...)` on an instance of `class`; calling the
    /// instance itself (`__call__`) runs `forward` for an nn.Module without its own `__call__`.
    pub(crate) fn instance_method(&self, class: ClassRef, method: &str) -> Option<FuncRef> {
        self.lookup_method(class, method, 0).or_else(|| {
            (method == "__call__" && self.module_classes.contains(&class))
                .then(|| self.module_forward(class))
                .flatten()
        })
    }

    /// The `forward` calling a Module of `class` runs: none when a project class decorator
    /// replaced it with a dispatcher that runs the class's own `forward` only as a fallback
    /// (`model/dispatch.rs`).
    pub(crate) fn module_forward(&self, class: ClassRef) -> Option<FuncRef> {
        let forward = self.lookup_method(class, "forward", 0)?;
        let owner = self.files[forward.0 as usize].functions[forward.1 as usize]
            .class
            .as_deref()
            .and_then(|qual| self.files[forward.0 as usize].class_by_name.get(qual))
            .map(|&idx| (forward.0, idx));
        let dispatched = [Some(class), owner]
            .into_iter()
            .flatten()
            .any(|c| self.forward_replaced_by_decorator(c));
        (!dispatched).then_some(forward)
    }

    pub(super) fn forward_replaced_by_decorator(&self, class: ClassRef) -> bool {
        self.files[class.0 as usize].classes[class.1 as usize]
            .decorators
            .iter()
            .any(|decorator| {
                self.resolve_sym(decorator, class.0)
                    .into_iter()
                    .any(|target| match target {
                        Target::Function((file, idx)) => {
                            self.files[file as usize].functions[idx as usize].replaces_forward
                        }
                        _ => false,
                    })
            })
    }

    /// `self.name(...)` may run the class's own (or inherited) method, or an override in any
    /// project subclass — Dynamo traces whichever the instance has.
    pub(super) fn methods_named(&self, class: ClassRef, name: &str) -> Vec<FuncRef> {
        self.member_and_overrides(class, name, true)
    }

    /// The class's own (or inherited) member `name` and its overrides in live project subclasses.
    /// `unknown_live_counts`: without roots nothing is known live — count every subclass (true) or
    /// none (false).
    pub(super) fn member_and_overrides(
        &self,
        class: ClassRef,
        name: &str,
        unknown_live_counts: bool,
    ) -> Vec<FuncRef> {
        // Most classes have no project subclass: spare the queue, the seen set and the memo.
        let Some(direct) = self.subclasses.get(&class) else {
            return self.lookup_method(class, name, 0).into_iter().collect();
        };
        // Without roots no subclass is known live: when that counts none, the class's own.
        if self.live_classes.is_none() && !unknown_live_counts {
            return self.lookup_method(class, name, 0).into_iter().collect();
        }
        let memo = |memo: &HashMap<ClassRef, Vec<MemberAnswer>>| {
            memo.get(&class)?
                .iter()
                .find(|answer| {
                    answer.counts_unknown == unknown_live_counts && &*answer.name == name
                })
                .map(|answer| answer.methods.to_vec())
        };
        if let Some(found) = memo(&self.member_memo.lock().unwrap_or_else(|e| e.into_inner())) {
            return found;
        }
        let found = self.walk_member_and_overrides(class, direct, name, unknown_live_counts);
        self.member_memo
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(class)
            .or_default()
            .push(MemberAnswer {
                name: name.into(),
                counts_unknown: unknown_live_counts,
                methods: found.clone().into(),
            });
        found
    }

    /// Forgets the `member_and_overrides` answers (the live classes changed).
    pub(super) fn forget_member_answers(&mut self) {
        self.member_memo
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    fn walk_member_and_overrides(
        &self,
        class: ClassRef,
        direct: &[ClassRef],
        name: &str,
        unknown_live_counts: bool,
    ) -> Vec<FuncRef> {
        let mut found: Vec<FuncRef> = self.lookup_method(class, name, 0).into_iter().collect();
        let mut queue: VecDeque<ClassRef> = direct.iter().copied().collect();
        let mut seen = HashSet::default();
        while let Some(sub) = queue.pop_front() {
            if !seen.insert(sub) {
                continue;
            }
            let file = &self.files[sub.0 as usize];
            let live = match &self.live_classes {
                Some(live) => live.contains(&sub),
                None => unknown_live_counts,
            };
            if live
                && let Some(idx) =
                    with_member_name(&file.classes[sub.1 as usize].qualname, name, |qual| {
                        file.function_by_name.get(qual).copied()
                    })
            {
                found.push((sub.0, idx));
            }
            queue.extend(self.subclasses.get(&sub).into_iter().flatten().copied());
        }
        found
    }

    /// The classes whose instances run `method` of `class` as their own: the class itself and
    /// every live project subclass that inherits it (does not override it on the way down).
    pub(super) fn inheritors(&self, method: FuncRef, class: ClassRef) -> Vec<ClassRef> {
        let mut found = vec![class];
        let Some(direct) = self.subclasses.get(&class) else {
            return found;
        };
        let name = self.files[method.0 as usize].functions[method.1 as usize]
            .name
            .as_str();
        let mut queue: VecDeque<ClassRef> = direct.iter().copied().collect();
        let mut seen = HashSet::default();
        while let Some(sub) = queue.pop_front() {
            if !seen.insert(sub) {
                continue;
            }
            let live = self
                .live_classes
                .as_ref()
                .is_none_or(|live| live.contains(&sub));
            if live && self.lookup_method(sub, name, 0) == Some(method) {
                found.push(sub);
            }
            queue.extend(self.subclasses.get(&sub).into_iter().flatten().copied());
        }
        found
    }

    // ----- classes and regions --------------------------------------------------------------
}
