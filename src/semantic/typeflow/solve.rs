//! The global step of the type flow: evaluates every file's facts (`ScopeFlow`) to a fixpoint —
//! rounds over all scopes until no value set grows (set sizes bounded) — then reads off the call
//! edges each call site gets and the `torch.compile` targets.

use super::{FlowCall, Place, ScopeFlow, ValueExpr};
use crate::semantic::Sym;
use crate::semantic::link::{ClassRef, FuncRef, Project, Target};
use crate::semantic::summary::{FileId, FuncIdx};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// A value set stops growing at this size (an over-approximation stays sound for reachability
/// only up to it; the cap keeps the solve linear on large trees).
const MAX_VALUES: usize = 48;
/// Rounds of evaluation: each round over a large tree costs ~0.5 s of CPU and the sets of a
/// large tree keep growing for 20+ rounds; 4 rounds carry a value across 4 hops in file order
/// (a worklist solver would make the full fixpoint affordable).
const MAX_ROUNDS: usize = 4;
/// A method called on an unknown value falls back to the classes defining it only when so few do.
const MAX_BY_NAME: usize = 8;

/// Methods outside the project (torch's Module methods, container methods) whose result holds
/// what the receiver holds.
const RETURNS_RECEIVER: &[&str] = &[
    "to",
    "cuda",
    "cpu",
    "eval",
    "train",
    "half",
    "float",
    "double",
    "bfloat16",
    "requires_grad_",
    "copy",
    "get",
    "pop",
    "setdefault",
    "values",
    "items",
    "children",
    "modules",
    "named_children",
    "named_modules",
];

/// A call whose callee may be more than this many values is not followed.
const MAX_CALLEES: usize = 6;
/// `obj.attr = v` stores into at most this many classes' fields.
const MAX_STORE_TARGETS: usize = 2;

/// The scope id of a file's module level.
const MODULE: u32 = u32::MAX;

/// An abstract value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Value {
    /// An instance of a project class.
    Inst(ClassRef),
    /// A project class itself.
    Class(ClassRef),
    /// A project function, called with all its parameters.
    Func(FuncRef),
    /// A method bound to its instance (or class): its first parameter is already given.
    Bound(FuncRef),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Node {
    Local(FileId, u32, u32),
    Field(ClassRef, u32),
    Ret(FuncRef),
    Global(FileId, u32),
    Call(FileId, u32, u32),
}

/// A call edge the type flow found.
#[derive(Clone, Debug)]
pub struct FlowEdge {
    pub callee: FuncRef,
    /// Index of the call among its function's type-flow calls (path and row are there).
    pub call: u32,
    /// Found only by the called method's name on a value nothing else is known about.
    pub by_name: bool,
    /// The class of the instance the call runs on, or that it builds.
    pub receiver: Option<ClassRef>,
}

/// A `torch.compile` target the type flow resolved.
#[derive(Clone, Debug)]
pub struct FlowRoot {
    pub func: FuncRef,
    /// Module of the file holding the `torch.compile` call.
    pub file: FileId,
    pub module_method: bool,
    pub fullgraph: bool,
}

#[derive(Debug, Default)]
pub struct FlowSolution {
    /// Per calling function, the edges its calls get.
    pub edges: HashMap<FuncRef, Vec<FlowEdge>>,
    pub roots: Vec<FlowRoot>,
    pub rounds: usize,
}

/// What a symbol resolves to, by (file, address of the symbol).
type ResolvedSyms = HashMap<(FileId, usize), std::rc::Rc<[Value]>>;
/// Method lookups by class and method name.
type MethodLookups = HashMap<ClassRef, HashMap<Box<str>, Option<FuncRef>>>;

struct Solver<'p, 'a> {
    project: &'p Project<'a>,
    names: HashMap<&'a str, u32>,
    nodes: HashMap<Node, u32>,
    values: Vec<Vec<Value>>,
    changed: bool,
    /// Per class: itself, its project ancestors and descendants (whose fields `self.x` may read).
    families: std::cell::RefCell<HashMap<ClassRef, std::rc::Rc<[ClassRef]>>>,
    /// Methods by name, for the by-name fallback.
    methods_by_name: HashMap<&'a str, Vec<FuncRef>>,
    /// Per scope, the locals some store gives a followed value.
    stored_locals: HashMap<(FileId, u32), HashSet<&'a str>>,
    /// What a symbol resolves to, per file and symbol (by address: the symbols live in the
    /// summaries for the whole solve); resolution is the costly part of an evaluation.
    resolved: std::cell::RefCell<ResolvedSyms>,
    /// Method lookups through project bases.
    methods: std::cell::RefCell<MethodLookups>,
}

