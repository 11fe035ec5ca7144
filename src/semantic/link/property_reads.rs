//! Resolving property reads on collaborators (`model/property_reads.rs`): the getters a read of
//! `self.<attr>.<name>` or `<instance>.<name>` may run.
//!
//! The receiver's class is the one stored on `self.<attr>` (in the class or a project base), the
//! class of a local instance, or — where that names a project function — every class the
//! function returns an instance of. A read runs that class's getter (own or inherited) or, since
//! the instance may be of any subclass (an annotated or injected collaborator), any override in a
//! project subclass: over-approximated to every one in the tree, live or not. A
//! `functools.cached_property` getter runs through functools' `__get__`, which Dynamo 2.11 does
//! not trace (it skips the reading frame); the getter then runs as a frame of its own, which
//! Dynamo compiles only when it holds a tensor-bearing `self` — an `nn.Module`
//! (tests/python/test_collaborator_reach_proofs.py).
//!
//! Cost: resolved lazily at link, per edge: one hash lookup (`Project::property_names`: a read of
//! a name no project getter has ends there); else the receiver class's bases (depth ≤ 16) and its
//! subclasses (most classes have none).

use super::*;

/// How deep a chain of project factories (`make` returning `build()`'s class) is followed.
const MAX_FACTORY_DEPTH: u32 = 4;

/// How many attribute hops `self.a.b.c` a chain of stored collaborators is followed through, and
/// how many classes each hop may hold: chains in models are short (`self.attn.cache`), and a
/// bound keeps a pathological tree linear.
const MAX_CHAIN_HOPS: usize = 4;
const MAX_CHAIN_CLASSES: usize = 16;

impl<'a> Project<'a> {
    /// The getters `self.<stored>.<name>` (`attr` = `"stored.name"`) may run in a method of
    /// `class` (local qualified name in `file`).
    pub(super) fn collaborator_property_getters(
        &self,
        file: FileId,
        class: &str,
        attr: &str,
    ) -> Vec<FuncRef> {
        let Some((path, name)) = attr.rsplit_once('.') else {
            return Vec::new();
        };
        if !self.property_names.contains(name) {
            return Vec::new();
        }
        let Some(&idx) = self.files[file as usize].class_by_name.get(class) else {
            return Vec::new();
        };
        // `self.kernel.width`, and through collaborators' collaborators, `self.attn.cache.size`.
        let mut found = Vec::new();
        for holder in self.stored_chain_classes((file, idx), path) {
            for getter in self.property_overrides(holder, name) {
                if !found.contains(&getter) {
                    found.push(getter);
                }
            }
        }
        found
    }

    /// The classes the object `self.<path>` (`"attn"`, `"attn.cache"`) may be an instance of in a
    /// method of `class`: each hop's class is the one stored on that attribute by the class
    /// holding it (or a project base), or the classes a project factory stored there returns.
    pub(super) fn stored_chain_classes(&self, class: ClassRef, path: &str) -> Vec<ClassRef> {
        let mut holders = vec![class];
        for (hop, stored) in path.split('.').enumerate() {
            if hop >= MAX_CHAIN_HOPS || holders.is_empty() {
                return Vec::new();
            }
            let mut next = Vec::new();
            for holder in holders {
                if let Some((owner_file, typed)) = self.stored_type(holder, stored, 0) {
                    self.instance_classes(owner_file, &typed, 0, &mut next);
                }
            }
            next.truncate(MAX_CHAIN_CLASSES);
            holders = next;
        }
        holders
    }

    /// The getters `<instance>.<name>` may run, `class_sym` naming the instance's class (or a
    /// project function returning one), resolved in `file`.
    pub(super) fn instance_property_getters(
        &self,
        file: FileId,
        class_sym: &Sym,
        name: &str,
    ) -> Vec<FuncRef> {
        if !self.property_names.contains(name) {
            return Vec::new();
        }
        let mut classes = Vec::new();
        self.instance_classes(file, class_sym, 0, &mut classes);
        let mut found = Vec::new();
        for class in classes {
            for getter in self.property_overrides(class, name) {
                if !found.contains(&getter) {
                    found.push(getter);
                }
            }
        }
        found
    }

