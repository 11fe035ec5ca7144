//! Hostile inputs for `graphbreak scan`, run through the real binary.
//!
//! A pre-commit hook that panics, hangs or dies on a signal gets uninstalled, so every test here asserts the
//! same contract: the process exits with 0, 1 or 2 as the case calls for — never a signal, never 101 (a Rust
//! panic), never "panicked" on stderr, never past a deadline — and the relevant diagnostic or error text is
//! there. Per-file problems are diagnostics (E001 syntax-error, E002 unreadable-file, E003
//! too-deeply-nested); configuration and usage problems are exit 2 with a message naming the file and key.

mod common;

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::Duration;

const BINARY: &str = env!("CARGO_BIN_EXE_graphbreak");
/// Generous, because tests run the debug binary on a loaded 2-core machine; a hang still shows up.
const DEADLINE: Duration = Duration::from_secs(120);

/// A line the CF001 rule flags anywhere (it does not need a compiled region), used to prove a file was scanned.
const CF001_LINE: &str = "torch._dynamo.config.suppress_errors = True";

struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
    description: String,
}

impl Outcome {
    /// Parses `--output-format json` stdout into (code, filename, row) triples.
    fn diagnostics(&self) -> Vec<(String, String, u64)> {
        let value: serde_json::Value = serde_json::from_str(&self.stdout).unwrap_or_else(|err| {
            panic!(
                "{}: stdout is not JSON ({err}):\n{}",
                self.description, self.stdout
            )
        });
        let array = value
            .as_array()
            .unwrap_or_else(|| panic!("{}: JSON output is not an array", self.description));
        array
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().unwrap_or("").to_owned(),
                    d["filename"].as_str().unwrap_or("").to_owned(),
                    d["location"]["row"].as_u64().unwrap_or(0),
                )
            })
            .collect()
    }

    fn codes(&self) -> Vec<String> {
        self.diagnostics()
            .into_iter()
            .map(|(code, _, _)| code)
            .collect()
    }

    fn has_code(&self, code: &str) -> bool {
        self.codes().iter().any(|c| c == code)
    }

    /// The message of the first diagnostic with `code`, for text assertions.
    fn message_of(&self, code: &str) -> String {
        let value: serde_json::Value = serde_json::from_str(&self.stdout).unwrap();
        value
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["code"] == code)
            .and_then(|d| d["message"].as_str())
            .unwrap_or_default()
            .to_owned()
    }

    fn expect_exit(&self, allowed: &[i32]) -> &Self {
        assert!(
            allowed.contains(&self.code),
            "{}: exit code {} not in {allowed:?}\nstdout (head): {}\nstderr (head): {}",
            self.description,
            self.code,
            head(&self.stdout),
            head(&self.stderr)
        );
        self
    }
}

fn head(text: &str) -> &str {
    let mut end = text.len().min(2000);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Runs `graphbreak <args>` in `cwd` and checks the invariants every hostile input shares.
fn graphbreak(cwd: &Path, args: &[&str]) -> Outcome {
    let description = format!("graphbreak {}", args.join(" "));
    let run = common::run_bounded(Command::new(BINARY).args(args).current_dir(cwd), DEADLINE);
    if run.timed_out {
        panic!("{description}: still running after {DEADLINE:?} (hang)");
    }
    let (status, stdout, stderr, elapsed) = (run.status, run.stdout, run.stderr, run.elapsed);
    let Some(code) = status.code() else {
        panic!(
            "{description}: killed by signal {:?} (stack overflow or abort?)\nstderr: {}",
            status.signal(),
            head(&stderr)
        );
    };
    assert_ne!(
        code,
        101,
        "{description}: exit 101 = Rust panic\nstderr: {}",
        head(&stderr)
    );
    assert!(
        !stderr.contains("panicked"),
        "{description}: panicked\nstderr: {}",
        head(&stderr)
    );
    assert!(
        !stderr.contains("RUST_BACKTRACE"),
        "{description}: panic hint on stderr\nstderr: {}",
        head(&stderr)
    );
    Outcome {
        code,
        stdout,
        stderr,
        elapsed,
        description,
    }
}

/// `graphbreak scan --no-config --output-format json <paths>` in `cwd`.
fn scan_json(cwd: &Path, paths: &[&str]) -> Outcome {
    let mut args = vec!["scan", "--no-config", "--output-format", "json"];
    args.extend_from_slice(paths);
    graphbreak(cwd, &args)
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("create tempdir")
}

fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(&path, contents).unwrap();
    path
}

