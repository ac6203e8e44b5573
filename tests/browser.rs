//! The timeline in a real browser: headless Chromium loads `explain --format html` and
//! `--format svg`, and a script measures what it laid out — every drawing has a size,
//! no label runs off its canvas, every hazard bar lies on the time axis, the legend
//! names every colour drawn, and the severity filter hides what it should. A
//! screenshot of the page must show the drawings' colours.
//!
//! Chromium is Debian's `chromium` package (`.ci/run` installs it). Without it the test
//! is skipped with a note, unless MESH_LIFECYCLE_REQUIRE_CHROMIUM is set, as CI sets it.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{cli, root};

const FIXTURES: [&str; 6] = [
    "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
    "testdata/rules/ml203-fire-linkerd-injected.yaml",
    "testdata/rules/ml101-fire-job.yaml",
    "testdata/rules/ml207-silent-prestop-of-unknown-length.yaml",
    "testdata/corpus/istio-inject/istio-86c9f01/native-sidecar.yaml.injected",
    "testdata/corpus/k8s-examples/kubernetes-website/pods/lifecycle-events.yaml",
];

/// Chromium on PATH, or `None` (and a note) when the test is to be skipped.
fn chromium() -> Option<PathBuf> {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .flat_map(|dir| [dir.join("chromium"), dir.join("chromium-browser")])
        .find(|path| path.is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("MESH_LIFECYCLE_REQUIRE_CHROMIUM").is_none(),
            "chromium is required but not on PATH"
        );
        eprintln!("chromium is not installed: skipping the browser test");
    }
    found
}

