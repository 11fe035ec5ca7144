//! Constructor options: which `self.<attr>` are set in `__init__` from a parameter with a literal
//! default that nothing in the scanned tree sets, and the value each then has.
//!
//! A root class (one users build with their own arguments, or one built only through `**cfg`,
//! a registry or other unseen sites) is read under its signature's defaults for the options no
//! call in the tree passes explicitly: a branch reached only when such an option differs from
//! its default is a hazard only for users who set it. Linking keeps two regions — the one
//! traced whatever the options (`Project::in_region`) and the one traced at their defaults
//! (`Project::default_region`) — and a finding in the first but not the second is *gated*: it
//! names the options it needs (`Project::gated_by`).
//!
//! An option counts as set in the tree when any call anywhere passes that parameter name by
//! keyword with a value other than the default (a non-constant value counts as set), when a
//! call of the class (or a subclass, `super().__init__`, `Base.__init__(self, ...)`,
//! `partial(Class, ...)`) passes enough positional arguments to reach it (a `*args` spread
//! reaches all), or when anything else stores the attribute (`self.<attr> = ...` again in the
//! class or a subclass, `obj.<attr> = ...` or `setattr(obj, "<attr>", ...)` anywhere). Matching
//! keywords by name only over-approximates "set", never under.

use super::Sym;
use super::context::ConstValue;
use super::link::{ClassRef, FuncRef, Project};
use super::summary::{FileId, PathStep, display_qualname};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// `self.<attr> = <param-derived>` at the top of a class's `__init__` (`model/options.rs`).
#[derive(Clone, Debug)]
pub struct OptionStore {
    /// Local qualified name of the class.
    pub class: String,
    pub attr: String,
    pub param: String,
    /// Position among the positional parameters after `self` (`None`: keyword-only).
    pub position: Option<u32>,
    pub default: ConstValue,
    /// The attribute's value when the parameter keeps its default.
    pub value: ConstValue,
    /// The value replaces a `None` or falsy default (`p or False`): a gated branch needs the
    /// attribute's value changed, not the default's.
    pub normalized: bool,
}

/// `self.<attr> = self.<sub>.<inner>` (or `= net.<inner>`) at the top of `__init__`, `from` the
/// project class of the submodule (`model/options.rs`).
#[derive(Clone, Debug)]
pub struct BorrowedStore {
    /// Local qualified name of the class that stores it.
    pub class: String,
    pub attr: String,
    pub from: Sym,
    pub from_attr: String,
}

/// What a call passes for a keyword.
#[derive(Clone, Debug, PartialEq)]
pub enum PassedValue {
    Const(ConstValue),
    /// `Inner(opt=self.opt)`: the value of the calling class's own attribute, which is that
    /// class's option value when it is an option nothing sets (decided when linking).
    FromSelf {
        class: String,
        attr: String,
    },
    /// `super().__init__(dim, use_flag)` / `Base(flag=use_flag)`: the calling function's own
    /// unchanged parameter with a literal default, under another name or by position. It
    /// passes that default unless something sets the caller's parameter (decided when linking).
    Forwarded(ForwardedParam),
    /// Anything else (a run-time value): counts as set.
    Other,
}

/// The calling function's own parameter passed on as an argument (`PassedValue::Forwarded`).
#[derive(Clone, Debug, PartialEq)]
pub struct ForwardedParam {
    /// The name calls of the calling function use: its class's last name for `__init__`, else
    /// the function's name.
    pub caller: String,
    pub param: String,
    /// Its position among the caller's positional parameters after `self`.
    pub position: Option<u32>,
    pub default: ConstValue,
}

/// What one file contributes.
#[derive(Debug, Default)]
pub struct FileOptions {
    pub stores: Vec<OptionStore>,
    /// Attributes copied from a submodule's attribute in `__init__`.
    pub borrowed: Vec<BorrowedStore>,
    /// `(class, attr)`: other stores to `self.<attr>` in the class's methods.
    pub overwritten: HashSet<(String, String)>,
    /// Attributes stored on objects other than `self` (`m.use_ema = True`, `setattr`).
    pub written_anywhere: HashSet<String>,
    /// Keyword → the distinct values calls pass for it. Keyed by name so that noting a call's
    /// keyword compares only with the values seen for that name (every call is noted).
    pub keywords: HashMap<String, Vec<PassedValue>>,
    /// Called name → the most positional arguments any call passes it; `u32::MAX` for a
    /// `*args` spread. Only the maximum is read, so one entry per name, not one per call.
    /// Trailing arguments that forward the caller's own parameter are not counted: they are in
    /// `positional_forwards`.
    pub positional: HashMap<String, u32>,
    /// `(called name, position, forwarded parameter)` for those trailing arguments.
    pub positional_forwards: Vec<(String, u32, ForwardedParam)>,
}