    /// The classes an instance named by `sym` may be of: the class itself, or the classes a
    /// project function returns.
    fn instance_classes(&self, file: FileId, sym: &Sym, depth: u32, out: &mut Vec<ClassRef>) {
        if depth > MAX_FACTORY_DEPTH || !matches!(sym, Sym::Dotted(_) | Sym::Local(_)) {
            return;
        }
        for target in self.resolve_sym(sym, file) {
            match target {
                Target::Class(class) => {
                    if !out.contains(&class) {
                        out.push(class);
                    }
                }
                Target::Function((f_file, f_idx)) => {
                    let info = &self.files[f_file as usize].functions[f_idx as usize];
                    for returned in &info.returned_classes {
                        self.instance_classes(f_file, returned, depth + 1, out);
                    }
                }
                Target::PredicateAlias(..) | Target::VersionFlag(..) => {}
            }
        }
    }

    /// What `self.<attr>` holds in instances of `class`: the type stored by the class or, failing
    /// that, by a project base (`self.kernel = Kernel()` in a base `__init__`).
    fn stored_type(&self, class: ClassRef, attr: &str, depth: u32) -> Option<(FileId, Sym)> {
        if depth > 16 {
            return None;
        }
        let file = &self.files[class.0 as usize];
        let qual = file.classes[class.1 as usize].qualname.as_str();
        if let Some(sym @ (Sym::Dotted(_) | Sym::Local(_))) = file
            .self_attr_types
            .get(qual)
            .and_then(|attrs| attrs.get(attr))
        {
            return Some((class.0, sym.clone()));
        }
        self.project_bases(class)
            .into_iter()
            .find_map(|base| self.stored_type(base, attr, depth + 1))
    }

    /// The property getters a read of `name` on an instance of `class` (or of any project
    /// subclass) may run.
    fn property_overrides(&self, class: ClassRef, name: &str) -> Vec<FuncRef> {
        // Only live subclasses: a base-typed collaborator (`config: BaseConfig`) would otherwise
        // run every sibling's override. Without roots nothing is known live: the class's own
        // getter only.
        let mut found = self.member_and_overrides(class, name, false);
        found.retain(|&getter| self.getter_traced_on_read(getter));
        found
    }

    /// Is `getter` a property whose read Dynamo traces: a `@property` always; a
    /// `cached_property` only on an `nn.Module` (its own frame, see the module comment).
    fn getter_traced_on_read(&self, getter: FuncRef) -> bool {
        let file = &self.files[getter.0 as usize];
        let info = &file.functions[getter.1 as usize];
        if !info.is_property {
            return false;
        }
        if !info.cached_getter {
            return true;
        }
        info.class
            .as_deref()
            .and_then(|qual| file.class_by_name.get(qual))
            .is_some_and(|&idx| self.module_classes.contains(&(getter.0, idx)))
    }
}

impl<'a> Project<'a> {
    /// A `cached_property` getter Dynamo never traces when it is read: one of a class that is no
    /// `nn.Module`.
    pub(super) fn untraced_cached_getter(&self, getter: FuncRef) -> bool {
        let info = &self.files[getter.0 as usize].functions[getter.1 as usize];
        info.cached_getter && !self.getter_traced_on_read(getter)
    }
}

impl<'a> Project<'a> {
    /// A collaborator's property read (`model/property_reads.rs`) of a name no project getter
    /// has: it resolves to nothing, so walks over call edges skip it before any other work.
    pub(crate) fn reads_no_property(&self, sym: &Sym) -> bool {
        match sym {
            Sym::FunctionRef(inner) => match &**inner {
                Sym::SelfAttr { attr, .. } => attr
                    .rsplit_once('.')
                    .is_some_and(|(_, name)| !self.property_names.contains(name)),
                Sym::Instance { method, .. } => !self.property_names.contains(method.as_str()),
                _ => false,
            },
            _ => false,
        }
    }
}
