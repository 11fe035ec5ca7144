//! Roots and reach: module classes, the declared and discovered roots, factories, and the closure of
//! functions reached from them.

use super::*;
use crate::semantic::summary::display_qualname;

/// How many bases of a class are torch `nn.Module` bases and autograd `Function` bases.
#[derive(Default)]
struct BaseKind {
    module_bases: u32,
    autograd_bases: u32,
}

impl<'a> Project<'a> {
    pub(super) fn find_module_classes(&mut self) {
        // Each class's bases are resolved on its own (name resolution reads none of the tables
        // this fills, which are set only below), so the files are resolved on all workers: this
        // runs in the sequential link step, and resolving every class's bases was its largest
        // part after the closure and the host-index solve (~50M instructions of 277M on the
        // speed7 subset). The tables are then built in file order, as before.
        let resolved: Vec<Vec<(Vec<ClassRef>, BaseKind)>> = {
            use rayon::prelude::*;
            let project = &*self;
            (0..project.files.len())
                .into_par_iter()
                .map(|file_id| project.resolve_file_bases(file_id as FileId))
                .collect()
        };
        let mut direct: Vec<ClassRef> = Vec::new();
        let mut autograd: Vec<ClassRef> = Vec::new();
        let mut subclasses: HashMap<ClassRef, Vec<ClassRef>> = HashMap::default();
        let mut class_bases = Vec::with_capacity(self.files.len());
        for (file_id, file_classes) in resolved.into_iter().enumerate() {
            let mut file_bases = Vec::with_capacity(file_classes.len());
            for (class_idx, (bases, kind)) in file_classes.into_iter().enumerate() {
                let me = (file_id as FileId, class_idx as u32);
                for _ in 0..kind.module_bases {
                    direct.push(me);
                }
                for _ in 0..kind.autograd_bases {
                    autograd.push(me);
                }
                for &parent in &bases {
                    subclasses.entry(parent).or_default().push(me);
                }
                file_bases.push(bases);
            }
            class_bases.push(file_bases);
        }
        self.class_bases = class_bases;
        let mut queue: VecDeque<ClassRef> = direct.into();
        while let Some(class) = queue.pop_front() {
            if self.module_classes.insert(class) {
                queue.extend(subclasses.get(&class).into_iter().flatten().copied());
            }
        }
        let mut queue: VecDeque<ClassRef> = autograd.into();
        while let Some(class) = queue.pop_front() {
            if self.autograd_functions.insert(class) {
                queue.extend(subclasses.get(&class).into_iter().flatten().copied());
            }
        }
        self.subclasses = subclasses;
    }

    /// The project bases of each class of `file_id`, and how many of its bases are torch
    /// Module / autograd Function bases.
    fn resolve_file_bases(&self, file_id: FileId) -> Vec<(Vec<ClassRef>, BaseKind)> {
        let file = &self.files[file_id as usize];
        (0..file.classes.len())
            .map(|class_idx| {
                let me = (file_id, class_idx as u32);
                let mut kind = BaseKind::default();
                for base in &file.classes[class_idx].bases {
                    let external = match base {
                        Sym::Dotted(dotted) => Some(std::borrow::Cow::Borrowed(dotted.as_str())),
                        _ => self
                            .external_base(base, file_id)
                            .map(std::borrow::Cow::Owned),
                    };
                    if let Some(dotted) = external {
                        if TORCH.is_module_base(&dotted) {
                            kind.module_bases += 1;
                        } else if TORCH.is_autograd_function_base(&dotted) {
                            kind.autograd_bases += 1;
                        } else if self
                            .environment
                            .and_then(|env| env.class(&dotted))
                            .is_some_and(|base| base.is_module)
                        {
                            // A base of another installed distribution whose own bases reach
                            // an nn.Module (`semantic/environment.rs`).
                            kind.module_bases += 1;
                        }
                    }
                }
                (self.resolve_bases(me), kind)
            })
            .collect()
    }

