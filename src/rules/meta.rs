//! Diagnostics about the input itself rather than about torch.compile.

use crate::rules::declare_rule;

declare_rule! {
    /// ## What it does
    /// Reports a Python syntax error. The rest of the file is still scanned where the parser
    /// could recover.
    ///
    /// ## Why is this bad?
    /// Code that does not parse cannot run, and findings around the error may be incomplete.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, x)
    ///     return x
    /// ```
    ///
    /// ## Fix
    /// Fix the syntax error.
    ///
    /// ## Torch versions
    /// All.
    pub struct SyntaxError {
        code: "E001",
        name: "syntax-error",
        family: Meta,
        scope: Anywhere,
        torch_versions: "all",
        fix_available: false,
        summary: "the file has a Python syntax error",
        hooks: {  },
    }
}

declare_rule! {
    /// ## What it does
    /// Reports a file that could not be read as Python source: permission denied, vanished while
    /// scanning, binary content (NUL bytes) or bytes that are not UTF-8.
    ///
    /// ## Why is this bad?
    /// graphbreak could not look at it, so it cannot vouch for it.
    ///
    /// ## Example
    /// A compiled extension or data file saved with a `.py` name.
    ///
    /// ## Fix
    /// Exclude the file (`exclude` in `[tool.graphbreak]`) or fix its encoding.
    ///
    /// ## Torch versions
    /// All.
    pub struct UnreadableFile {
        code: "E002",
        name: "unreadable-file",
        family: Meta,
        scope: Anywhere,
        torch_versions: "all",
        fix_available: false,
        summary: "the file could not be read as UTF-8 Python source",
        hooks: {  },
    }
}

declare_rule! {
    /// ## What it does
    /// Reports code nested so deeply that graphbreak stopped analyzing it (more than 1,500
    /// levels of expressions or blocks).
    ///
    /// ## Why is this bad?
    /// CPython itself refuses such code (its parser's nesting limits are far lower); it is usually
    /// generated or hostile. Findings inside the too-deep part are not reported.
    ///
    /// ## Example
    /// `x = ((((((...))))))` with thousands of parentheses.
    ///
    /// ## Fix
    /// Flatten the code, or exclude the generated file.
    ///
    /// ## Torch versions
    /// All.
    pub struct TooDeeplyNested {
        code: "E003",
        name: "too-deeply-nested",
        family: Meta,
        scope: Anywhere,
        torch_versions: "all",
        fix_available: false,
        summary: "code nests too deeply to analyze",
        hooks: {  },
    }
}