fn running_as_root() -> bool {
    // Without a libc crate: root can read a chmod-000 file, which is exactly what matters here.
    let dir = tempdir();
    let probe = write(dir.path(), "probe", "x");
    fs::set_permissions(&probe, fs::Permissions::from_mode(0o000)).unwrap();
    fs::read(&probe).is_ok()
}

// ---------------------------------------------------------------------------------------------------------
// Files that are not Python text

#[test]
fn binary_file_named_py_is_e002() {
    let dir = tempdir();
    let mut bytes = b"\x7fELF\x02\x01\x01\x00\x00\x00".to_vec();
    bytes.extend((0..4096u32).map(|i| (i * 31 % 256) as u8));
    write(dir.path(), "libfoo.py", &bytes);
    let out = scan_json(dir.path(), &["libfoo.py"]);
    out.expect_exit(&[1]);
    assert!(
        out.has_code("E002"),
        "binary file should be E002: {}",
        out.stdout
    );
    assert!(
        out.stdout.contains("libfoo.py"),
        "E002 should name the file: {}",
        out.stdout
    );
}

#[test]
fn non_utf8_file_is_e002_and_other_files_still_scanned() {
    let dir = tempdir();
    write(
        dir.path(),
        "latin1.py",
        b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\n\xff\xfe\n",
    );
    write(
        dir.path(),
        "good.py",
        format!("import torch\n{CF001_LINE}\n"),
    );
    let out = scan_json(dir.path(), &["."]);
    out.expect_exit(&[1]);
    let diagnostics = out.diagnostics();
    assert!(
        diagnostics
            .iter()
            .any(|(code, file, _)| code == "E002" && file.ends_with("latin1.py")),
        "non-UTF-8 file should be E002 naming it: {}",
        out.stdout
    );
    assert!(
        out.message_of("E002").to_lowercase().contains("utf-8"),
        "E002 message should say why (UTF-8): {}",
        out.message_of("E002")
    );
    assert!(
        diagnostics
            .iter()
            .any(|(code, file, _)| code == "CF001" && file.ends_with("good.py")),
        "one bad file must not stop the scan of the others: {}",
        out.stdout
    );
}

#[test]
fn empty_and_whitespace_only_files_are_clean() {
    let dir = tempdir();
    write(dir.path(), "empty.py", "");
    write(dir.path(), "blank.py", "\n\n   \n\t\n");
    write(dir.path(), "comment.py", "# noqa\n");
    write(dir.path(), "bom.py", b"\xEF\xBB\xBF");
    let out = scan_json(dir.path(), &["."]);
    out.expect_exit(&[0]);
    assert!(
        out.diagnostics().is_empty(),
        "no diagnostics expected: {}",
        out.stdout
    );
}

#[test]
fn odd_but_valid_source_is_scanned() {
    // BOM, CRLF, lone CR, form feed, tabs, non-ASCII identifiers and strings, line continuations.
    let dir = tempdir();
    let source = "\u{FEFF}import torch\r\n\x0c\r\nπ = 'ünïcødé 🐍'\r\nif π:\r\n\tx = 1 + \\\r\n\t\t2\r\n\
                  torch._dynamo.config.suppress_errors = True\r\nz = 3\ry = 4\n";
    write(dir.path(), "odd.py", source);
    let out = scan_json(dir.path(), &["odd.py"]);
    out.expect_exit(&[1]);
    let diagnostics = out.diagnostics();
    assert!(
        diagnostics
            .iter()
            .any(|(code, _, row)| code == "CF001" && *row == 7),
        "CF001 expected on row 7 (rows counted across CRLF): {}",
        out.stdout
    );
}

// ---------------------------------------------------------------------------------------------------------
// Syntax errors and nesting

#[test]
fn syntax_error_is_e001_and_rest_of_file_still_scanned() {
    let dir = tempdir();
    write(
        dir.path(),
        "broken.py",
        format!("import torch\nx = = 1\ndef f(:\n    pass\n{CF001_LINE}\n"),
    );
    let out = scan_json(dir.path(), &["broken.py"]);
    out.expect_exit(&[1]);
    let diagnostics = out.diagnostics();
    assert!(
        diagnostics
            .iter()
            .any(|(code, _, row)| code == "E001" && *row == 2),
        "E001 expected at row 2: {}",
        out.stdout
    );
    assert!(
        diagnostics
            .iter()
            .any(|(code, _, row)| code == "CF001" && *row == 5),
        "the parser recovers, so CF001 on row 5 should still be reported: {}",
        out.stdout
    );
}

