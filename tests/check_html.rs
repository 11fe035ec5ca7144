//! `check --output-format html` in a real headless browser (Debian's `chromium`; scripts/test.sh installs it):
//! the page renders and its script runs to the end, the case × torch-version grid has exactly the right cells,
//! breaks carry their source line, the page requests nothing from the network (chromium net log) and links
//! nowhere outside itself, and the browser logs no console
//! message. The report comes from a real check run (real torch, CPU); the second torch column comes from a
//! copy of that run's report relabelled as another torch (one case dropped), merged with `report merge`.

#[macro_use]
mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const BINARY: &str = env!("CARGO_BIN_EXE_graphbreak");

const CASES: &[&str] = &[
    "corpus/cases/hazards.py::case_item_break",
    "corpus/cases/hazards.py::case_fullgraph_branch",
    "corpus/cases/clean.py::build[size=nano]",
];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `$GRAPHBREAK_CHROMIUM`, else `chromium` on PATH.
fn chromium() -> Option<PathBuf> {
    let program = std::env::var_os("GRAPHBREAK_CHROMIUM")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("chromium"));
    Command::new(&program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        .then_some(program)
}

/// What one headless chromium run over a local file left: its output and the network requests the page made.
struct Browsed {
    output: Output,
    /// URLs the page itself asked for (chromium's own background requests, which have no page origin as
    /// initiator, are not counted); the local file is not a network request.
    page_requests: Vec<String>,
}