/// An option of a class nothing in the tree sets.
#[derive(Clone, Debug)]
pub struct OptionFact {
    pub param: String,
    pub default: ConstValue,
    pub value: ConstValue,
    /// The class whose constructor takes it (`module.Qual`).
    pub class: String,
    /// As `OptionStore::normalized`.
    pub normalized: bool,
}

impl OptionFact {
    /// The gate a finding read at this option's default needs: the option set away from it.
    pub fn gate(&self) -> GateOption {
        GateOption {
            class: self.class.clone(),
            option: self.param.clone(),
            default: python_repr(&self.default),
            needs: needs_text(if self.normalized {
                &self.value
            } else {
                &self.default
            }),
            setting: false,
        }
    }
}

/// One option a gated finding needs (`gated_by` in JSON).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateOption {
    /// `module.Class` whose constructor takes the option.
    pub class: String,
    pub option: String,
    /// The default, as Python writes it.
    pub default: String,
    /// What the finding needs instead (`True`, `not None`, `!= 'linear'`).
    pub needs: String,
    /// A module- or class-level setting (`semantic/settings.rs`), not a constructor option:
    /// `class` is then the module and `option` the name (`Switch.X` for a class's).
    pub setting: bool,
}

impl GateOption {
    /// What the user would set, as Python would say it: `Net(self_condition=True)`,
    /// `Net(prob != 0.0)`, `Net(proj is not None)`.
    pub fn text(&self) -> String {
        if self.setting {
            let name = if self.class.is_empty() {
                self.option.clone()
            } else {
                format!("{}.{}", self.class, self.option)
            };
            return match self.needs.strip_prefix("!= ") {
                Some(_) => format!("{name} {}", self.needs),
                None if self.needs == "not None" => format!("{name} is not None"),
                None => format!("{name} = {}", self.needs),
            };
        }
        let class = self.class.rsplit('.').next().unwrap_or(&self.class);
        match self.needs.strip_prefix("!= ") {
            Some(default) => format!("{class}({} != {default})", self.option),
            None if self.needs == "not None" => format!("{class}({} is not None)", self.option),
            None => format!("{class}({}={})", self.option, self.needs),
        }
    }
}

/// Options per class: `(file, class index)` → attr → fact; and the settings read at their
/// defaults (`semantic/settings.rs`), which gate findings the same way.
#[derive(Debug, Default)]
pub struct OptionTable {
    pub by_class: HashMap<ClassRef, HashMap<String, OptionFact>>,
    /// `(file, NAME or Class.X)` → the setting's value.
    pub settings: HashMap<(FileId, String), ConstValue>,
}

impl OptionTable {
    pub fn is_empty(&self) -> bool {
        self.by_class.is_empty() && self.settings.is_empty()
    }
}

/// Python's spelling of a constant.
pub fn python_repr(value: &ConstValue) -> String {
    match value {
        ConstValue::None => "None".to_owned(),
        ConstValue::Bool(true) => "True".to_owned(),
        ConstValue::Bool(false) => "False".to_owned(),
        ConstValue::Int(int) => int.to_string(),
        ConstValue::Str(text) => format!("{text:?}").replace('"', "'"),
        ConstValue::Float(bits) => format!("{:?}", f64::from_bits(*bits)),
        ConstValue::Dim => "<dim>".to_owned(),
        ConstValue::Collection { .. } => "<collection>".to_owned(),
    }
}

