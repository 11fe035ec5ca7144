//! Facts of the call edges: parameters every traced call leaves at a known value (flags at their
//! default, forwarded constants), and who instantiates a class.

use super::*;

impl<'a> Project<'a> {
    /// For each function traced calls reach, the flag parameters none of those calls passes, and
    /// the number of arguments its `*args` receives when every traced call passes the same.
    pub(super) fn flags_at_default(&self) -> CallFacts {
        // Only calls that can reach a function with flags matter: filter by the called name
        // before resolving (resolution is the costly part on large trees).
        // A constructor call (`DynamicCache(config=...)`) passes its arguments to `__init__`: the
        // class's name counts as a called name of an `__init__` with flags.
        let flagged_names: HashSet<&str> = self
            .files
            .iter()
            .flat_map(|file| file.functions.iter())
            .filter(|f| {
                !f.flag_params.is_empty()
                    || f.vararg.is_some()
                    || !f.size_checked_params.is_empty()
                    || !f.const_params.is_empty()
                    || f.tests_self_attrs
            })
            .flat_map(|f| {
                let class_name = (f.name == "__init__")
                    .then_some(f.class.as_deref())
                    .flatten()
                    .map(|class| class.rsplit('.').next().unwrap_or(class));
                std::iter::once(f.name.as_str()).chain(class_name)
            })
            .collect();
        // `self.worker(x)` / `Worker()(x)` runs the class's `__call__` (a Module's `forward`):
        // no name of the callee is in the call, so such calls are resolved when either has facts
        // (else the callee would get no edge from them, and a flag only such a call passes could
        // read as pinned from the other, named calls).
        let through_instances =
            flagged_names.contains("__call__") || flagged_names.contains("forward");
        let calls_an_instance = |sym: &Sym| match sym {
            Sym::SelfAttr { attr, .. } => !attr.contains('.'),
            Sym::Instance { method, .. } => method == "__call__",
            _ => false,
        };
        let mut passed: HashMap<FuncRef, HashSet<String>> = HashMap::default();
        // `None`: the traced calls disagree, or one spreads `*x` into it.
        let mut vararg_counts: HashMap<FuncRef, Option<u32>> = HashMap::default();
        // The keywords traced calls pass into a function's `**kwargs` (`None`: unknown).
        let mut kwargs_counts: HashMap<FuncRef, Option<HashSet<String>>> = HashMap::default();
        // The size-checked parameters every traced call so far passed a torch.Size for.
        let mut sized: HashMap<FuncRef, HashSet<String>> = HashMap::default();
        // Caller context (`context.rs`): tested parameters' constants, `self.<attr>` truths.
        let mut constants: HashMap<FuncRef, Join<String, ConstValue>> = HashMap::default();
        let mut self_truths: HashMap<FuncRef, Join<String, bool>> = HashMap::default();
        for &caller in &self.in_region {
            let info = &self.files[caller.0 as usize].functions[caller.1 as usize];
            let caller_is_root = self.root_funcs.contains(&caller);
            for call in &info.calls {
                let Some(args) = &call.args else { continue };
                let relevant = flagged_names.contains(call.sym.last_segment())
                    || (through_instances && calls_an_instance(&call.sym));
                if !relevant {
                    continue;
                }
                if !call.path.is_empty() && self.eager_only(caller.0, caller.1, call.path.iter()) {
                    continue;
                }
                // A root's own `*args` / `**kwargs` are empty: it is called with its input.
                let spread_is_empty = |spread: &Option<String>, own: &Option<String>| match spread {
                    None => true,
                    Some(name) => caller_is_root && own.as_deref() == Some(name.as_str()),
                };
                let forwards_own =
                    |spread: &Option<String>, own: &Option<String>| match (spread, own) {
                        (Some(spread), Some(own)) => spread == own,
                        _ => false,
                    };
                // Forwarding its own `*args` that every traced call leaves empty passes nothing
                // (`DFlashCache(config=c)` → `super().__init__(*args, **kwargs)`).
                let own_star_len = forwards_own(&args.star, &info.vararg)
                    .then(|| self.vararg_lens.get(&caller).copied())
                    .flatten();
                let star_empty =
                    spread_is_empty(&args.star, &info.vararg) || own_star_len == Some(0);
                let double_star_empty = spread_is_empty(&args.double_star, &info.kwarg);
                // ... and its own `**kwargs` passes the keywords the traced calls gave it.
                let own_keywords = forwards_own(&args.double_star, &info.kwarg)
                    .then(|| self.kwargs_keys.get(&caller))
                    .flatten();
                for target in self.resolve_sym(&call.sym, caller.0) {
                    let callee = match target {
                        Target::Function(callee) => callee,
                        Target::Class(class) => match self.lookup_method(class, "__init__", 0) {
                            Some(init) => init,
                            None => continue,
                        },
                        Target::PredicateAlias(..) | Target::VersionFlag(..) => continue,
                    };
                    let callee_info = &self.files[callee.0 as usize].functions[callee.1 as usize];
                    if callee_info.vararg.is_some() {
                        let spread = match &args.star {
                            None => Some(0),
                            Some(_) => own_star_len,
                        };
                        let count = spread.map(|spread| {
                            (args.positional.len() as u32 + spread)
                                .saturating_sub(callee_info.fixed_positional)
                        });
                        vararg_counts
                            .entry(callee)
                            .and_modify(|known| {
                                if *known != count {
                                    *known = None;
                                }
                            })
                            .or_insert(count);
                    }
                    if callee_info.kwarg.is_some() {
                        let keys = match &args.double_star {
                            None => Some(args.keywords.iter().map(|(k, _)| k.clone()).collect()),
                            Some(_) => own_keywords.map(|own| {
                                let mut keys: Vec<String> =
                                    args.keywords.iter().map(|(k, _)| k.clone()).collect();
                                keys.extend(own.iter().cloned());
                                keys
                            }),
                        };
                        kwargs_counts
                            .entry(callee)
                            .and_modify(|known: &mut Option<HashSet<String>>| {
                                match (known.as_mut(), &keys) {
                                    (Some(known), Some(keys)) => known.extend(keys.iter().cloned()),
                                    _ => *known = None,
                                }
                            })
                            .or_insert_with(|| keys.map(|keys| keys.into_iter().collect()));
                    }
                    if !callee_info.size_checked_params.is_empty() {
                        let passes_size: HashSet<String> = callee_info
                            .size_checked_params
                            .iter()
                            .filter(|(name, position)| {
                                position.is_some_and(|p| args.size_positions.contains(&p))
                                    || args.size_keywords.iter().any(|k| k == name)
                            })
                            .map(|(name, _)| name.clone())
                            .collect();
                        sized
                            .entry(callee)
                            .and_modify(|known| known.retain(|name| passes_size.contains(name)))
                            .or_insert(passes_size);
                    }
                    if !callee_info.const_params.is_empty() {
                        let join = constants.entry(callee).or_default();
                        for (name, position) in &callee_info.const_params {
                            let value = context::edge_value(
                                args,
                                callee_info,
                                name,
                                *position,
                                star_empty,
                                own_keywords.map_or(double_star_empty, |own| !own.contains(name)),
                                self.param_values.get(&caller),
                            );
                            join.add(name.clone(), value);
                        }
                    }
                    if callee_info.tests_self_attrs {
                        // Only a `self.m()` call of method `m` is made on the same object
                        // (`self.sub(x)` calls another module's `forward`).
                        let facts = match &call.sym {
                            Sym::SelfAttr { attr, .. } | Sym::SuperAttr { attr, .. }
                                if *attr == callee_info.name =>
                            {
                                context::self_facts(
                                    &call.path,
                                    &self.files[caller.0 as usize].guards,
                                )
                            }
                            _ => Vec::new(),
                        };
                        let first = !self_truths.contains_key(&callee);
                        self_truths
                            .entry(callee)
                            .or_default()
                            .add_all(first, &facts);
                    }
                    let flags = &callee_info.flag_params;
                    // Passing the caller's own flag that is still at its default passes nothing.
                    let passes = |value: &Option<String>| match value {
                        Some(variable) => !self
                            .flags_pinned
                            .get(&caller)
                            .is_some_and(|pinned| pinned.contains(variable)),
                        None => true,
                    };
                    // ... and so does a literal the flag's default reads the same as
                    // (`child=False`; `None` for a `None` default).
                    let none_flag = |name: &str| callee_info.none_flags.iter().any(|f| f == name);
                    // A variable counts as the constant it is known to hold: the caller's
                    // parameter every traced call gives that constant (a forwarded `copy`).
                    let caller_values = self.param_values.get(&caller);
                    let at_default =
                        |name: &str,
                         constant: Option<&Option<ConstValue>>,
                         variable: Option<&Option<String>>| {
                            let known = context::known_constant(constant, variable, caller_values);
                            match known {
                                Some(ConstValue::None) => true,
                                Some(constant) => !none_flag(name) && !constant.truthy(),
                                None => false,
                            }
                        };
                    let entry = passed.entry(callee).or_default();
                    for (name, position) in flags {
                        let by_position = position.is_some_and(|p| {
                            !star_empty
                                || (args.positional.get(p as usize).is_some_and(passes)
                                    && !at_default(
                                        name,
                                        args.positional_consts.get(p as usize),
                                        args.positional.get(p as usize),
                                    ))
                        });
                        let by_keyword = match own_keywords {
                            Some(own) => own.contains(name),
                            None => !double_star_empty,
                        } || args.keywords.iter().enumerate().any(
                            |(i, (keyword, value))| {
                                keyword == name
                                    && passes(value)
                                    && !at_default(name, args.keyword_consts.get(i), Some(value))
                            },
                        );
                        if by_position || by_keyword {
                            entry.insert(name.clone());
                        }
                    }
                }
            }
        }
        let size_params = sized
            .into_iter()
            .filter(|(callee, params)| !self.root_funcs.contains(callee) && !params.is_empty())
            .collect();
        let kwargs_keys = kwargs_counts
            .into_iter()
            .filter(|(callee, _)| !self.root_funcs.contains(callee))
            .filter_map(|(callee, keys)| Some((callee, keys?)))
            .collect();
        let vararg_lens = vararg_counts
            .into_iter()
            .filter(|(callee, _)| !self.root_funcs.contains(callee))
            .filter_map(|(callee, count)| Some((callee, count?)))
            .collect();
        let pinned = passed
            .into_iter()
            .filter(|(callee, _)| !self.root_funcs.contains(callee))
            .map(|(callee, passed)| {
                let flags = &self.files[callee.0 as usize].functions[callee.1 as usize].flag_params;
                let pinned: HashSet<String> = flags
                    .iter()
                    .map(|(name, _)| name.clone())
                    .filter(|name| !passed.contains(name))
                    .collect();
                (callee, pinned)
            })
            .filter(|(_, pinned)| !pinned.is_empty())
            .collect();
        let not_root = |callee: &FuncRef| !self.root_funcs.contains(callee);
        let param_values = constants
            .into_iter()
            .filter(|(callee, _)| not_root(callee))
            .map(|(callee, join)| (callee, join.agreed()))
            .filter(|(_, values)| !values.is_empty())
            .collect();
        let self_facts = self_truths
            .into_iter()
            .filter(|(callee, _)| not_root(callee))
            .map(|(callee, join)| (callee, join.agreed()))
            .filter(|(_, facts)| !facts.is_empty())
            .collect();
        CallFacts {
            pinned,
            vararg_lens,
            kwargs_keys,
            size_params,
            param_values,
            self_facts,
        }
    }

    /// `live` plus every project class the given functions call (instantiate).
    pub(super) fn instantiated_by(
        &self,
        functions: &HashSet<FuncRef>,
        live: &HashSet<ClassRef>,
    ) -> HashSet<ClassRef> {
        let mut grown = live.clone();
        for &(file, idx) in functions {
            // Objects the type flow sees the traced code build or call into.
            for edge in self.flow.edges.get(&(file, idx)).into_iter().flatten() {
                grown.extend(edge.receiver);
            }
            for call in &self.files[file as usize].functions[idx as usize].calls {
                for target in self.resolve_sym(&call.sym, file) {
                    if let Target::Class(class) = target {
                        grown.insert(class);
                    }
                }
            }
        }
        grown
    }
}