/// A headless chromium run over one local file; `args` pick what it produces (DOM dump or screenshot).
/// Name resolution is disabled and every request is recorded in a net log.
fn browse(browser: &Path, profile: &Path, page: &Path, args: &[&str]) -> Browsed {
    let net_log = profile.with_extension("netlog.json");
    let _ = std::fs::remove_file(&net_log);
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--host-resolver-rules=MAP * ~NOTFOUND")
        .arg(format!("--log-net-log={}", net_log.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .output()
        .expect("chromium runs");
    assert!(
        output.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let log: Value =
        serde_json::from_str(&std::fs::read_to_string(&net_log).expect("net log written"))
            .expect("net log is JSON");
    let mut page_requests: Vec<String> = log["events"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|event| {
            let params = &event["params"];
            let url = params["url"].as_str()?;
            let initiator = params.get("initiator")?;
            (initiator != "not an origin" && !url.starts_with("file:")).then(|| url.to_owned())
        })
        .collect();
    page_requests.dedup();
    Browsed {
        output,
        page_requests,
    }
}

/// Console messages chromium logged for the page (`...:INFO:CONSOLE(12)] "message", source: ...`).
fn console_lines(browsed: &Browsed) -> Vec<String> {
    String::from_utf8_lossy(&browsed.output.stderr)
        .lines()
        .filter(|line| line.contains(":CONSOLE"))
        .map(str::to_owned)
        .collect()
}

/// `(data-case, data-torch, data-status)` of every grid cell in a DOM dump.
fn grid_cells(dom: &str) -> BTreeSet<(String, String, String)> {
    let attribute = |tag: &str, name: &str| -> String {
        let marker = format!("{name}=\"");
        let start = tag.find(&marker).map(|i| i + marker.len()).unwrap_or(0);
        tag[start..].split('"').next().unwrap_or("").to_owned()
    };
    dom.match_indices("<td ")
        .map(|(index, _)| &dom[index..index + dom[index..].find('>').unwrap()])
        .filter(|tag| tag.contains("data-case="))
        .map(|tag| {
            (
                attribute(tag, "data-case").replace("&amp;", "&"),
                attribute(tag, "data-torch"),
                attribute(tag, "data-status"),
            )
        })
        .collect()
}

/// No external asset in the markup: nothing to fetch, and every link stays inside the page. (URLs inside
/// reported text, e.g. a torch error message quoting pytorch.org, are text, not assets.)
fn assert_self_contained(html: &str) {
    for needle in [
        " src=", "srcset=", "<link", "<iframe", "<object", "<embed", "@import", "url(",
    ] {
        assert!(!html.contains(needle), "the page references `{needle}`");
    }
    for (index, _) in html.match_indices("href=\"") {
        assert!(
            html[index + 6..].starts_with('#'),
            "a link leaves the page: {}",
            &html[index..(index + 80).min(html.len())]
        );
    }
}

fn graphbreak(python: &Path, args: &[&str]) -> Output {
    common::output_echoed(
        Command::new(BINARY)
            .args(args)
            .current_dir(repo())
            .env(
                "XDG_CACHE_HOME",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("check-html-cache"),
            )
            .env("GRAPHBREAK_PYTHON", python),
        &args.join(" "),
    )
}

#[test]
fn html_report_renders_in_a_real_browser() {
    // Torch and the browser are required in CI and under scripts/test.sh; elsewhere their absence skips loudly.
    let python = require_torch!();
    let browser = require!(chromium(), "chromium", "GRAPHBREAK_REQUIRE_BROWSER");
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("profile");

    // The console capture itself works: a page that throws is caught.
    let broken = dir.path().join("broken.html");
    std::fs::write(
        &broken,
        "<!DOCTYPE html><p>x</p><img alt=\"\" src=\"http://example.invalid/x.png\">\
         <script>throw new Error(\"planted\")</script>",
    )
    .unwrap();
    let planted = browse(&browser, &profile, &broken, &["--dump-dom"]);
    let console = console_lines(&planted);
    assert!(
        console.iter().any(|l| l.contains("planted")),
        "console capture broken: {console:?}"
    );
    assert_eq!(
        planted.page_requests,
        ["http://example.invalid/x.png"],
        "request capture"
    );

    let page = dir.path().join("check.html");
    let baseline = dir.path().join("baseline.json");
    let mut args = vec!["check", "--no-cache"];
    args.extend_from_slice(CASES);
    let jsonl = dir.path().join("r.jsonl");
    args.extend_from_slice(&[
        "--warmup",
        "1",
        "--steps",
        "3",
        "--output-format",
        "html",
        "--output",
        page.to_str().unwrap(),
        "--write-baseline",
        baseline.to_str().unwrap(),
        "--jsonl",
        jsonl.to_str().unwrap(),
    ]);
    let run = graphbreak(python, &args);
    assert_eq!(
        run.status.code(),
        Some(1),
        "the fullgraph case fails to compile"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);

    let report: Value = serde_json::from_str(&std::fs::read_to_string(&baseline).unwrap()).unwrap();
    let torch = report["results"][0]["torch_version"]
        .as_str()
        .unwrap()
        .to_owned();
    let rendered = browse(&browser, &profile, &page, &["--dump-dom"]);
    assert_eq!(
        rendered.page_requests,
        Vec::<String>::new(),
        "network requests"
    );
    assert_eq!(
        console_lines(&rendered),
        Vec::<String>::new(),
        "console messages"
    );
    let dom = String::from_utf8_lossy(&rendered.output.stdout).into_owned();
    assert!(
        dom.contains("data-ready=\"1\""),
        "the page's script ran to its end"
    );
    let expected: BTreeSet<(String, String, String)> = [
        (CASES[0], "ok"),
        (CASES[1], "compile_error"),
        (CASES[2], "ok"),
    ]
    .iter()
    .map(|(case, status)| (case.to_string(), torch.clone(), status.to_string()))
    .collect();
    assert_eq!(grid_cells(&dom), expected);
    // Each break with its source line, read from the file.
    let item_line = common::marker_line(&repo().join("corpus/cases/hazards.py"), "item");
    assert!(
        dom.contains(&format!(
            "<span class=\"ln\">{item_line}</span>        scale = y.abs().max().item()  # LINE: item</pre>"
        )),
        "the item() break shows its source line"
    );
    assert!(
        dom.contains("class=\"bar-eager\""),
        "eager vs compiled bars are drawn"
    );

    // A second torch column: the same report relabelled, one case not run there.
    let mut older = report.clone();
    let results = older["results"].as_array_mut().unwrap();
    results.pop();
    for result in results.iter_mut() {
        result["torch_version"] = Value::from("2.4.1");
        result["python_executable"] = Value::from("/venvs/torch24/bin/python");
    }
    older["environment"][0]["torch_version"] = Value::from("2.4.1");
    older["environment"][0]["python_executable"] = Value::from("/venvs/torch24/bin/python");
    let older_path = dir.path().join("older.json");
    std::fs::write(&older_path, older.to_string()).unwrap();
    let grid_page = dir.path().join("grid.html");
    let merged = graphbreak(
        python,
        &[
            "report",
            "merge",
            baseline.to_str().unwrap(),
            older_path.to_str().unwrap(),
            "--output-format",
            "html",
            "-o",
            grid_page.to_str().unwrap(),
        ],
    );
    assert_eq!(merged.status.code(), Some(1));
    assert_self_contained(&std::fs::read_to_string(&grid_page).unwrap());
    let rendered = browse(&browser, &profile, &grid_page, &["--dump-dom"]);
    assert_eq!(console_lines(&rendered), Vec::<String>::new());
    assert_eq!(rendered.page_requests, Vec::<String>::new());
    let dom = String::from_utf8_lossy(&rendered.output.stdout).into_owned();
    let mut expected_grid = expected.clone();
    expected_grid.insert((CASES[0].into(), "2.4.1".into(), "ok".into()));
    expected_grid.insert((CASES[1].into(), "2.4.1".into(), "compile_error".into()));
    expected_grid.insert((CASES[2].into(), "2.4.1".into(), "not-run".into()));
    assert_eq!(grid_cells(&dom), expected_grid);
    assert!(dom.contains(">torch 2.4.1</th>") && dom.contains(&format!(">torch {torch}</th>")));

    // A screenshot to look at (kept under the target directory).
    let screenshot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("check-html-grid.png");
    let _ = std::fs::remove_file(&screenshot);
    browse(
        &browser,
        &profile,
        &grid_page,
        &[
            "--window-size=1400,1400",
            &format!("--screenshot={}", screenshot.display()),
        ],
    );
    let png = std::fs::read(&screenshot).expect("screenshot written");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "a real screenshot"
    );
}