#[test]
fn many_syntax_errors_do_not_explode() {
    // Every line broken in a different way; the output must stay proportional and the run short.
    let dir = tempdir();
    let fragments = [
        "def",
        "class :",
        "(((",
        "]]]",
        "x = = =",
        "lambda: yield",
        "async await",
        "'''",
        "\"\"\"",
        "f'{'",
        "@",
        "import",
        "from . import (",
        "return return",
        "\\",
        "if x\n  y",
        "\tz",
    ];
    let source: String = (0..2000)
        .map(|i| format!("{}\n", fragments[i % fragments.len()]))
        .collect();
    write(dir.path(), "garbage.py", source);
    let out = scan_json(dir.path(), &["garbage.py"]);
    out.expect_exit(&[1]);
    assert!(out.has_code("E001"), "E001 expected: {}", head(&out.stdout));
}

/// Deep nesting either parses (the parser grows its stack) or is reported as E003 / E001; never a crash.
fn assert_deep_input_survives(name: &str, source: String) {
    let dir = tempdir();
    write(dir.path(), name, source);
    let out = scan_json(dir.path(), &[name]);
    out.expect_exit(&[0, 1]);
    for code in out.codes() {
        assert!(
            code == "E003" || code == "E001",
            "{name}: only E003/E001 expected, got {code}: {}",
            head(&out.stdout)
        );
    }
    eprintln!(
        "{name}: exit {} in {:?}, codes {:?}",
        out.code,
        out.elapsed,
        out.codes()
    );
}

#[test]
fn nested_parens_50k() {
    assert_deep_input_survives(
        "parens.py",
        format!("x = {}1{}\n", "(".repeat(50_000), ")".repeat(50_000)),
    );
}

#[test]
fn nested_lists_50k() {
    assert_deep_input_survives(
        "lists.py",
        format!("x = {}1{}\n", "[".repeat(50_000), "]".repeat(50_000)),
    );
}

#[test]
fn attribute_chain_50k() {
    assert_deep_input_survives(
        "chain.py",
        format!("import torch\nx = torch{}\n", ".a".repeat(50_000)),
    );
}

#[test]
fn call_chain_50k_in_forward() {
    // Deep chains inside a compiled region exercise the semantic pass, not only the parser.
    let source = format!(
        "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x{}\n",
        ".relu()".repeat(50_000)
    );
    assert_deep_input_survives("calls.py", source);
}

#[test]
fn not_not_not_50k() {
    assert_deep_input_survives("nots.py", format!("x = {}y\n", "not ".repeat(50_000)));
}

#[test]
fn sum_of_200k_terms() {
    // A left-nested BinOp 200,000 deep: recursive visitors and even the AST's Drop can overflow the stack.
    let terms = vec!["1"; 200_000].join("+");
    assert_deep_input_survives("sum.py", format!("x = {terms}\n"));
}

#[test]
fn tensor_sum_of_200k_terms_in_forward() {
    let terms = vec!["x"; 200_000].join(" + ");
    let source = format!(
        "import torch\nclass M(torch.nn.Module):\n    def forward(self, x: torch.Tensor):\n        y = {terms}\n        return y\n"
    );
    assert_deep_input_survives("tensor_sum.py", source);
}

#[test]
fn nested_if_blocks_5000() {
    let mut source =
        String::from("import torch\nclass M(torch.nn.Module):\n def forward(self, x):\n");
    for depth in 0..5_000 {
        source.push_str(&" ".repeat(depth + 2));
        source.push_str("if x.sum() > 0:\n");
    }
    source.push_str(&" ".repeat(5_002));
    source.push_str("return x.item()\n");
    assert_deep_input_survives_or_flags("ifs.py", source);
}