    pub(super) fn find_roots(&mut self, spec: &RootSpec) {
        let mut roots: Vec<Root> = Vec::new();
        let mut seen: HashMap<FuncRef, usize> = HashMap::default();
        // A function compiled with `fullgraph=True` stays a fullgraph root only while no other
        // root form (a compile without it, `--roots`, a check case) names it too.
        let mut add =
            |func: FuncRef, reason: String, fullgraph: bool, roots: &mut Vec<Root>| match seen
                .get(&func)
            {
                Some(&index) => roots[index].fullgraph &= fullgraph,
                None => {
                    seen.insert(func, roots.len());
                    roots.push(Root {
                        func,
                        reason,
                        fullgraph,
                    });
                }
            };
        for (file_id, file) in self.files.iter().enumerate() {
            let file_id = file_id as FileId;
            for (idx, function) in file.functions.iter().enumerate() {
                if let Some(form) = function.compile_decorator {
                    let reason = match form {
                        CompileForm::DynamoOptimize => "@torch._dynamo.optimize(...)",
                        CompileForm::TorchCompile | CompileForm::ModuleMethod => "@torch.compile",
                    };
                    add(
                        (file_id, idx as FuncIdx),
                        reason.to_owned(),
                        function.compile_fullgraph,
                        &mut roots,
                    );
                }
            }
            for target in &file.compile_roots {
                let (resolved, via) = self.resolve_compile_target(&target.sym, file_id);
                for target_ref in resolved {
                    let reason = format!(
                        "{} in {}",
                        match target.form {
                            CompileForm::TorchCompile => "torch.compile(...)",
                            CompileForm::ModuleMethod => ".compile()",
                            CompileForm::DynamoOptimize => "torch._dynamo.optimize(...)(...)",
                        },
                        file.module
                    ) + via;
                    match target_ref {
                        Target::Function(func) if target.form != CompileForm::ModuleMethod => {
                            add(func, reason, target.fullgraph, &mut roots)
                        }
                        Target::Class(class) => {
                            if let Some(live) = &mut self.live_classes {
                                live.insert(class);
                            }
                            if let Some(forward) = self.module_forward(class) {
                                add(forward, reason.clone(), target.fullgraph, &mut roots);
                            }
                            if let Some(call) = self.call_override(class) {
                                add(call, reason, target.fullgraph, &mut roots);
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        // `torch.cond(pred, true_fn, false_fn, ops)` traces its branches with Dynamo even when
        // called eagerly, and as one graph each: a break there raises instead (measured on torch
        // 2.2-2.11; tests/python/test_cond_branch_proofs.py), like under `fullgraph=True`. A branch
        // a compiled function's cond reaches is reached through that call too (not fullgraph-only).
        // Each branch with the row of a cond call passing it: `Project::cond_branches`.
        let mut cond_branches: HashMap<FuncRef, (FileId, u32)> = HashMap::default();
        for (file_id, file) in self.files.iter().enumerate() {
            let file_id = file_id as FileId;
            for site in &file.cond_branch_sites {
                for branch in self.call_targets(&site.callee, file_id) {
                    cond_branches
                        .entry(branch)
                        .or_insert((file_id, site.location.row));
                    add(
                        branch,
                        format!(
                            "torch.cond branch in {} (Dynamo traces it, eagerly too)",
                            file.module
                        ),
                        true,
                        &mut roots,
                    );
                }
            }
        }
        self.cond_branches = cond_branches;
        // `torch.compile(x)` where the type flow knows what `x` holds (a model a factory built,
        // `self.f = torch.compile(self.g)`).
        for root in &self.flow.roots {
            let file = &self.files[root.file as usize];
            let form = if root.module_method {
                ".compile()"
            } else {
                "torch.compile(...)"
            };
            add(
                root.func,
                format!("{form} in {} (via type flow)", file.module),
                root.fullgraph,
                &mut roots,
            );
        }
        let imported_private = if spec.patterns.is_empty() {
            HashSet::default()
        } else {
            self.private_packages_imported()
        };
        let mut left_out: Vec<(String, String)> = Vec::new();
        for pattern in &spec.patterns {
            for (file_id, file) in self.files.iter().enumerate() {
                let file_id = file_id as FileId;
                let module_matches = pattern.matches(&file.module);
                // A private module (`pkg._legacy`, `pkg._export.attention`) that nothing outside
                // its private package imports is code the package itself never runs: a wildcard
                // pattern that does not spell its private segment does not root its classes.
                let unused_private = private_package(&file.module).filter(|package| {
                    !imported_private.contains(*package)
                        && !package
                            .rsplit('.')
                            .next()
                            .is_some_and(|segment| pattern.text.contains(segment))
                });
                let mut skipped = false;
                for (class_idx, class) in file.classes.iter().enumerate() {
                    let class_ref = (file_id, class_idx as u32);
                    if !self.module_classes.contains(&class_ref) {
                        continue;
                    }
                    let matched = (module_matches && !class.qualname.contains('.'))
                        || pattern.matches(&format!(
                            "{}.{}",
                            file.module,
                            display_qualname(&class.qualname)
                        ));
                    if matched && unused_private.is_some() {
                        skipped = true;
                        continue;
                    }
                    if matched && let Some(live) = &mut self.live_classes {
                        live.insert(class_ref);
                    }
                    if matched && let Some(call) = self.call_override(class_ref) {
                        add(call, format!("--roots {}", pattern.text), false, &mut roots);
                    }
                    if matched {
                        for hook in self.torch_hook_overrides(class_ref) {
                            add(hook, format!("--roots {}", pattern.text), false, &mut roots);
                        }
                    }
                    if matched && let Some(forward) = self.module_forward(class_ref) {
                        add(
                            forward,
                            format!("--roots {}", pattern.text),
                            false,
                            &mut roots,
                        );
                    } else if matched && self.runs_children_in_order(class_ref, 0) {
                        // No project `forward`: calling it runs `nn.Sequential.forward`, which
                        // calls each child its `__init__` built (`super().__init__(*layers)`).
                        let init = with_member_name(&class.qualname, "__init__", |qual| {
                            file.function_by_name.get(qual).copied()
                        });
                        for (child, forward) in init
                            .map(|idx| self.modules_built_by((file_id, idx), 1))
                            .unwrap_or_default()
                        {
                            if let Some(live) = &mut self.live_classes {
                                live.insert(child);
                            }
                            add(
                                forward,
                                format!("--roots {} (a child of a Sequential)", pattern.text),
                                false,
                                &mut roots,
                            );
                        }
                    }
                }
                if skipped {
                    left_out.push((file.module.clone(), pattern.text.clone()));
                }
                if !pattern.names_functions() {
                    continue;
                }
                for (qualname, &idx) in &file.function_by_name {
                    if pattern.matches(&format!("{}.{}", file.module, display_qualname(qualname))) {
                        add(
                            (file_id, idx),
                            format!("--roots {}", pattern.text),
                            false,
                            &mut roots,
                        );
                    }
                }
                if let Some((class, method)) = self.inherited_method_root(file_id, pattern) {
                    // `self` is an instance of the named class: its overrides of what the
                    // inherited method calls on `self` run.
                    if let Some(live) = &mut self.live_classes {
                        live.insert(class);
                    }
                    add(
                        method,
                        format!("--roots {}", pattern.text),
                        false,
                        &mut roots,
                    );
                }
            }
        }
        for (path, factory) in &spec.case_factories {
            for (file_id, file) in self.files.iter().enumerate() {
                if &file.path != path {
                    continue;
                }
                let file_id = file_id as FileId;
                for (idx, function) in file.functions.iter().enumerate() {
                    let wanted = function.class.is_none()
                        && match factory {
                            Some(name) => &function.name == name,
                            None => function.name.starts_with("case_"),
                        };
                    if !wanted {
                        continue;
                    }
                    let reason = format!("check case {}::{}", file.module, function.name);
                    for (class, forward) in self.modules_built_by((file_id, idx as FuncIdx), 3) {
                        if let Some(live) = &mut self.live_classes {
                            live.insert(class);
                        }
                        if let Some(call) = self.call_override(class) {
                            add(call, reason.clone(), false, &mut roots);
                        }
                        add(forward, reason.clone(), false, &mut roots);
                    }
                }
            }
        }
        // No roots configured — or only check cases, and they build no nn.Module of the scanned
        // files (a template case, models from another package) while nothing else is compiled:
        // every nn.Module's forward may be compiled. Rooting nothing would pass every file silently.
        let cases_build_nothing = spec.patterns.is_empty() && roots.is_empty();
        if spec.is_empty() || cases_build_nothing {
            for (file_id, file) in self.files.iter().enumerate() {
                let file_id = file_id as FileId;
                for (idx, function) in file.functions.iter().enumerate() {
                    if function.name == "forward"
                        && let Some(class) = &function.class
                        && let Some(&class_idx) = file.class_by_name.get(class)
                        && self.module_classes.contains(&(file_id, class_idx))
                        && self.module_forward((file_id, class_idx))
                            == Some((file_id, idx as FuncIdx))
                    {
                        add(
                            (file_id, idx as FuncIdx),
                            if spec.is_empty() {
                                "nn.Module forward (no roots configured)".to_owned()
                            } else {
                                "nn.Module forward (the check cases build no nn.Module of the scanned files)"
                                    .to_owned()
                            },
                            false,
                            &mut roots,
                        );
                    }
                }
            }
            // A Module class without a project `forward` whose overrides torch's `forward` calls.
            let mut hooked: Vec<ClassRef> = self.module_classes.iter().copied().collect();
            hooked.sort_unstable();
            for class in hooked {
                for hook in self.torch_hook_overrides(class) {
                    add(
                        hook,
                        "nn.Module hook torch's forward calls (no project forward)".to_owned(),
                        false,
                        &mut roots,
                    );
                }
            }
        }
        self.roots = roots;
        left_out.sort();
        left_out.dedup();
        self.roots_left_out = left_out;
    }

    /// The private packages (see [`private_package`]) that some module outside them imports
    /// (`from ._impl import X` in the package's `__init__`, a lazy import inside a function).
    fn private_packages_imported(&self) -> HashSet<String> {
        let mut used = HashSet::default();
        for file in self.files.iter() {
            for name in &file.imported_names {
                if let Some(package) = private_package(name)
                    && !(file.module == package
                        || file
                            .module
                            .strip_prefix(package)
                            .is_some_and(|rest| rest.starts_with('.')))
                {
                    used.insert(package.to_owned());
                }
            }
        }
        used
    }

    /// The functions defined inside `func` that it references (`def wrapper(...)` ... `return
    /// wrapper`): what a decorator hands back in place of the function it decorates.
    pub(super) fn nested_functions_referenced(&self, func: FuncRef) -> Vec<FuncRef> {
        let file = &self.files[func.0 as usize];
        let outer = &file.functions[func.1 as usize];
        let mut found = Vec::new();
        for call in &outer.calls {
            for target in self.resolve_sym(&call.sym, func.0) {
                if let Target::Function(inner) = target
                    && inner.0 == func.0
                    && inner != func
                {
                    let line = file.functions[inner.1 as usize].line;
                    if outer.line < line && line <= outer.end_line && !found.contains(&inner) {
                        found.push(inner);
                    }
                }
            }
        }
        found
    }

    /// Whether instances of `class` run `torch.nn.Sequential.forward` (no project `forward` on the
    /// way up to a `Sequential` base): it calls every child module in order.
    pub(super) fn runs_children_in_order(&self, class: ClassRef, depth: u32) -> bool {
        if depth > 16 || self.lookup_method(class, "forward", 0).is_some() {
            return false;
        }
        let file = &self.files[class.0 as usize];
        let direct = file.classes[class.1 as usize].bases.iter().any(|base| {
            let external = match base {
                Sym::Dotted(dotted) => Some(dotted.clone()),
                _ => self.external_base(base, class.0),
            };
            external.is_some_and(|dotted| {
                matches!(
                    dotted.as_str(),
                    "torch.nn.Sequential" | "torch.nn.modules.container.Sequential"
                )
            })
        });
        direct
            || self
                .project_bases(class)
                .into_iter()
                .any(|base| self.runs_children_in_order(base, depth + 1))
    }

    /// The `forward`s of the nn.Modules a factory instantiates, itself or through the project
    /// functions it calls, up to `max_depth` calls deep (`build_model("nano")` → `Detector(...)`).
    pub(super) fn modules_built_by(
        &self,
        factory: FuncRef,
        max_depth: u32,
    ) -> Vec<(ClassRef, FuncRef)> {
        let mut out = Vec::new();
        let mut queue: VecDeque<(FuncRef, u32)> = VecDeque::from([(factory, 0)]);
        let mut visited: HashSet<FuncRef> = HashSet::default();
        while let Some((func, depth)) = queue.pop_front() {
            if !visited.insert(func) {
                continue;
            }
            let info = &self.files[func.0 as usize].functions[func.1 as usize];
            for call in &info.calls {
                for target in self.resolve_sym(&call.sym, func.0) {
                    match target {
                        Target::Class(class) if self.module_classes.contains(&class) => {
                            if let Some(forward) = self.module_forward(class) {
                                out.push((class, forward));
                            }
                            // No project `forward`: torch's calls the project's overrides.
                            for hook in self.torch_hook_overrides(class) {
                                out.push((class, hook));
                            }
                        }
                        Target::Function(callee) if depth < max_depth => {
                            queue.push_back((callee, depth + 1))
                        }
                        _ => {}
                    }
                }
            }
        }
        out
    }

    /// The `forward`s of the nn.Modules `func` itself instantiates (memoized in `cache`: helpers
    /// such as `post_init()` are called from thousands of `__init__`s), and the project
    /// `__call__` of a class that overrides it: calling the submodule runs the override, whose
    /// own work (before calling `self.forward`, or after `super().__call__`) Dynamo traces too.
    pub(super) fn modules_built_directly(
        &self,
        func: FuncRef,
        cache: &mut HashMap<FuncRef, Vec<FuncRef>>,
    ) -> Vec<FuncRef> {
        if let Some(found) = cache.get(&func) {
            return found.clone();
        }
        let found: Vec<FuncRef> = self
            .modules_built_by(func, 0)
            .into_iter()
            .flat_map(|(class, forward)| std::iter::once(forward).chain(self.call_override(class)))
            .collect();
        cache.insert(func, found.clone());
        found
    }

    /// `pkg.mod.Cls.method` naming a method `Cls` inherits from a project base (the entry point
    /// compiled on an instance of `Cls`, defined on a base): that base's method.
    pub(crate) fn inherited_method_root(
        &self,
        file_id: FileId,
        pattern: &RootPattern,
    ) -> Option<(ClassRef, FuncRef)> {
        let file = &self.files[file_id as usize];
        let rest = pattern
            .text
            .strip_prefix(file.module.as_str())?
            .strip_prefix('.')?;
        let (class, method) = rest.rsplit_once('.')?;
        if !pattern.names_functions() || file.function_by_name.contains_key(rest) {
            return None;
        }
        let class = (file_id, *file.class_by_name.get(class)?);
        Some((class, self.lookup_method(class, method, 0)?))
    }

    /// A project `__call__` of a Module class (its own or a project base's): calling an instance
    /// runs it instead of `nn.Module.__call__`, and `torch.compile(module)` compiles
    /// `module.__call__` — the override's own work is traced, and it runs `forward` itself.
    pub(super) fn call_override(&self, class: ClassRef) -> Option<FuncRef> {
        self.lookup_method(class, "__call__", 0)
    }

    /// What a compile target names: `self.model` typed by `self.model = Cls(...)` in the class,
    /// else the symbol itself. The second value says how it was resolved, for `--show-roots`.
    pub(super) fn resolve_compile_target(
        &self,
        sym: &Sym,
        file: FileId,
    ) -> (Vec<Target>, &'static str) {
        if let Sym::SelfAttr { class, attr } = sym
            && let Some(typed) = self.files[file as usize]
                .self_attr_types
                .get(class.as_str())
                .and_then(|attrs| attrs.get(attr.as_str()))
        {
            return (self.resolve_sym(typed, file), " (via self attribute)");
        }
        (self.resolve_sym(sym, file), "")
    }

    /// Every function reachable from `roots` over the call graph (`@torch.compiler.disable`
    /// stops it; `disable(recursive=False)` skips only its own frame). With roots, a traced
    /// method of an nn.Module also reaches the `forward` of every Module its `__init__` builds
    /// (`self.layers = nn.ModuleList([Block() ...])`, directly or one call deep): calling a
    /// submodule runs its forward.
    pub(super) fn closure(
        &self,
        roots: impl Iterator<Item = FuncRef>,
        cache: &mut CalleeCache<'a>,
        reached_by: Option<&mut HashMap<FuncRef, ReachedBy>>,
    ) -> HashSet<FuncRef> {
        self.closure_at(roots, cache, reached_by, false)
    }

    /// The closure; `at_defaults`: constructor options nothing sets keep their defaults
    /// (`semantic/options.rs`), so calls behind a guard on one of them may not be followed.
    pub(super) fn closure_at(
        &self,
        roots: impl Iterator<Item = FuncRef>,
        cache: &mut CalleeCache<'a>,
        mut reached_by: Option<&mut HashMap<FuncRef, ReachedBy>>,
        at_defaults: bool,
    ) -> HashSet<FuncRef> {
        let mut in_region = HashSet::default();
        let mut queue: VecDeque<FuncRef> = roots.collect();
        // Records the first caller of each function (breadth first: a shortest chain).
        let mut note = |callee: FuncRef, caller: FuncRef, row: u32, by_name: bool| {
            if let Some(map) = reached_by.as_deref_mut() {
                map.entry(callee).or_insert(ReachedBy {
                    caller,
                    row,
                    by_name,
                });
            }
        };
        let mut visited: HashSet<FuncRef> = HashSet::default();
        let mut expanded: HashSet<ClassRef> = HashSet::default();
        let mut built: HashMap<FuncRef, Vec<FuncRef>> = HashMap::default();
        while let Some(func) = queue.pop_front() {
            let file = &self.files[func.0 as usize];
            let info = &file.functions[func.1 as usize];
            if info.disabled || !visited.insert(func) {
                continue;
            }
            if !info.disabled_frame_only {
                in_region.insert(func);
            }
            if self.expand_submodules
                && let Some(class) = &info.class
                && let Some(&class_idx) = file.class_by_name.get(class)
                && self.module_classes.contains(&(func.0, class_idx))
            {
                // Submodules are built while constructing the model: in `__init__` and what it
                // calls (`self._make_layer(...)`), not in `init_criterion()` called from `loss()`.
                // `self` may be an instance of a live subclass that inherits this method (a base
                // class's `forward` iterating `self.blocks` that the subclass's `__init__` fills):
                // its `__init__` builds the submodules too.
                for owner in self.inheritors(func, (func.0, class_idx)) {
                    if !expanded.insert(owner) {
                        continue;
                    }
                    let owner_file = &self.files[owner.0 as usize];
                    let owner_class = &owner_file.classes[owner.1 as usize].qualname;
                    let Some(&init) = owner_file
                        .function_by_name
                        .get(&format!("{owner_class}.__init__"))
                    else {
                        continue;
                    };
                    let init = (owner.0, init);
                    let mut forwards = self.modules_built_directly(init, &mut built);
                    for call in &self.files[init.0 as usize].functions[init.1 as usize].calls {
                        for target in self.resolve_sym(&call.sym, init.0) {
                            if let Target::Function(callee) = target {
                                forwards.extend(self.modules_built_directly(callee, &mut built));
                            }
                        }
                    }
                    for forward in forwards {
                        note(forward, func, 0, false);
                        queue.push_back(forward);
                    }
                }
            }
            // `@deco def f`: the name `f` holds what `deco(f)` returned, so calling it runs the
            // wrapper a project decorator defines inside itself (which calls the original `f`).
            for decorator in &info.decorators {
                for target in self.resolve_sym(decorator, func.0) {
                    if let Target::Function(deco) = target {
                        for wrapper in self.nested_functions_referenced(deco) {
                            note(wrapper, func, info.line, false);
                            queue.push_back(wrapper);
                        }
                    }
                }
            }
            // `@Wrap def f`: the name `f` holds a `Wrap` instance, so calling it runs
            // `Wrap.__call__` (which calls the original `f`).
            for decorator in &info.bare_decorators {
                for target in self.resolve_sym(decorator, func.0) {
                    if let Target::Class(class) = target
                        && let Some(call) = self.lookup_method(class, "__call__", 0)
                    {
                        note(call, func, info.line, false);
                        queue.push_back(call);
                    }
                }
            }
            for call in &info.calls {
                // `self.config.hidden_size`: a read that runs no getter (most) costs no more.
                if self.reads_no_property(&call.sym) {
                    continue;
                }
                // `if not is_compiling(): self.debug(x)`, `if isinstance(x, dict): return
                // self.loss(x)`: a call Dynamo never traces does not compile its callee.
                if !call.path.is_empty()
                    && self.eager_only_with(func.0, func.1, call.path.iter(), at_defaults)
                {
                    continue;
                }
                // A Module's `super().__call__()` runs the forwards of the live classes, which
                // grow between rounds: resolved each time (rare sites), never cached.
                let fresh;
                let callees: &Vec<FuncRef> = if matches!(&call.sym,
                    Sym::SuperAttr { attr, .. } if attr == "__call__")
                {
                    fresh = self.call_targets(&call.sym, func.0);
                    &fresh
                } else {
                    cache
                        .entry((func.0, &call.sym))
                        .or_insert_with(|| self.call_targets(&call.sym, func.0))
                };
                for &callee in callees.iter() {
                    note(callee, func, call.row, false);
                    queue.push_back(callee);
                }
            }
            // What the type flow adds: callees of objects built elsewhere.
            if let Some(edges) = self.flow.edges.get(&func) {
                let calls = &file.flow.functions[func.1 as usize].calls;
                for edge in edges {
                    let call = &calls[edge.call as usize];
                    if !call.path.is_empty()
                        && self.eager_only_with(func.0, func.1, call.path.iter(), at_defaults)
                    {
                        continue;
                    }
                    note(edge.callee, func, call.row, edge.by_name);
                    queue.push_back(edge.callee);
                }
            }
        }
        in_region
    }
}

/// The dotted prefix of `module` through its first private segment (`_legacy`, not a dunder):
/// `pkg.mod._legacy.x` → `pkg.mod._legacy`. PEP 8: a leading underscore marks a module or
/// package internal to its parent.
fn private_package(module: &str) -> Option<&str> {
    let mut end = 0;
    for segment in module.split('.') {
        end += segment.len();
        if segment.starts_with('_') && !segment.starts_with("__") {
            return Some(&module[..end]);
        }
        end += 1;
    }
    None
}