/// One scope being evaluated.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    file: FileId,
    scope: u32,
    flow: &'a ScopeFlow,
    class: Option<ClassRef>,
}

pub fn solve(project: &Project<'_>) -> FlowSolution {
    let mut solver = Solver {
        project,
        names: HashMap::default(),
        nodes: HashMap::default(),
        values: Vec::new(),
        changed: false,
        families: Default::default(),
        resolved: Default::default(),
        methods: Default::default(),
        methods_by_name: HashMap::default(),
        stored_locals: HashMap::default(),
    };
    solver.index();
    let mut rounds = 0;
    loop {
        rounds += 1;
        solver.changed = false;
        solver.round();
        if !solver.changed || rounds >= MAX_ROUNDS {
            break;
        }
    }
    let mut solution = solver.read_off();
    solution.rounds = rounds;
    solution
}

impl<'p, 'a> Solver<'p, 'a> {
    fn files(&self) -> &'a [crate::semantic::summary::FileSummary] {
        self.project.files
    }

    fn index(&mut self) {
        let files = self.files();
        for (file_id, file) in files.iter().enumerate() {
            for (idx, info) in file.functions.iter().enumerate() {
                if info.class.is_some() {
                    self.methods_by_name
                        .entry(info.name.as_str())
                        .or_default()
                        .push((file_id as FileId, idx as FuncIdx));
                }
            }
            let scopes = file
                .flow
                .functions
                .iter()
                .enumerate()
                .map(|(i, s)| (i as u32, s))
                .chain(std::iter::once((MODULE, &file.flow.module)));
            for (scope_id, scope) in scopes {
                for (place, _) in &scope.stores {
                    if let Place::Name(name) = place {
                        self.stored_locals
                            .entry((file_id as FileId, scope_id))
                            .or_default()
                            .insert(name);
                    }
                }
            }
        }
    }

    fn name_id(&mut self, name: &'a str) -> u32 {
        let next = self.names.len() as u32;
        *self.names.entry(name).or_insert(next)
    }

    fn existing_name(&self, name: &str) -> Option<u32> {
        self.names.get(name).copied()
    }

    fn node(&mut self, node: Node) -> u32 {
        let next = self.values.len() as u32;
        let id = *self.nodes.entry(node).or_insert(next);
        if id == next {
            self.values.push(Vec::new());
        }
        id
    }

    fn read(&self, node: Node) -> &[Value] {
        match self.nodes.get(&node) {
            Some(&id) => &self.values[id as usize],
            None => &[],
        }
    }

    fn add(&mut self, node: Node, values: &[Value]) {
        if values.is_empty() {
            return;
        }
        let id = self.node(node) as usize;
        let set = &mut self.values[id];
        for value in values {
            if set.len() >= MAX_VALUES {
                break;
            }
            if !set.contains(value) {
                set.push(*value);
                self.changed = true;
            }
        }
    }

    fn ctxs(&self) -> Vec<Ctx<'a>> {
        let mut out = Vec::new();
        for (file_id, file) in self.files().iter().enumerate() {
            let file_id = file_id as FileId;
            for (idx, scope) in file.flow.functions.iter().enumerate() {
                if scope.stores.is_empty() && scope.calls.is_empty() && scope.returns.is_empty() {
                    continue;
                }
                let class = scope
                    .class
                    .as_deref()
                    .and_then(|qual| file.class_by_name.get(qual))
                    .map(|&c| (file_id, c));
                out.push(Ctx {
                    file: file_id,
                    scope: idx as u32,
                    flow: scope,
                    class,
                });
            }
            out.push(Ctx {
                file: file_id,
                scope: MODULE,
                flow: &file.flow.module,
                class: None,
            });
        }
        out
    }

    fn round(&mut self) {
        for ctx in self.ctxs() {
            for (place, value) in &ctx.flow.stores {
                let values = self.eval(ctx, value, 0);
                if !values.is_empty() {
                    self.store(ctx, place, &values);
                }
            }
            if ctx.scope != MODULE {
                for value in &ctx.flow.returns {
                    let values = self.eval(ctx, value, 0);
                    self.add(Node::Ret((ctx.file, ctx.scope)), &values);
                }
            }
            for (index, call) in ctx.flow.calls.iter().enumerate() {
                let results = self.apply_call(ctx, call, None);
                self.add(Node::Call(ctx.file, ctx.scope, index as u32), &results);
            }
        }
    }

    fn store(&mut self, ctx: Ctx<'a>, place: &'a Place, values: &[Value]) {
        match place {
            Place::Name(name) => {
                let name = self.name_id(name);
                let node = if ctx.scope == MODULE {
                    Node::Global(ctx.file, name)
                } else {
                    Node::Local(ctx.file, ctx.scope, name)
                };
                self.add(node, values);
            }
            Place::Field { class, attr } => {
                let Some(&class) = self.files()[ctx.file as usize].class_by_name.get(&**class)
                else {
                    return;
                };
                let attr = self.name_id(attr);
                self.add(Node::Field((ctx.file, class), attr), values);
            }
            Place::AttrOf(base, attr) => {
                let attr = self.name_id(attr);
                let bases = self.eval(ctx, base, 0);
                // `obj.attr = v` on an object the flow knows only vaguely would spread `v` to
                // every class it might be.
                if bases.len() > MAX_STORE_TARGETS {
                    return;
                }
                for value in bases {
                    if let Value::Inst(class) | Value::Class(class) = value {
                        self.add(Node::Field(class, attr), values);
                    }
                }
            }
        }
    }

    /// The node a name reads in a scope: its local, else a module-level variable.
    fn name_node(&self, ctx: Ctx<'a>, name: &str) -> Option<Node> {
        let id = self.existing_name(name)?;
        Some(if ctx.scope != MODULE && ctx.flow.binds(name) {
            Node::Local(ctx.file, ctx.scope, id)
        } else {
            Node::Global(ctx.file, id)
        })
    }

    fn eval(&self, ctx: Ctx<'a>, expr: &ValueExpr, depth: u32) -> Vec<Value> {
        if depth > 24 {
            return Vec::new();
        }
        match expr {
            ValueExpr::Opaque => Vec::new(),
            ValueExpr::Name { name, bound } => {
                let local = ctx.scope != MODULE && ctx.flow.binds(name);
                if !local && let Some(sym) = bound {
                    return self.eval_sym(sym, ctx.file);
                }
                let Some(node) = self.name_node(ctx, name) else {
                    return if local {
                        Vec::new()
                    } else {
                        self.star_imported(ctx.file, name)
                    };
                };
                let found = self.read(node);
                if found.is_empty() && !local {
                    return self.star_imported(ctx.file, name);
                }
                found.to_vec()
            }
            ValueExpr::Sym(sym) => self.eval_sym(sym, ctx.file),
            ValueExpr::SelfRef => ctx.class.map(Value::Inst).into_iter().collect(),
            ValueExpr::ClsRef => ctx.class.map(Value::Class).into_iter().collect(),
            ValueExpr::Attr(base, attr) => {
                let bases = self.eval(ctx, base, depth + 1);
                let mut out = Vec::new();
                for value in bases {
                    self.attribute(value, attr, &mut out);
                }
                out
            }
            ValueExpr::SuperAttr(attr) => {
                let Some(class) = ctx.class else {
                    return Vec::new();
                };
                self.project
                    .project_bases(class)
                    .into_iter()
                    .find_map(|base| self.method(base, attr))
                    .map(Value::Bound)
                    .into_iter()
                    .collect()
            }
            ValueExpr::Call(index) => self.read(Node::Call(ctx.file, ctx.scope, *index)).to_vec(),
            ValueExpr::Union(items) => {
                let mut out = Vec::new();
                for item in items {
                    for value in self.eval(ctx, item, depth + 1) {
                        if !out.contains(&value) {
                            out.push(value);
                        }
                    }
                }
                out
            }
        }
    }

    /// A project definition, or a module-level variable of a project module.
    fn eval_sym(&self, sym: &Sym, file: FileId) -> Vec<Value> {
        let key = (file, sym as *const Sym as usize);
        let cached = self.resolved.borrow().get(&key).cloned();
        let resolved = match cached {
            Some(found) => found,
            None => {
                let found: std::rc::Rc<[Value]> = self
                    .project
                    .resolve_sym(sym, file)
                    .into_iter()
                    .filter_map(|target| match target {
                        Target::Function(func) => Some(Value::Func(func)),
                        Target::Class(class) => Some(Value::Class(class)),
                        Target::PredicateAlias(..) | Target::VersionFlag(..) => None,
                    })
                    .collect();
                self.resolved.borrow_mut().insert(key, found.clone());
                found
            }
        };
        let mut out = resolved.to_vec();
        if out.is_empty()
            && let Sym::Dotted(dotted) = sym
            && let Some((module, name)) = dotted.rsplit_once('.')
            && let Some(module_file) = self.project.file_for_module(module, file)
            && let Some(id) = self.existing_name(name)
        {
            out = self.read(Node::Global(module_file, id)).to_vec();
        }
        out
    }

    /// `name` bound by `from m import *` (honouring `m.__all__`).
    fn star_imported(&self, file: FileId, name: &str) -> Vec<Value> {
        let flow = &self.files()[file as usize].flow;
        for module in &flow.star_imports {
            let Some(source) = self.project.file_for_module(module, file) else {
                continue;
            };
            if source == file
                || !crate::semantic::star_imports::exports(&self.files()[source as usize], name)
            {
                continue;
            }
            let found = self.eval_sym(&Sym::Dotted(format!("{module}.{name}")), file);
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    fn attribute(&self, value: Value, attr: &str, out: &mut Vec<Value>) {
        let push = |v: Value, out: &mut Vec<Value>| {
            if !out.contains(&v) {
                out.push(v);
            }
        };
        match value {
            Value::Inst(class) => {
                // A method the class defines wins over attributes stored under its name
                // elsewhere (`m.forward = ...` on an object the flow over-approximates).
                if let Some(method) = self.method(class, attr) {
                    let info = &self.files()[method.0 as usize].functions[method.1 as usize];
                    if info.is_property {
                        for v in self.read(Node::Ret(method)) {
                            push(*v, out);
                        }
                    } else {
                        push(Value::Bound(method), out);
                    }
                    return;
                }
                if let Some(attr) = self.existing_name(attr) {
                    for &member in self.family(class).iter() {
                        for v in self.read(Node::Field(member, attr)) {
                            push(*v, out);
                        }
                    }
                }
            }
            Value::Class(class) => {
                if let Some(method) = self.method(class, attr) {
                    let scope = self.scope_of(method);
                    if scope.is_some_and(|s| s.first_is_class) {
                        push(Value::Bound(method), out);
                    } else {
                        push(Value::Func(method), out);
                    }
                }
                if let Some(attr) = self.existing_name(attr) {
                    for &member in self.family(class).iter() {
                        for v in self.read(Node::Field(member, attr)) {
                            push(*v, out);
                        }
                    }
                }
            }
            Value::Func(_) | Value::Bound(_) => {}
        }
    }

    /// `lookup_method`, memoized.
    fn method(&self, class: ClassRef, name: &str) -> Option<FuncRef> {
        if let Some(&found) = self
            .methods
            .borrow()
            .get(&class)
            .and_then(|names| names.get(name))
        {
            return found;
        }
        let found = self.project.lookup_method(class, name, 0);
        self.methods
            .borrow_mut()
            .entry(class)
            .or_default()
            .insert(name.into(), found);
        found
    }

    fn scope_of(&self, func: FuncRef) -> Option<&'a ScopeFlow> {
        self.files()[func.0 as usize]
            .flow
            .functions
            .get(func.1 as usize)
    }

    /// A class with its project ancestors and descendants (memoized; bounded).
    fn family(&self, class: ClassRef) -> std::rc::Rc<[ClassRef]> {
        if let Some(found) = self.families.borrow().get(&class) {
            return found.clone();
        }
        let mut out = vec![class];
        let mut index = 0;
        while index < out.len() && out.len() < 64 {
            let current = out[index];
            index += 1;
            for base in self.project.project_bases(current) {
                if !out.contains(&base) {
                    out.push(base);
                }
            }
        }
        let mut queue = vec![class];
        while let Some(current) = queue.pop() {
            if out.len() >= 128 {
                break;
            }
            for &sub in self.project.subclasses.get(&current).into_iter().flatten() {
                if !out.contains(&sub) {
                    out.push(sub);
                    queue.push(sub);
                }
            }
        }
        let out: std::rc::Rc<[ClassRef]> = out.into();
        self.families.borrow_mut().insert(class, out.clone());
        out
    }

    /// Binds a call's arguments, returns what it evaluates to; with `edges`, also the edges.
    fn apply_call(
        &mut self,
        ctx: Ctx<'a>,
        call: &'a FlowCall,
        edges: Option<&mut Vec<(FuncRef, bool, Option<ClassRef>)>>,
    ) -> Vec<Value> {
        let mut callees = self.eval(ctx, &call.callee, 0);
        if callees.len() > MAX_CALLEES {
            // A call the flow cannot narrow (a parameter every kind of object is passed to)
            // says little about what runs: follow none of it rather than all.
            callees.clear();
        }
        let mut results: Vec<Value> = Vec::new();
        let mut targets: Vec<(FuncRef, bool, Option<ClassRef>)> = Vec::new();
        for callee in &callees {
            match *callee {
                Value::Func(func) => {
                    targets.push((func, false, None));
                    results.extend_from_slice(self.read(Node::Ret(func)));
                }
                Value::Bound(func) => {
                    targets.push((func, true, None));
                    results.extend_from_slice(self.read(Node::Ret(func)));
                }
                Value::Class(class) => {
                    results.push(Value::Inst(class));
                    if let Some(init) = self.method(class, "__init__") {
                        targets.push((init, true, Some(class)));
                    }
                }
                Value::Inst(class) => {
                    if let Some(method) = self.project.instance_method(class, "__call__") {
                        targets.push((method, true, Some(class)));
                        results.extend_from_slice(self.read(Node::Ret(method)));
                    }
                }
            }
        }
        let mut by_name = false;
        if callees.is_empty()
            && let ValueExpr::Attr(receiver, method) = &call.callee
        {
            let receivers = self.eval(ctx, receiver, 0);
            if receivers.is_empty() && call.by_name_fallback && self.unknown_object(ctx, receiver) {
                if let Some(candidates) = self.methods_by_name.get(&**method)
                    && candidates.len() <= MAX_BY_NAME
                    && !method.starts_with("__")
                {
                    by_name = true;
                    for &candidate in candidates {
                        targets.push((candidate, true, None));
                    }
                }
            } else if RETURNS_RECEIVER.contains(&&**method) {
                // `m.to(device)`, `d.values()`, `d.get(k, default)`: the receiver's values.
                results.extend(receivers);
                if matches!(&**method, "get" | "pop" | "setdefault") {
                    for arg in call.positional.iter().skip(1) {
                        results.extend(self.eval(ctx, arg, 0));
                    }
                }
            }
        }
        if !targets.is_empty() && self.passes_values(call) {
            let positional: Vec<Vec<Value>> = call
                .positional
                .iter()
                .map(|arg| self.eval(ctx, arg, 0))
                .collect();
            let keywords: Vec<(&str, Vec<Value>)> = call
                .keywords
                .iter()
                .map(|(name, arg)| (&**name, self.eval(ctx, arg, 0)))
                .collect();
            let star = call
                .star
                .as_ref()
                .map(|e| self.eval(ctx, e, 0))
                .unwrap_or_default();
            let double_star = call
                .double_star
                .as_ref()
                .map(|e| self.eval(ctx, e, 0))
                .unwrap_or_default();
            for &(target, bound, _) in &targets {
                self.bind(target, bound, &positional, &keywords, &star, &double_star);
            }
        }
        if let Some(edges) = edges {
            edges.extend(targets.into_iter().map(|(f, _, r)| (f, by_name, r)));
        }
        results.dedup();
        results
    }

    /// Does any argument hold something the flow follows (spares binding opaque arguments)?
    fn passes_values(&self, call: &FlowCall) -> bool {
        let followed = |e: &ValueExpr| !matches!(e, ValueExpr::Opaque);
        call.positional.iter().any(followed)
            || call.keywords.iter().any(|(_, e)| followed(e))
            || call.star.is_some()
            || call.double_star.is_some()
    }

    /// A receiver the by-name fallback may guess for: a local built by something the flow does
    /// not follow (not a parameter: those are usually tensors), or a call's result.
    fn unknown_object(&self, ctx: Ctx<'a>, receiver: &ValueExpr) -> bool {
        match receiver {
            ValueExpr::Call(_) => true,
            ValueExpr::Name { name, bound: None } => {
                ctx.scope != MODULE
                    && !ctx.flow.params.iter().any(|p| p == name)
                    && self
                        .stored_locals
                        .get(&(ctx.file, ctx.scope))
                        .is_some_and(|names| names.contains(&**name))
            }
            _ => false,
        }
    }

    fn bind(
        &mut self,
        target: FuncRef,
        bound: bool,
        positional: &[Vec<Value>],
        keywords: &[(&str, Vec<Value>)],
        star: &[Value],
        double_star: &[Value],
    ) {
        let Some(scope) = self.scope_of(target) else {
            return;
        };
        let offset = usize::from(bound && scope.bound_first);
        let local = |solver: &mut Self, name: &'a str| {
            let id = solver.name_id(name);
            Node::Local(target.0, target.1, id)
        };
        for (i, values) in positional.iter().enumerate() {
            if values.is_empty() {
                continue;
            }
            match scope.params.get(i + offset) {
                Some(param) => {
                    let node = local(self, param);
                    self.add(node, values);
                }
                None => {
                    if let Some(vararg) = &scope.vararg {
                        let node = local(self, vararg);
                        self.add(node, values);
                    }
                }
            }
        }
        for (name, values) in keywords {
            if values.is_empty() {
                continue;
            }
            let param = scope
                .params
                .iter()
                .skip(offset)
                .chain(scope.kwonly.iter())
                .find(|p| &***p == *name)
                .or(scope.kwarg.as_ref());
            if let Some(param) = param {
                let node = local(self, param);
                self.add(node, values);
            }
        }
        if !star.is_empty() {
            for param in scope
                .params
                .iter()
                .skip(offset + positional.len())
                .chain(scope.vararg.iter())
            {
                let node = local(self, param);
                self.add(node, star);
            }
        }
        if !double_star.is_empty() {
            for param in scope
                .params
                .iter()
                .skip(offset)
                .chain(scope.kwonly.iter())
                .chain(scope.kwarg.iter())
            {
                let node = local(self, param);
                self.add(node, double_star);
            }
        }
    }

    /// After the fixpoint: the edges of every call in a function, and the compile targets.
    fn read_off(&mut self) -> FlowSolution {
        let mut solution = FlowSolution::default();
        for ctx in self.ctxs() {
            if ctx.scope != MODULE {
                let mut found: Vec<FlowEdge> = Vec::new();
                for (index, call) in ctx.flow.calls.iter().enumerate() {
                    let mut edges = Vec::new();
                    self.apply_call(ctx, call, Some(&mut edges));
                    for (callee, by_name, receiver) in edges {
                        found.push(FlowEdge {
                            callee,
                            call: index as u32,
                            by_name,
                            receiver,
                        });
                    }
                }
                if !found.is_empty() {
                    solution.edges.insert((ctx.file, ctx.scope), found);
                }
            }
            for target in &ctx.flow.compile_targets {
                for value in self.eval(ctx, &target.value, 0) {
                    let func = match value {
                        Value::Inst(class) => self.project.module_forward(class),
                        // A method of an object (`torch.compile(self._refine)`); a plain function
                        // named directly is a root already, and one that only flows here through
                        // a parameter or a dict is too weak a guess to compile.
                        Value::Bound(func) if !target.module_method => Some(func),
                        _ => None,
                    };
                    if let Some(func) = func {
                        solution.roots.push(FlowRoot {
                            func,
                            file: ctx.file,
                            module_method: target.module_method,
                            fullgraph: target.fullgraph,
                        });
                    }
                }
            }
        }
        solution
    }
}
