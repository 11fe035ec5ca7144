//! Settings: a module-level `NAME = <constant>` or a class-level `X = <constant>` bound once at
//! the top level of its file and read by guards in that file's functions (`model/settings.rs`).
//! Its value is its default unless code in the scanned tree changes it; users can (`mod.NAME =
//! True`, a setter function, a switch class's context manager), so a branch reached only with it
//! off its default is the option tier, like a constructor option (`semantic/options.rs`), and
//! the gate says what to set (`pkg.mod.NAME = True`).
//!
//! A setting counts as changed in the tree when its file declares `global NAME` in any function
//! (a setter, whether or not anything calls it: the setter may run at import), or any object's
//! attribute of its last name is stored anywhere else (`mod.NAME = ...`, `Switch.X = ...` outside
//! the class, `self.X = ...` in another class, `setattr(obj, "X", ...)`: matched by name,
//! over-approximating "changed", never under). A class's own setter (a method of `Switch` storing
//! `cls.X`, `self.X` or `Switch.X`: a classmethod, `__enter__`) changes it only when something in
//! the tree calls that method or the class by name (`Switch.enable()`, `with Switch():`).

use super::context::ConstValue;
use super::link::Project;
use super::summary::FileId;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// What one file binds and rebinds.
#[derive(Debug, Default)]
pub struct FileSettings {
    /// `NAME` / `Class.X` → the constant it is bound to once at the top level.
    pub values: HashMap<String, ConstValue>,
    /// Names some function of the file declares `global`.
    pub rebound: HashSet<String>,
    /// The last names of `values` (`NAME`, `X` of `Class.X`): only stores of these are noted.
    pub last_names: HashSet<String>,
    /// `(Class.X, method)`: a store of `X` on the method's own receiver (`cls.X = ...`,
    /// `self.X = ...`) or on `Class` itself, in a method of `Class` — the class's own setter,
    /// which changes the setting only if something in the tree calls it.
    pub own_setters: Vec<(String, String)>,
    /// Last names stored in this file other than by an own setter (`mod.NAME = ...`,
    /// `Other.X = ...`, `setattr(obj, "X", ...)`).
    pub local_stores: HashSet<String>,
}

impl<'a> Project<'a> {
    /// `(file, NAME or Class.X)` → its value, for the settings nothing in the tree changes (one
    /// pass over every file's stored attribute names, then one over the settings). Cost: stored
    /// names are only looked up in the settings' last names (most are none); the pass over every
    /// call for own setters runs only when a setting that nothing else changes has one.
    pub(crate) fn build_setting_table(&self) -> HashMap<(FileId, String), ConstValue> {
        let mut table = HashMap::default();
        if self.files.iter().all(|f| f.settings.values.is_empty()) {
            return table;
        }
        let last_names: HashSet<&str> = self
            .files
            .iter()
            .flat_map(|file| file.settings.last_names.iter().map(String::as_str))
            .collect();
        // A setting's last name → the first file storing it, and whether a second file does.
        let mut stored: HashMap<&str, (FileId, bool)> = HashMap::default();
        for (file_id, file) in self.files.iter().enumerate() {
            let file_id = file_id as FileId;
            let options = &file.options;
            let attrs = options
                .written_anywhere
                .iter()
                .map(String::as_str)
                .chain(options.overwritten.iter().map(|(_, attr)| attr.as_str()))
                .chain(options.stores.iter().map(|store| store.attr.as_str()))
                .chain(options.borrowed.iter().map(|store| store.attr.as_str()));
            for attr in attrs {
                let Some(&attr) = last_names.get(attr) else {
                    continue;
                };
                stored
                    .entry(attr)
                    .and_modify(|(first, more)| *more |= *first != file_id)
                    .or_insert((file_id, false));
            }
        }
        // The settings nothing changes but, perhaps, their class's own setter.
        let mut unchanged: Vec<(FileId, &str, &ConstValue)> = Vec::new();
        for (file_id, file) in self.files.iter().enumerate() {
            let file_id = file_id as FileId;
            let settings = &file.settings;
            for (name, value) in &settings.values {
                let last = name.rsplit('.').next().unwrap_or(name);
                let elsewhere = stored
                    .get(last)
                    .is_some_and(|&(first, more)| more || first != file_id);
                if settings.rebound.contains(name.as_str())
                    || settings.local_stores.contains(last)
                    || elsewhere
                {
                    continue;
                }
                unchanged.push((file_id, name.as_str(), value));
            }
        }
        // Own setters of those settings called anywhere in the tree, by the method's or the
        // class's name.
        let candidates: HashSet<(FileId, &str)> = unchanged
            .iter()
            .map(|&(file_id, name, _)| (file_id, name))
            .collect();
        let mut setter_names: HashMap<&str, Vec<(FileId, &str)>> = HashMap::default();
        for (file_id, file) in self.files.iter().enumerate() {
            let file_id = file_id as FileId;
            for (key, method) in &file.settings.own_setters {
                if !candidates.contains(&(file_id, key.as_str())) {
                    continue;
                }
                let class = key.split('.').next().unwrap_or(key);
                for name in [method.as_str(), class] {
                    setter_names
                        .entry(name)
                        .or_default()
                        .push((file_id, key.as_str()));
                }
            }
        }
        let mut called: HashSet<(FileId, &str)> = HashSet::default();
        if !setter_names.is_empty() {
            for file in self.files.iter() {
                for function in &file.functions {
                    for call in &function.calls {
                        if let Some(keys) = setter_names.get(call.sym.last_segment()) {
                            called.extend(keys.iter().copied());
                        }
                    }
                }
            }
        }
        for (file_id, name, value) in unchanged {
            if !called.contains(&(file_id, name)) {
                table.insert((file_id, name.to_owned()), value.clone());
            }
        }
        table
    }
}
