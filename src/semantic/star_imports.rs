//! Names a file gets only from `from m import *` (honouring `m.__all__`): a model file that binds
//! `nn` only this way still derives from `nn.Module`.

use super::Sym;
use super::link::Project;
use super::summary::FileId;

impl Project<'_> {
    /// The dotted name outside the project that a class base names, following the file's own
    /// imports and its star imports (one level into project modules): `nn.Module` in a file that
    /// has `from .common import *` where `common` did `import torch.nn as nn`.
    pub(crate) fn external_base(&self, base: &Sym, file: FileId) -> Option<String> {
        let Sym::Local(text) = base else {
            return None;
        };
        let summary = &self.files[file as usize];
        if summary.class_by_name.contains_key(text) || summary.function_by_name.contains_key(text) {
            return None;
        }
        let (first, rest) = text.split_once('.').unwrap_or((text, ""));
        let join = |target: &str| {
            if rest.is_empty() {
                target.to_owned()
            } else {
                format!("{target}.{rest}")
            }
        };
        for module in &summary.flow.star_imports {
            match self.file_for_module(module, file) {
                Some(source) if source != file => {
                    let exporter = &self.files[source as usize];
                    if !exports(exporter, first) {
                        continue;
                    }
                    if let Some(target) = exporter.imports.get(first) {
                        return Some(join(target));
                    }
                }
                Some(_) => {}
                // `from torch.nn import *`: the name is the module's own.
                None => return Some(join(&format!("{module}.{first}"))),
            }
        }
        None
    }
}

/// Does `from m import *` bind `name` from this module: listed in its `__all__`, or public
/// without one.
pub(crate) fn exports(module: &super::summary::FileSummary, name: &str) -> bool {
    match &module.flow.all {
        Some(all) => all.iter().any(|n| n == name),
        None => !name.starts_with('_'),
    }
}

impl Project<'_> {
    /// What `local` (whose first segment is `first`) names when only a star import binds it.
    pub(crate) fn resolve_star_imported(
        &self,
        file: FileId,
        first: &str,
        local: &str,
        depth: u32,
    ) -> Option<super::link::Target> {
        let summary = &self.files[file as usize];
        if summary.flow.star_imports.is_empty() || depth > 6 {
            return None;
        }
        summary.flow.star_imports.iter().find_map(|module| {
            let source = self.file_for_module(module, file)?;
            if source == file || !exports(&self.files[source as usize], first) {
                return None;
            }
            self.resolve_in_file(source, local, depth + 1)
        })
    }
}