impl<'a> Project<'a> {
    /// The options nothing in the tree sets, once per scan (linear in the summaries per round;
    /// a round more per hop of `Inner(opt=self.opt)` forwarding a set option).
    pub(crate) fn build_option_table(&self) -> OptionTable {
        // The settings and the constructor options read different stores: built side by side
        // (linking is the part of a scan that does not spread over every worker).
        let (settings, table) = rayon::join(
            || self.build_setting_table(),
            || {
                if self.files.iter().all(|f| f.options.stores.is_empty()) {
                    return OptionTable::default();
                }
                let mut table = self.own_option_table();
                self.add_borrowed_options(&mut table);
                table
            },
        );
        OptionTable { settings, ..table }
    }

    /// `self.<attr> = self.<sub>.<inner>`: the attribute is the submodule class's option
    /// `<inner>` when nothing sets that one and nothing else stores the attribute (one pass over
    /// the borrowed stores, after the own options are known).
    fn add_borrowed_options(&self, table: &mut OptionTable) {
        let mut counts: HashMap<(ClassRef, &str), u32> = HashMap::default();
        let mut written: HashSet<&str> = HashSet::default();
        let mut blocked: HashSet<(ClassRef, &str)> = HashSet::default();
        for (file_id, file) in self.files.iter().enumerate() {
            let file_id = file_id as FileId;
            written.extend(file.options.written_anywhere.iter().map(String::as_str));
            let class_of = |name: &str| file.class_by_name.get(name).map(|&idx| (file_id, idx));
            for (class, attr) in &file.options.overwritten {
                blocked.extend(class_of(class).map(|class| (class, attr.as_str())));
            }
            for store in &file.options.stores {
                blocked.extend(class_of(&store.class).map(|class| (class, store.attr.as_str())));
            }
            for borrowed in &file.options.borrowed {
                if let Some(class) = class_of(&borrowed.class) {
                    *counts.entry((class, borrowed.attr.as_str())).or_default() += 1;
                }
            }
        }
        let mut found = Vec::new();
        for (file_id, file) in self.files.iter().enumerate() {
            let file_id = file_id as FileId;
            for borrowed in &file.options.borrowed {
                let Some(&idx) = file.class_by_name.get(&borrowed.class) else {
                    continue;
                };
                let class = (file_id, idx);
                let attr = borrowed.attr.as_str();
                if counts.get(&(class, attr)) != Some(&1)
                    || written.contains(attr)
                    || self
                        .class_and_subclasses(class)
                        .iter()
                        .any(|&member| blocked.contains(&(member, attr)))
                {
                    continue;
                }
                let Some(fact) =
                    self.submodule_option(table, &borrowed.from, file_id, &borrowed.from_attr)
                else {
                    continue;
                };
                found.push((class, attr.to_owned(), fact.clone()));
            }
        }
        for (class, attr, fact) in found {
            table.by_class.entry(class).or_default().insert(attr, fact);
        }
    }

