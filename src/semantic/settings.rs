//! Settings: a module-level `NAME = <constant>` or a class-level `X = <constant>` bound once at
//! the top level of its file and read by guards in that file's functions (`model/settings.rs`).
//! Its value is its default unless code in the scanned tree changes it; users can (`mod.NAME =
//! True`, a setter function, a switch class's context manager), so a branch reached only with it
//! off its default is the option tier, like a constructor option (`semantic/options.rs`), and
//! the gate says what to set (`pkg.mod.NAME = True`).
//!
//! A setting counts as changed in the tree when its file declares `global NAME` in any function
//! (a setter, whether or not anything calls it: the setter may run at import), or any object's
//! attribute of its last name is stored anywhere (`mod.NAME = ...`, `Switch.X = ...`,
//! `cls.X = ...`, `self.X = ...`, `setattr(obj, "X", ...)`: matched by name, over-approximating
//! "changed", never under).

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
}

impl<'a> Project<'a> {
    /// `(file, NAME or Class.X)` → its value, for the settings nothing in the tree changes (one
    /// pass over every file's stored attribute names, then one over the settings).
    pub(crate) fn build_setting_table(&self) -> HashMap<(FileId, String), ConstValue> {
        let mut table = HashMap::default();
        if self.files.iter().all(|f| f.settings.values.is_empty()) {
            return table;
        }
        let mut stored: HashSet<&str> = HashSet::default();
        for file in self.files.iter() {
            let options = &file.options;
            stored.extend(options.written_anywhere.iter().map(String::as_str));
            stored.extend(options.overwritten.iter().map(|(_, attr)| attr.as_str()));
            stored.extend(options.stores.iter().map(|store| store.attr.as_str()));
            stored.extend(options.borrowed.iter().map(|store| store.attr.as_str()));
        }
        for (file_id, file) in self.files.iter().enumerate() {
            for (name, value) in &file.settings.values {
                let last = name.rsplit('.').next().unwrap_or(name);
                if file.settings.rebound.contains(name.as_str()) || stored.contains(last) {
                    continue;
                }
                table.insert((file_id as FileId, name.clone()), value.clone());
            }
        }
        table
    }
}