/// Like `assert_deep_input_survives`, but the source also holds hazards (BR001, SY002) that may be reported
/// if the scanner handles the depth instead of reporting E003.
fn assert_deep_input_survives_or_flags(name: &str, source: String) {
    let dir = tempdir();
    write(dir.path(), name, source);
    let out = scan_json(dir.path(), &[name]);
    out.expect_exit(&[0, 1]);
    for code in out.codes() {
        assert!(
            ["E003", "E001", "BR001", "SY002"].contains(&code.as_str()),
            "{name}: unexpected {code}: {}",
            head(&out.stdout)
        );
    }
    eprintln!(
        "{name}: exit {} in {:?}, {} diagnostics",
        out.code,
        out.elapsed,
        out.codes().len()
    );
}

#[test]
fn deeply_nested_functions_and_lambdas() {
    let mut source = String::new();
    for depth in 0..2_000 {
        source.push_str(&" ".repeat(depth));
        source.push_str(&format!("def f{depth}(x):\n"));
    }
    source.push_str(&" ".repeat(2_000));
    source.push_str("return x\n");
    source.push_str(&format!("g = {}0\n", "lambda: ".repeat(20_000)));
    assert_deep_input_survives("defs.py", source);
}

// ---------------------------------------------------------------------------------------------------------
// Size

#[test]
fn twenty_megabyte_file() {
    let dir = tempdir();
    let block = "import torch\n\n\nclass Block{i}(torch.nn.Module):\n    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        \
                 y = x * 2 + 1  # arithmetic on a tensor\n        if y.shape[0] > 3:\n            y = y[:3]\n        \
                 return torch.relu(y)\n\n\ndef helper{i}(values):\n    return [v for v in values if v]\n\n\n";
    let mut source = String::with_capacity(21 << 20);
    let mut i = 0;
    while source.len() < 20 << 20 {
        source.push_str(&block.replace("{i}", &i.to_string()));
        i += 1;
    }
    source.push_str(&format!("{CF001_LINE}\n"));
    let lines = source.lines().count();
    write(dir.path(), "huge.py", &source);
    let out = scan_json(dir.path(), &["huge.py"]);
    out.expect_exit(&[1]);
    let diagnostics = out.diagnostics();
    assert!(
        diagnostics
            .iter()
            .any(|(code, _, row)| code == "CF001" && *row as usize == lines),
        "CF001 on the last row ({lines}) expected: {}",
        head(&out.stdout)
    );
    eprintln!(
        "20 MB file ({lines} lines): {:?} (debug binary)",
        out.elapsed
    );
}

#[test]
fn ten_megabyte_single_line() {
    let dir = tempdir();
    let source = format!(
        "import torch\nx = '{}'\n{CF001_LINE}\n",
        "a".repeat(10 << 20)
    );
    write(dir.path(), "long_line.py", source);
    let out = scan_json(dir.path(), &["long_line.py"]);
    out.expect_exit(&[1]);
    assert!(
        out.has_code("CF001"),
        "CF001 expected: {}",
        head(&out.stdout)
    );
}

// ---------------------------------------------------------------------------------------------------------
// The file system fighting back

#[test]
fn symlink_loop_to_parent_directory() {
    let dir = tempdir();
    write(
        dir.path(),
        "pkg/model.py",
        format!("import torch\n{CF001_LINE}\n"),
    );
    symlink("..", dir.path().join("pkg/loop")).unwrap();
    symlink(".", dir.path().join("pkg/self")).unwrap();
    symlink("does-not-exist.py", dir.path().join("pkg/dangling.py")).unwrap();
    symlink("selfref.py", dir.path().join("pkg/selfref.py")).unwrap();
    let out = scan_json(dir.path(), &["."]);
    out.expect_exit(&[1]);
    let cf001 = out
        .diagnostics()
        .into_iter()
        .filter(|(code, file, _)| code == "CF001" && file.ends_with("model.py"))
        .count();
    assert_eq!(
        cf001, 1,
        "model.py must be reported exactly once, not once per loop: {}",
        out.stdout
    );
}

#[test]
fn explicit_symlink_loop_path_is_a_diagnostic_or_clear_error() {
    let dir = tempdir();
    symlink("selfref.py", dir.path().join("selfref.py")).unwrap();
    let out = scan_json(dir.path(), &["selfref.py"]);
    out.expect_exit(&[1, 2]);
    let text = format!("{}{}", out.stdout, out.stderr);
    assert!(
        text.contains("selfref.py"),
        "the loop should be named: {text}"
    );
    if out.code == 1 {
        assert!(out.has_code("E002"), "E002 expected: {}", out.stdout);
    }
}

