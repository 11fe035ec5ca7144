use crate::rules::declare_rule;
use crate::scan::analyze::Analyzer;
use crate::semantic::summary::Scope;
use ruff_text_size::TextRange;

declare_rule! {
    /// ## What it does
    /// Flags an availability probe — an `import` inside `try: ... except ImportError:` (or
    /// `except Exception:` / a bare `except:`) — in code Dynamo traces (forward, compiled functions
    /// and what they call). Imports that cannot fail are not flagged: `torch`, the standard library,
    /// the project's own modules and relative imports.
    ///
    /// ## Why is this bad?
    /// When the module is missing, the import fails while Dynamo traces the frame: graph break
    /// `GB0069 Import failure`, and because it happens inside a `try` block Dynamo cannot split the
    /// frame — the whole function runs eagerly (measured on torch 2.11: 0 graphs). With the module
    /// installed the probe still re-runs on every trace. A real tabular-model library went from 2
    /// graphs to 43 fragments because of one such probe for an attention kernel.
    ///
    /// ## Example
    /// ```python
    /// def forward(self, q, k, v):
    ///     try:
    ///         import flash_attn
    ///         use_flash = True
    ///     except ImportError:
    ///         use_flash = False
    /// ```
    ///
    /// ## Fix
    /// Probe once at import time and keep the answer in a module-level constant:
    /// ```python
    /// try:
    ///     import flash_attn
    ///     HAS_FLASH_ATTN = True
    /// except ImportError:
    ///     HAS_FLASH_ATTN = False
    /// ```
    ///
    /// ## Torch versions
    /// All versions with Dynamo (the GB0069 code exists from torch 2.7 on).
    pub struct ImportProbeInRegion {
        code: "BR002",
        name: "import-probe-in-region",
        family: Break,
        torch_versions: ">=2.0",
        fix_available: false,
        summary: "try/except ImportError probe inside traced code: a missing module makes Dynamo run the frame eagerly",
    }
}

pub fn check_import(analyzer: &mut Analyzer<'_>, range: TextRange, module: &str) {
    if !analyzer.in_function() || analyzer.import_probe_depth == 0 {
        return;
    }
    // torch is loaded whenever this code runs, and the project's own modules are always there:
    // importing them cannot fail.
    let root = module.split('.').next().unwrap_or(module);
    if root == "torch" || STDLIB.contains(&root) || analyzer.is_project_dotted(module) {
        return;
    }
    analyzer.report(
        &ImportProbeInRegion::META,
        range,
        format!(
            "import probe for `{module}` inside traced code: if it fails, Dynamo hits GB0069 (Import failure) and runs this whole frame eagerly; probe once at module level"
        ),
        None,
        Scope::CompiledRegion,
        true,
    );
}

/// Top-level standard-library modules (CPython 3.9–3.13): importing them cannot fail.
const STDLIB: &[&str] = &[
    "__future__",
    "abc",
    "argparse",
    "array",
    "ast",
    "asyncio",
    "atexit",
    "base64",
    "bisect",
    "builtins",
    "bz2",
    "calendar",
    "cmath",
    "codecs",
    "collections",
    "colorsys",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "csv",
    "ctypes",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "dis",
    "email",
    "enum",
    "errno",
    "faulthandler",
    "fnmatch",
    "fractions",
    "functools",
    "gc",
    "getpass",
    "gettext",
    "glob",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "marshal",
    "math",
    "mmap",
    "multiprocessing",
    "numbers",
    "operator",
    "os",
    "pathlib",
    "pickle",
    "pkgutil",
    "platform",
    "pprint",
    "queue",
    "random",
    "re",
    "reprlib",
    "secrets",
    "select",
    "shlex",
    "shutil",
    "signal",
    "socket",
    "sqlite3",
    "ssl",
    "stat",
    "statistics",
    "string",
    "struct",
    "subprocess",
    "sys",
    "sysconfig",
    "tempfile",
    "textwrap",
    "threading",
    "time",
    "timeit",
    "token",
    "tokenize",
    "traceback",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uuid",
    "warnings",
    "weakref",
    "zipfile",
    "zlib",
];
