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
    /// scanning, binary content (NUL bytes), bytes that are not UTF-8, or a `.ipynb` that is not
    /// an nbformat-4 notebook (JSON with a `cells` list).
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

declare_rule! {
    /// ## What it does
    /// Reports a code in a suppression comment that names no graphbreak rule: any code in
    /// `# graphbreak: ignore[...]`, and a code in `# noqa: ...` that looks like a graphbreak code
    /// (a rule family's letters, such as `BR01` or `SY0002`) but is none. Like ruff's RUF102.
    /// Codes of other tools (`F401`, `E501`) are left alone.
    ///
    /// ## Why is this bad?
    /// A typo in a suppression suppresses nothing and says nothing: the finding it meant to
    /// silence still fails the run, or the comment silences nothing for years.
    ///
    /// ## Example
    /// ```python
    /// n = int(x.sum())  # noqa: SY02
    /// ```
    ///
    /// Use instead:
    /// ```python
    /// n = int(x.sum())  # noqa: SY002
    /// ```
    ///
    /// ## Fix
    /// Correct the code (`graphbreak rules` lists them) or remove it. Where ruff's RUF100 deletes
    /// a `# noqa` that only graphbreak uses, write `# graphbreak: ignore[SY002]` instead: ruff
    /// does not touch it.
    ///
    /// ## Torch versions
    /// All.
    pub struct UnknownSuppressionCode {
        code: "E004",
        name: "unknown-suppression-code",
        family: Meta,
        scope: Anywhere,
        torch_versions: "all",
        fix_available: false,
        summary: "a noqa or graphbreak: ignore comment names no graphbreak rule",
        hooks: {  },
    }
}