#[test]
fn nonexistent_path_is_named() {
    let dir = tempdir();
    let out = scan_json(dir.path(), &["no_such_dir/no_such_file.py"]);
    out.expect_exit(&[1, 2]);
    let text = format!("{}{}", out.stdout, out.stderr);
    assert!(
        text.contains("no_such_file.py"),
        "the missing path should be named: {text}"
    );
}

#[test]
fn unreadable_file() {
    let dir = tempdir();
    let locked = write(
        dir.path(),
        "locked.py",
        format!("import torch\n{CF001_LINE}\n"),
    );
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let out = scan_json(dir.path(), &["."]);
    if running_as_root() {
        // root bypasses file permissions, so chmod 000 is still readable: only "no crash" can be checked.
        eprintln!(
            "unreadable_file: running as root, chmod 000 is still readable; checking only for no crash"
        );
        out.expect_exit(&[1]);
        assert!(
            out.has_code("CF001"),
            "root can read it, so it is scanned: {}",
            out.stdout
        );
    } else {
        out.expect_exit(&[1]);
        assert!(out.has_code("E002"), "E002 expected: {}", out.stdout);
        assert!(
            out.message_of("E002").to_lowercase().contains("permission"),
            "E002 should say permission denied: {}",
            out.message_of("E002")
        );
    }
}

#[test]
fn unreadable_directory() {
    let dir = tempdir();
    write(dir.path(), "ok.py", "x = 1\n");
    write(dir.path(), "locked/inner.py", "x = 1\n");
    fs::set_permissions(dir.path().join("locked"), fs::Permissions::from_mode(0o000)).unwrap();
    let out = scan_json(dir.path(), &["."]);
    // Restore so the tempdir can be removed when not running as root.
    fs::set_permissions(dir.path().join("locked"), fs::Permissions::from_mode(0o755)).unwrap();
    out.expect_exit(&[0, 1, 2]);
    if out.code != 0 {
        let text = format!("{}{}", out.stdout, out.stderr);
        assert!(
            text.contains("locked"),
            "the unreadable directory should be named: {text}"
        );
    }
}

#[test]
fn fifo_named_py_does_not_hang() {
    let dir = tempdir();
    let fifo = dir.path().join("pipe.py");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !matches!(made, Ok(status) if status.success()) {
        eprintln!("fifo_named_py_does_not_hang: mkfifo unavailable, skipped");
        return;
    }
    write(
        dir.path(),
        "real.py",
        format!("import torch\n{CF001_LINE}\n"),
    );
    let out = scan_json(dir.path(), &["."]);
    out.expect_exit(&[1]);
    assert!(
        out.has_code("CF001"),
        "real.py is still scanned: {}",
        out.stdout
    );
    assert!(
        out.elapsed < Duration::from_secs(60),
        "a FIFO must be skipped or reported, not read"
    );
}

#[test]
fn files_deleted_while_scanning() {
    // Races a deleter against the scan; whatever the interleaving, a vanished file is at most an E002.
    let dir = tempdir();
    let files: Vec<PathBuf> = (0..3_000)
        .map(|i| {
            write(
                dir.path(),
                &format!("m{i:04}.py"),
                format!("import torch\n{CF001_LINE}\nx = {i}\n"),
            )
        })
        .collect();
    let deleter = thread::spawn(move || {
        for file in files.iter().rev().step_by(2) {
            fs::remove_file(file).ok();
        }
    });
    let out = scan_json(dir.path(), &["."]);
    deleter.join().unwrap();
    out.expect_exit(&[0, 1]);
    for code in out.codes() {
        assert!(
            code == "CF001" || code == "E002",
            "unexpected {code} while files vanish"
        );
    }
}

// ---------------------------------------------------------------------------------------------------------
// Configuration and command line

fn scan_with_pyproject(pyproject: &[u8]) -> Outcome {
    let dir = tempdir();
    write(dir.path(), "pyproject.toml", pyproject);
    write(dir.path(), "model.py", "x = 1\n");
    graphbreak(dir.path(), &["scan", "."])
}

fn assert_config_error(out: &Outcome, needles: &[&str]) {
    out.expect_exit(&[2]);
    for needle in needles {
        assert!(
            out.stderr.contains(needle),
            "stderr should mention {needle:?}: {}",
            out.stderr
        );
    }
}