/// Runs headless Chromium with a fresh profile on `page`, with `extra` arguments
/// (`--dump-dom`, `--screenshot=…`); kills it after 120 s.
fn run_chromium(chromium: &Path, profile: &Path, page: &Path, extra: &[String]) -> Output {
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--window-size=1400,2400",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("chromium did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn explain(format: &str) -> String {
    let output = cli()
        .current_dir(root())
        .args(["explain", "--no-config", "--format", format])
        .args(FIXTURES)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Measures the drawings once the page is laid out and writes the findings as JSON
/// into `<pre id="measured">`, which `--dump-dom` then prints.
const MEASURE: &str = r#"
<script>
(function () {
  const out = {drawings: 0, empty: [], offCanvas: [], offAxis: [], unnamed: [], hazards: 0};
  const legend = new Set();
  document.querySelectorAll('.legend rect').forEach(r => legend.add(r.getAttribute('class')));
  document.querySelectorAll('svg').forEach((svg, index) => {
    if (svg.closest('.legend')) return;
    out.drawings += 1;
    const box = svg.getBoundingClientRect();
    if (box.width < 100 || box.height < 20) out.empty.push(index);
    const view = svg.viewBox.baseVal;
    svg.querySelectorAll('text').forEach(text => {
      const b = text.getBBox();
      if (b.x < -0.5 || b.y < -0.5 || b.x + b.width > view.width + 0.5 || b.y + b.height > view.height + 0.5)
        out.offCanvas.push(`${index}: ${text.textContent} (${b.x.toFixed(1)}..${(b.x + b.width).toFixed(1)} of ${view.width})`);
    });
    const axes = [...svg.querySelectorAll('line.timeline')];
    svg.querySelectorAll('rect.hazard').forEach(rect => {
      if (rect.closest('.legend')) return;
      out.hazards += 1;
      const x = rect.x.baseVal.value, w = rect.width.baseVal.value, y = rect.y.baseVal.value;
      const axis = axes.filter(a => a.y1.baseVal.value <= y).pop();
      if (!axis || x < axis.x1.baseVal.value - 0.5 || x + w > axis.x2.baseVal.value + 0.5)
        out.offAxis.push(`${index}: ${x}..${x + w}`);
    });
    svg.querySelectorAll('rect[class]').forEach(rect => {
      const name = rect.getAttribute('class');
      if (legend.size && !legend.has(name)) out.unnamed.push(name);
    });
  });
  const shown = selector => [...document.querySelectorAll(selector)]
    .filter(e => [...ancestors(e)].every(a => getComputedStyle(a).display !== 'none')).length;
  function* ancestors(e) { while (e && e !== document.body) { yield e; e = e.parentElement; } }
  out.findings = {error: shown('.finding.sev-error'), warning: shown('.finding.sev-warning'), info: shown('.finding.sev-info')};
  out.hazardLanes = shown('g.hazard-lane');
  const info = document.getElementById('show-info');
  if (info) {
    info.click();
    out.afterHidingInfos = {error: shown('.finding.sev-error'), info: shown('.finding.sev-info'),
      infoLanes: shown('g.hazard-lane.sev-info'), lanes: shown('g.hazard-lane')};
  }
  const pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"#;

/// Loads `page` (HTML) with the measuring script added; returns what it measured.
fn measure(chromium: &Path, dir: &Path, name: &str, page: &str) -> serde_json::Value {
    let with_script = page.replace("</body>", &format!("{MEASURE}</body>"));
    let path = dir.join(format!("{name}.html"));
    std::fs::write(&path, with_script).unwrap();
    let output = run_chromium(
        chromium,
        &dir.join(format!("profile-{name}")),
        &path,
        &["--dump-dom".to_owned()],
    );
    let dom = String::from_utf8_lossy(&output.stdout);
    let start = dom.find("<pre id=\"measured\">").unwrap_or_else(|| {
        panic!(
            "no measurement in the DOM of {name}: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let json = &dom[start + "<pre id=\"measured\">".len()..];
    let json = &json[..json.find("</pre>").unwrap()];
    serde_json::from_str(
        &json
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">"),
    )
    .unwrap()
}

fn assert_laid_out(measured: &serde_json::Value, what: &str) {
    assert!(
        measured["drawings"].as_u64().unwrap() >= 1,
        "{what}: {measured}"
    );
    for key in ["empty", "offCanvas", "offAxis", "unnamed"] {
        assert_eq!(
            measured[key],
            serde_json::json!([]),
            "{what}: {key}: {measured}"
        );
    }
    assert!(
        measured["hazards"].as_u64().unwrap() >= 4,
        "{what}: {measured}"
    );
}

#[test]
fn the_html_page_renders_in_chromium() {
    let Some(chromium) = chromium() else { return };
    let page = explain("html");
    // Self-contained: nothing to fetch, no script.
    for outside in ["<script", "<link", "src=", "url(", "@import"] {
        assert!(!page.contains(outside), "the page holds `{outside}`");
    }
    for (at, _) in page.match_indices("href=\"") {
        assert!(
            page[at + 6..].starts_with('#'),
            "a link out of the page at {at}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let measured = measure(&chromium, dir.path(), "page", &page);
    assert_laid_out(&measured, "html");
    // One drawing per panel: the pods that start and stop have at least two.
    assert!(measured["drawings"].as_u64().unwrap() >= 2 * FIXTURES.len() as u64 - 2);
    let findings = &measured["findings"];
    assert!(findings["error"].as_u64().unwrap() >= 3, "{measured}");
    assert!(findings["info"].as_u64().unwrap() >= 1, "{measured}");
    // Unticking infos hides the info findings and their hazard bars, and only those.
    let after = &measured["afterHidingInfos"];
    assert_eq!(after["info"], 0, "{measured}");
    assert_eq!(after["infoLanes"], 0, "{measured}");
    assert_eq!(after["error"], findings["error"], "{measured}");
    assert!(
        after["lanes"].as_u64().unwrap() < measured["hazardLanes"].as_u64().unwrap(),
        "{measured}"
    );

    // The screenshot shows the bars: the colours of running containers and hazards.
    let png = dir.path().join("page.png");
    let plain = dir.path().join("plain.html");
    std::fs::write(&plain, &page).unwrap();
    let output = run_chromium(
        &chromium,
        &dir.path().join("profile-shot"),
        &plain,
        &[format!("--screenshot={}", png.display())],
    );
    assert!(png.is_file(), "{}", String::from_utf8_lossy(&output.stderr));
    let pixmap = resvg::tiny_skia::Pixmap::load_png(&png).unwrap();
    let count = |r: u8, g: u8, b: u8| {
        pixmap
            .pixels()
            .iter()
            .filter(|p| {
                p.red().abs_diff(r) < 12 && p.green().abs_diff(g) < 12 && p.blue().abs_diff(b) < 12
            })
            .count()
    };
    let running = count(0x4f, 0x86, 0xc6);
    let hazard = count(0xdb, 0x5c, 0x5c) + count(0xd6, 0x45, 0x45);
    assert!(running > 5000, "running bars: {running} pixels");
    assert!(hazard > 1000, "hazard bars: {hazard} pixels");
    if let Some(dir) = std::env::var_os("MESH_LIFECYCLE_SCREENSHOTS") {
        std::fs::copy(&png, Path::new(&dir).join("explain-html.png")).unwrap();
    }
}

#[test]
fn the_svg_picture_keeps_its_labels_and_hazards_in_place() {
    let Some(chromium) = chromium() else { return };
    let svg = explain("svg");
    let page = format!("<!DOCTYPE html><html><body>{svg}</body></html>");
    let dir = tempfile::tempdir().unwrap();
    let measured = measure(&chromium, dir.path(), "svg", &page);
    assert_eq!(measured["drawings"], 1, "{measured}");
    assert_laid_out(&measured, "svg");
    // The legend is part of the picture, above the drawings.
    for state in ["running", "hazard", "routed", "hook"] {
        assert!(
            svg.contains(&format!("class=\"{state}\"/><text")),
            "legend lacks {state}"
        );
    }
    if let Some(dir) = std::env::var_os("MESH_LIFECYCLE_SCREENSHOTS") {
        let path = Path::new(&dir).join("explain.svg");
        std::fs::write(&path, &svg).unwrap();
        let png = Path::new(&dir).join("explain-svg.png");
        run_chromium(
            &chromium,
            &Path::new(&dir).join("profile-svg"),
            &path,
            &[format!("--screenshot={}", png.display())],
        );
    }
}