    /// The option `attr` of the project class `class` names (from `file`), in the own options.
    fn submodule_option<'t>(
        &self,
        table: &'t OptionTable,
        class: &Sym,
        file: FileId,
        attr: &str,
    ) -> Option<&'t OptionFact> {
        let mut facts =
            self.resolve_sym(class, file)
                .into_iter()
                .filter_map(|target| match target {
                    super::link::Target::Class(class) => Some(class),
                    _ => None,
                });
        let inner = facts.next()?;
        if facts.next().is_some() {
            return None;
        }
        table.by_class.get(&inner)?.get(attr)
    }

    /// The classes' own options (`self.<attr> = <param>`).
    fn own_option_table(&self) -> OptionTable {
        let mut keywords: HashMap<&str, Vec<(FileId, &PassedValue)>> = HashMap::default();
        let mut positional = PositionalSeen::default();
        let mut written: HashSet<&str> = HashSet::default();
        let mut overwritten: HashSet<(ClassRef, &str)> = HashSet::default();
        for (file_id, file) in self.files.iter().enumerate() {
            let options = &file.options;
            for (name, values) in &options.keywords {
                keywords
                    .entry(name)
                    .or_default()
                    .extend(values.iter().map(|value| (file_id as FileId, value)));
            }
            for (callee, count) in &options.positional {
                let max = positional.counts.entry(callee).or_default();
                *max = (*max).max(*count);
            }
            for (callee, position, forwarded) in &options.positional_forwards {
                positional
                    .forwards
                    .entry(callee.as_str())
                    .or_default()
                    .push((*position, forwarded));
            }
            written.extend(options.written_anywhere.iter().map(String::as_str));
            for (class, attr) in &options.overwritten {
                if let Some(&idx) = file.class_by_name.get(class) {
                    overwritten.insert(((file_id as FileId, idx), attr));
                }
            }
        }
        // Stores per class and attribute (a second store of the same attribute is an overwrite).
        let mut stores: HashMap<(ClassRef, &str), Vec<&OptionStore>> = HashMap::default();
        for (file_id, file) in self.files.iter().enumerate() {
            for store in &file.options.stores {
                if let Some(&idx) = file.class_by_name.get(&store.class) {
                    stores
                        .entry(((file_id as FileId, idx), store.attr.as_str()))
                        .or_default()
                        .push(store);
                }
            }
        }
        // `Inner(opt=self.opt)` passes the outer option's value when that one is unset itself:
        // assume every option unset, then drop those a forward of a set option sets, until
        // nothing changes (each round only removes options; a chain of forwards per round).
        let mut assumed: HashMap<(ClassRef, &str), ConstValue> = stores
            .iter()
            .filter_map(|(&key, here)| match here.as_slice() {
                [store] => Some((key, store.value.clone())),
                _ => None,
            })
            .collect();
        for _ in 0..8 {
            let table = self.option_table_assuming(
                &stores,
                &assumed,
                &keywords,
                &positional,
                &written,
                &overwritten,
            );
            let unset: HashMap<(ClassRef, &str), ConstValue> = assumed
                .iter()
                .filter(|((class, attr), _)| {
                    table
                        .by_class
                        .get(class)
                        .is_some_and(|facts| facts.contains_key(*attr))
                })
                .map(|(key, value)| (*key, value.clone()))
                .collect();
            if unset.len() == assumed.len() {
                return table;
            }
            assumed = unset;
        }
        self.option_table_assuming(
            &stores,
            &assumed,
            &keywords,
            &positional,
            &written,
            &overwritten,
        )
    }

    /// The option table when the options in `assumed` are the unset ones.
    fn option_table_assuming(
        &self,
        stores: &HashMap<(ClassRef, &str), Vec<&OptionStore>>,
        assumed: &HashMap<(ClassRef, &str), ConstValue>,
        keywords: &HashMap<&str, Vec<(FileId, &PassedValue)>>,
        positional: &PositionalSeen,
        written: &HashSet<&str>,
        overwritten: &HashSet<(ClassRef, &str)>,
    ) -> OptionTable {
        let mut table = OptionTable::default();
        for (&(class, attr), here) in stores {
            let [store] = here.as_slice() else { continue };
            if written.contains(attr) || overwritten.contains(&(class, attr)) {
                continue;
            }
            let differs = |constant: &ConstValue| {
                *constant == ConstValue::Dim || !constant.py_eq(&store.default)
            };
            let set_by_keyword = keywords.get(store.param.as_str()).is_some_and(|values| {
                values.iter().any(|(file, value)| match value {
                    PassedValue::Const(constant) => differs(constant),
                    PassedValue::FromSelf {
                        class: outer,
                        attr: outer_attr,
                    } => {
                        let outer = self.files[*file as usize]
                            .class_by_name
                            .get(outer)
                            .and_then(|&idx| assumed.get(&((*file, idx), outer_attr.as_str())));
                        outer.is_none_or(differs)
                    }
                    PassedValue::Forwarded(forwarded) => {
                        differs(&forwarded.default)
                            || forwarded_is_set(forwarded, keywords, positional)
                    }
                    PassedValue::Other => true,
                })
            });
            if set_by_keyword {
                continue;
            }
            // The class and its subclasses: none may pass it by position or store it otherwise.
            let family = self.class_and_subclasses(class);
            let reaches = |name: &str| match store.position {
                Some(position) => positional
                    .counts
                    .get(name)
                    .is_some_and(|&count| count > position),
                None => false,
            };
            // A forwarded positional argument at the option's place passes the caller's default
            // (`super().__init__(dim, flag)` in a subclass whose own `flag=False` nothing sets).
            let forwarded_sets = |name: &str| match store.position {
                Some(position) => positional.forwards.get(name).is_some_and(|list| {
                    list.iter().any(|(at, forwarded)| {
                        *at == position
                            && (differs(&forwarded.default)
                                || forwarded_is_set(forwarded, keywords, positional))
                    })
                }),
                None => false,
            };
            let changed = family.iter().any(|&member| {
                let file = &self.files[member.0 as usize];
                let name = display_qualname(&file.classes[member.1 as usize].qualname);
                let short = name.rsplit('.').next().unwrap_or(&name);
                reaches(short)
                    || forwarded_sets(short)
                    || (member != class
                        && (overwritten.contains(&(member, attr))
                            || stores.get(&(member, attr)).is_some_and(|others| {
                                others.iter().any(|other| other.value != store.value)
                            })))
            });
            if changed {
                continue;
            }
            let file = &self.files[class.0 as usize];
            let qualname = display_qualname(&file.classes[class.1 as usize].qualname);
            let display = if file.module.is_empty() {
                qualname.into_owned()
            } else {
                format!("{}.{qualname}", file.module)
            };
            table.by_class.entry(class).or_default().insert(
                attr.to_owned(),
                OptionFact {
                    param: store.param.clone(),
                    default: store.default.clone(),
                    value: store.value.clone(),
                    class: display,
                    normalized: store.normalized,
                },
            );
        }
        table
    }

    /// A class and every project subclass of it (transitively).
    fn class_and_subclasses(&self, class: ClassRef) -> Vec<ClassRef> {
        let mut out = vec![class];
        let mut index = 0;
        while index < out.len() && out.len() < 256 {
            if let Some(children) = self.subclasses.get(&out[index]) {
                for &child in children {
                    if !out.contains(&child) {
                        out.push(child);
                    }
                }
            }
            index += 1;
        }
        out
    }

    /// The option behind `self.<attr>` read in method `func`: its own class's, else the nearest
    /// project base's.
    pub(crate) fn option_fact(&self, func: FuncRef, attr: &str) -> Option<&OptionFact> {
        if self.options.is_empty() {
            return None;
        }
        let file = &self.files[func.0 as usize];
        let class = file.functions[func.1 as usize].class.as_ref()?;
        // `self.<sub>.<inner>`: the option of the class `self.<sub>` was built from.
        if let Some((sub, inner)) = attr.split_once('.') {
            let typed = file.self_attr_types.get(class)?.get(sub)?;
            if !matches!(typed, Sym::Dotted(_) | Sym::Local(_)) {
                return None;
            }
            return self.submodule_option(&self.options, typed, func.0, inner);
        }
        let &idx = file.class_by_name.get(class)?;
        let mut queue = vec![(func.0, idx)];
        let mut seen = 0;
        while let Some(class) = queue.pop() {
            if let Some(fact) = self.options.by_class.get(&class).and_then(|m| m.get(attr)) {
                return Some(fact);
            }
            seen += 1;
            if seen > 16 {
                break;
            }
            queue.extend(self.project_bases(class).into_iter().rev());
        }
        None
    }

    /// The options a path's guards need to differ from their defaults (those decided only at
    /// the defaults, against the branch taken).
    pub(crate) fn gating_options(&self, func: FuncRef, path: &[PathStep]) -> Vec<GateOption> {
        let mut out = Vec::new();
        let summary = &self.files[func.0 as usize];
        for step in path {
            let PathStep::Guard(guard, _) = *step else {
                continue;
            };
            if !self.eager_only_with(func.0, func.1, std::iter::once(step), true)
                || self.eager_only_with(func.0, func.1, std::iter::once(step), false)
            {
                continue;
            }
            summary.guards[guard as usize]
                .cond
                .for_each_atom(&mut |atom| {
                    if let Some(attr) = atom.self_attr()
                        && let Some(fact) = self.option_fact(func, attr)
                    {
                        let option = fact.gate();
                        if !out.contains(&option) {
                            out.push(option);
                        }
                    }
                    // A parameter the caller passed a constructor option for
                    // (`link/option_args.rs`).
                    if let crate::semantic::cond::Atom::ParamTest(name, _)
                    | crate::semantic::cond::Atom::FlagParam(name) = atom
                        && let Some(passed) = self.option_param(func, name)
                    {
                        for option in &passed.origins {
                            if !out.contains(option) {
                                out.push(option.clone());
                            }
                        }
                    }
                    if let crate::semantic::cond::Atom::Setting { name, .. } = atom
                        && let Some(value) = self.options.settings.get(&(func.0, name.clone()))
                    {
                        let option = GateOption {
                            class: self.files[func.0 as usize].module.clone(),
                            option: name.clone(),
                            default: python_repr(value),
                            needs: needs_text(value),
                            setting: true,
                        };
                        if !out.contains(&option) {
                            out.push(option);
                        }
                    }
                });
        }
        out
    }

    /// The options a finding of function `func` on `path` needs, when it is traced only with
    /// some option off its default; empty when it is traced at the defaults too.
    pub fn gated_by(&self, func: FuncRef, path: &[PathStep]) -> Vec<GateOption> {
        if self.options.is_empty() || !self.in_region.contains(&func) {
            return Vec::new();
        }
        if self.default_region.contains(&func) {
            return self.gating_options(func, path);
        }
        // The function is reached only through gated calls: the first one up its chain.
        let mut current = func;
        for _ in 0..10_000 {
            let Some(by) = self.reached_by.get(&current) else {
                break;
            };
            if self.default_region.contains(&by.caller) {
                let caller = &self.files[by.caller.0 as usize].functions[by.caller.1 as usize];
                let mut out = Vec::new();
                for call in caller.calls.iter().filter(|call| call.row == by.row) {
                    for option in self.gating_options(by.caller, &call.path) {
                        if !out.contains(&option) {
                            out.push(option);
                        }
                    }
                }
                return out;
            }
            current = by.caller;
        }
        Vec::new()
    }
}