#[test]
fn pyproject_select_wrong_type() {
    let out = scan_with_pyproject(b"[tool.graphbreak]\nselect = 3\n");
    assert_config_error(&out, &["pyproject.toml", "select"]);
}

#[test]
fn pyproject_unknown_key() {
    let out = scan_with_pyproject(b"[tool.graphbreak]\nfrobnicate = true\n");
    assert_config_error(&out, &["pyproject.toml", "frobnicate"]);
}

#[test]
fn pyproject_invalid_toml() {
    let out = scan_with_pyproject(b"[tool.graphbreak\nselect = [\"CR001\"\n");
    assert_config_error(&out, &["pyproject.toml"]);
}

#[test]
fn pyproject_not_utf8() {
    let out = scan_with_pyproject(b"[tool.graphbreak]\nselect = [\"\xff\xfe\"]\n");
    assert_config_error(&out, &["pyproject.toml"]);
}

#[test]
fn pyproject_unknown_code_in_select() {
    let out = scan_with_pyproject(b"[tool.graphbreak]\nselect = [\"ZZ999\"]\n");
    assert_config_error(&out, &["pyproject.toml", "ZZ999"]);
}

#[test]
fn pyproject_bad_torch_version() {
    let out = scan_with_pyproject(b"[tool.graphbreak]\ntorch-version = \"banana\"\n");
    assert_config_error(&out, &["pyproject.toml", "torch-version"]);
}

#[test]
fn pyproject_without_graphbreak_table_is_fine() {
    let out = scan_with_pyproject(b"[project]\nname = \"x\"\n[tool.ruff]\nline-length = 100\n");
    out.expect_exit(&[0]);
}

#[test]
fn missing_config_file() {
    let dir = tempdir();
    write(dir.path(), "model.py", "x = 1\n");
    let out = graphbreak(dir.path(), &["scan", "--config", "nope.toml", "."]);
    assert_config_error(&out, &["nope.toml"]);
}

#[test]
fn unknown_code_in_select_flag() {
    let dir = tempdir();
    write(dir.path(), "model.py", "x = 1\n");
    let out = graphbreak(
        dir.path(),
        &["scan", "--no-config", "--select", "ZZ999", "."],
    );
    assert_config_error(&out, &["ZZ999"]);
}

#[test]
fn bad_torch_version_flag() {
    let dir = tempdir();
    write(dir.path(), "model.py", "x = 1\n");
    let out = graphbreak(
        dir.path(),
        &["scan", "--no-config", "--torch-version", "two.x", "."],
    );
    out.expect_exit(&[2]);
    assert!(
        out.stderr.contains("two.x"),
        "the bad value should be named: {}",
        out.stderr
    );
}

#[test]
fn unknown_output_format() {
    let dir = tempdir();
    let out = graphbreak(
        dir.path(),
        &["scan", "--no-config", "--output-format", "yaml", "."],
    );
    out.expect_exit(&[2]);
}

#[test]
fn unknown_and_malformed_noqa_codes_do_not_crash() {
    let dir = tempdir();
    let source = format!(
        "import torch\n\
         {CF001_LINE}  # noqa: ZZ999\n\
         {CF001_LINE}  # noqa: CF001\n\
         {CF001_LINE}  # noqa:,,, ;; ✓ CF0019999999999999999999 \n\
         {CF001_LINE}  # NOQA:cf001\n\
         {CF001_LINE}  # noqa\n\
         {CF001_LINE}  #noqa:\n\
         x = '# noqa: CF001'; {CF001_LINE}\n"
    );
    write(dir.path(), "noqa.py", source);
    let out = scan_json(dir.path(), &["noqa.py"]);
    out.expect_exit(&[1]);
    let rows: Vec<u64> = out
        .diagnostics()
        .into_iter()
        .filter(|(code, _, _)| code == "CF001")
        .map(|(_, _, row)| row)
        .collect();
    assert!(
        rows.contains(&2),
        "an unknown noqa code must not suppress CF001 (row 2): {rows:?}"
    );
    assert!(
        !rows.contains(&3),
        "`# noqa: CF001` suppresses row 3: {rows:?}"
    );
    assert!(
        rows.contains(&8),
        "noqa inside a string literal is not a comment (row 8): {rows:?}"
    );
}