/// Forwarded positional arguments by called name: `(position, forwarded parameter)`.
type Forwards<'f> = HashMap<&'f str, Vec<(u32, &'f ForwardedParam)>>;

/// What calls pass by position, by called name: the most arguments counted, and the trailing
/// forwarded parameters (`FileOptions::positional_forwards`).
#[derive(Default)]
struct PositionalSeen<'f> {
    counts: HashMap<&'f str, u32>,
    forwards: Forwards<'f>,
}

/// Whether something in the tree may set the calling function's parameter that `forwarded`
/// passes on: a keyword of its name with another value (or a run-time one), a call of the caller
/// passing enough positional arguments to reach it, or a forward into that place of a parameter
/// that may be set itself (followed a few hops; deeper counts as set: over-approximating "set",
/// never under).
fn forwarded_is_set(
    forwarded: &ForwardedParam,
    keywords: &HashMap<&str, Vec<(FileId, &PassedValue)>>,
    positional: &PositionalSeen,
) -> bool {
    forwarded_is_set_within(forwarded, keywords, positional, 4)
}

fn forwarded_is_set_within(
    forwarded: &ForwardedParam,
    keywords: &HashMap<&str, Vec<(FileId, &PassedValue)>>,
    positional: &PositionalSeen,
    hops: u32,
) -> bool {
    let Some(hops) = hops.checked_sub(1) else {
        return true;
    };
    let sets = |other: &ForwardedParam| {
        other.default == ConstValue::Dim
            || !other.default.py_eq(&forwarded.default)
            || forwarded_is_set_within(other, keywords, positional, hops)
    };
    let by_keyword = keywords
        .get(forwarded.param.as_str())
        .is_some_and(|values| {
            values.iter().any(|(_, value)| match value {
                PassedValue::Const(constant) => {
                    *constant == ConstValue::Dim || !constant.py_eq(&forwarded.default)
                }
                // `f(opt=opt)` in the caller itself passes its own value on: not a setter of it.
                PassedValue::Forwarded(other) => other != forwarded && sets(other),
                _ => true,
            })
        });
    let Some(position) = forwarded.position else {
        return by_keyword;
    };
    by_keyword
        || positional
            .counts
            .get(forwarded.caller.as_str())
            .is_some_and(|&count| count > position)
        || positional
            .forwards
            .get(forwarded.caller.as_str())
            .is_some_and(|list| {
                list.iter()
                    .any(|(at, other)| *at == position && sets(other))
            })
}

/// What a gated branch needs of an option with this default.
pub(crate) fn needs_text(default: &ConstValue) -> String {
    match default {
        ConstValue::Bool(value) => python_repr(&ConstValue::Bool(!value)),
        ConstValue::None => "not None".to_owned(),
        other => format!("!= {}", python_repr(other)),
    }
}
