//! The timeline in a real browser: headless Chromium loads `explain --format html` and
//! `--format svg`, and a script measures what it laid out — every drawing has a size,
//! no label runs off its canvas, every bar, tick and mark lies where the axis puts its
//! time (one scale through every piece of a cut axis), no bar runs past the axis, no two
//! marks of the 1,800 s pod's lanes crowd each other, an exit at its SIGTERM shows, the
//! legend names every colour drawn once, and the severity filter hides what it should.
//! Screenshots must show the drawings' colours, and the legend's colours must stay
//! apart for a deuteranopic reader (the page seen through a colour-blindness filter)
//! and in greyscale, with outlines and text that stand out from the page.
//!
//! Chromium is Debian's `chromium` package (`.ci/run` installs it). Without it the test
//! is skipped with a note (`common::tools`), unless `.ci/run` requires it.

use crate::common;
use crate::common::tools;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{cli, root};

const FIXTURES: [&str; 9] = [
    "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
    "testdata/rules/ml203-fire-linkerd-injected.yaml",
    "testdata/rules/ml101-fire-job.yaml",
    // A grace period of 1,800 s after a 5-second shutdown: the axis is cut.
    "testdata/rules/ml207-silent-prestop-of-unknown-length.yaml",
    "testdata/corpus/istio-inject/istio-86c9f01/native-sidecar.yaml.injected",
    "testdata/corpus/k8s-examples/kubernetes-website/pods/lifecycle-events.yaml",
    // An info hazard and a Job's completion.
    "testdata/rules/ml207-fire-no-prestop.yaml",
    "testdata/rules/ml301-fire-injected-job.yaml",
    // A start-up race the input proves: a warning in a Deployment.
    "testdata/rules/ml202-fire-frontend-fans-out.yaml",
];

/// Chromium on PATH, or `None` when the test is skipped ([`tools::program`]).
fn chromium() -> Option<PathBuf> {
    tools::program("chromium")
}

/// Runs headless Chromium with a fresh profile on `page`, with `extra` arguments
/// (`--dump-dom`, `--screenshot=…`); kills it after 120 s.
fn run_chromium(chromium: &Path, profile: &Path, page: &Path, extra: &[String]) -> Output {
    run_chromium_at(
        chromium,
        profile,
        &format!("file://{}", page.display()),
        extra,
    )
}

/// [`run_chromium`] on a URL (a page and a fragment).
fn run_chromium_at(chromium: &Path, profile: &Path, url: &str, extra: &[String]) -> Output {
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
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Its output is read as it comes: a page's DOM fills a pipe long before it exits.
    let drain = |mut stream: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stream.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("chromium did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

fn explain(format: &str) -> String {
    let output = cli()
        .current_dir(root())
        .args(["explain", "--no-config", "--format", format])
        // A known release: the Istio Job's findings are errors the input proves.
        .args(["--istio-version", "1.26"])
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
  const out = {drawings: 0, empty: [], offCanvas: [], offAxis: [], unnamed: [], hazards: 0,
    scales: [], misplaced: [], pastEnd: [], cuts: 0, crowded: [], hiddenExits: [], exitsAtSigterm: 0,
    legend: [], swatches: [], textContrast: []};
  const legend = new Set();
  document.querySelectorAll('.legend rect[data-swatch]').forEach(r => legend.add(r.dataset.swatch));
  document.querySelectorAll('.legend text').forEach(t => out.legend.push(t.textContent));
  document.querySelectorAll('.legend rect[data-swatch]').forEach(r => {
    const b = r.getBoundingClientRect();
    const style = getComputedStyle(r);
    out.swatches.push({name: r.dataset.swatch, x: b.x + b.width / 2, y: b.y + b.height / 2,
      fill: style.fill, stroke: style.stroke});
  });
  // Where time `t` falls on a panel's axis, from the pieces of its time axis.
  function axis(panel) {
    const pieces = [...panel.querySelectorAll('line.timeline')].map(l => ({
      x1: l.x1.baseVal.value, x2: l.x2.baseVal.value, from: +l.dataset.from, to: +l.dataset.to}));
    const perMs = pieces.map(p => (p.x2 - p.x1) / (p.to - p.from));
    return {pieces, perMs, x: t => {
      const p = pieces.find(p => t <= p.to) || pieces[pieces.length - 1];
      return p.x1 + (Math.max(t, p.from) - p.from) * perMs[0];
    }};
  }
  const centre = e => { const b = e.getBBox(); return b.x + b.width / 2; };
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
    svg.querySelectorAll('g.timeline-panel').forEach(panel => {
      const title = `${index}: ${panel.querySelector('text.panel').textContent}`;
      const workload = panel.closest('g.workload, section');
      const name = workload ? (workload.querySelector('.title, h2') || {}).textContent || '' : '';
      const {pieces, perMs, x} = axis(panel);
      out.cuts += pieces.length - 1;
      // One scale through every piece: a second is as long on both sides of a cut.
      if (perMs.some(k => Math.abs(k - perMs[0]) > perMs[0] * 1e-3)) out.scales.push(`${title}: ${perMs}`);
      const end = pieces[pieces.length - 1].x2;
      panel.querySelectorAll('text.tick[data-at]').forEach(t => {
        const at = +t.dataset.at;
        if (Math.abs(centre(t) - x(at)) > 1) out.misplaced.push(`${title}: tick ${t.textContent} at ${centre(t)} not ${x(at)}`);
      });
      panel.querySelectorAll('rect.bar[data-from]').forEach(rect => {
        const from = +rect.dataset.from, to = +rect.dataset.to;
        const x0 = rect.x.baseVal.value, w = rect.width.baseVal.value;
        // Within a pixel of its seconds on the axis (a bar under a pixel is drawn 1 px wide).
        if (Math.abs(x0 - x(from)) > 1 || Math.abs(Math.max(x(to) - x(from), 1) - w) > 1)
          out.misplaced.push(`${title}: ${rect.textContent} drawn ${x0}+${w}, not ${x(from)}..${x(to)}`);
        if (x0 + w > end + 0.5) out.pastEnd.push(`${title}: ${rect.textContent}`);
        if (rect.classList.contains('hazard')) {
          out.hazards += 1;
          const left = pieces[0].x1;
          if (x0 < left - 0.5) out.offAxis.push(`${index}: ${x0}..${x0 + w}`);
        }
        const name = rect.getAttribute('class').replace(/^bar /, '');
        if (legend.size && !legend.has(name)) out.unnamed.push(name);
      });
      const deadline = panel.querySelector('line.deadline[data-at]');
      if (deadline && Math.abs(deadline.x1.baseVal.value - x(+deadline.dataset.at)) > 1)
        out.misplaced.push(`${title}: grace deadline`);
      panel.querySelectorAll('g.lane').forEach(lane => {
        const marks = [...lane.querySelectorAll('[data-at]')].map(m => ({m, at: +m.dataset.at,
          x: m.classList.contains('unknown') ? centre(m) - 8 : (m.x1 ? m.x1.baseVal.value : centre(m))}));
        marks.forEach(({m, at, x: mx}) => {
          if (Math.abs(mx - x(at)) > 1) out.misplaced.push(`${title}: mark ${m.getAttribute('class')} at ${mx}, not ${x(at)}`);
        });
        // Marks of different moments: how close they come.
        const times = [...new Set(marks.map(m => m.at))].sort((a, b) => a - b);
        for (let i = 1; i < times.length; i++) {
          const gap = x(times[i]) - x(times[i - 1]);
          if (name.includes('cassandra') && title.includes('Termination') && gap < 4)
            out.crowded.push(`${title}: ${times[i - 1]} and ${times[i]} ms ${gap.toFixed(1)} px apart`);
        }
        // An exit at the moment of its SIGTERM stays visible beside the SIGTERM mark.
        marks.filter(e => e.m.classList.contains('exit')).forEach(exit => {
          const signal = marks.find(s => s.m.classList.contains('sigterm') && s.at === exit.at);
          if (!signal) return;
          out.exitsAtSigterm += 1;
          const a = exit.m.getBBox(), b = signal.m.getBBox();
          if (a.y >= b.y && a.y + a.height <= b.y + b.height + 2) out.hiddenExits.push(title);
        });
      });
    });
  });
  // Text on the page stands out from its white background (WCAG AA: 4.5:1).
  const luminance = c => {
    const [r, g, b] = c.match(/[\d.]+/g).slice(0, 3).map(v => {
      v = v / 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  document.querySelectorAll('svg text').forEach(t => {
    const fill = getComputedStyle(t).fill;
    if (!fill.startsWith('rgb')) return;
    const ratio = 1.05 / (luminance(fill) + 0.05);
    if (ratio < 4.5) out.textContrast.push(`${t.textContent}: ${fill} ${ratio.toFixed(2)}`);
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
    measure_with(chromium, dir, name, page, MEASURE, "")
}

/// Loads `page` (HTML) at `fragment` with `script` added, which writes what it
/// measures as JSON into `<pre id="measured">`; returns that.
fn measure_with(
    chromium: &Path,
    dir: &Path,
    name: &str,
    page: &str,
    script: &str,
    fragment: &str,
) -> serde_json::Value {
    let at = page.rfind("</body>").expect("a page");
    let with_script = format!("{}{script}{}", &page[..at], &page[at..]);
    let path = dir.join(format!("{name}.html"));
    std::fs::write(&path, with_script).unwrap();
    let output = run_chromium_at(
        chromium,
        &dir.join(format!("profile-{name}")),
        &format!("file://{}{fragment}", path.display()),
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
    for key in [
        "empty",
        "offCanvas",
        "offAxis",
        "unnamed",
        "scales",
        "misplaced",
        "pastEnd",
        "crowded",
        "hiddenExits",
        "textContrast",
    ] {
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
    // The 1,800 s pod's axis is cut; the Linkerd proxy exits at its SIGTERM, at 0 s.
    assert!(
        measured["cuts"].as_u64().unwrap() >= 1,
        "{what}: {measured}"
    );
    assert!(
        measured["exitsAtSigterm"].as_u64().unwrap() >= 1,
        "{what}: {measured}"
    );
    // The legend names each colour and mark once.
    let legend: Vec<&str> = measured["legend"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    let mut unique = legend.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), legend.len(), "{what}: {legend:?}");
    for entry in [
        "exit",
        "endpoints removed",
        "grace period ends: SIGKILL",
        "axis cut",
    ] {
        assert!(
            legend.contains(&entry),
            "{what}: no `{entry}` in {legend:?}"
        );
    }
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
    let running = count(0x1b, 0x5e, 0x9e);
    let errors = count(0xc2, 0x30, 0x0a);
    let warnings = count(0xe6, 0x9f, 0x00);
    assert!(running > 5000, "running bars: {running} pixels");
    assert!(errors > 1000, "error hazard bars: {errors} pixels");
    assert!(warnings > 100, "warning hazard bars: {warnings} pixels");
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
    for swatch in ["running", "hazard error", "hazard info", "routed", "hook"] {
        assert!(
            svg.contains(&format!("data-swatch=\"{swatch}\"/><text")),
            "legend lacks {swatch}"
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

/// The Machado, Oliveira and Fernandes (2009) simulation of deuteranopia (severity 1)
/// in linear RGB, as an SVG filter applied to the whole page.
const DEUTERANOPIA: &str = r#"<svg width="0" height="0" style="position:absolute"><filter id="deuteranopia" color-interpolation-filters="linearRGB"><feColorMatrix type="matrix" values="0.367322 0.860646 -0.227968 0 0 0.280085 0.672501 0.047413 0 0 -0.011820 0.042940 0.968881 0 0 0 0 0 1 0"/></filter></svg><style>body{filter:url(#deuteranopia)}</style>"#;

/// CIE L*a*b* (D65) of an sRGB colour.
fn lab([r, g, b]: [u8; 3]) -> [f64; 3] {
    let linear = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let (r, g, b) = (linear(r), linear(g), linear(b));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| {
        if t > 0.008856 {
            t.cbrt()
        } else {
            7.787 * t + 16.0 / 116.0
        }
    };
    [
        116.0 * f(y) - 16.0,
        500.0 * (f(x) - f(y)),
        200.0 * (f(y) - f(z)),
    ]
}

/// The colour difference ΔE*76 of two colours.
fn delta_e(a: [u8; 3], b: [u8; 3]) -> f64 {
    let (a, b) = (lab(a), lab(b));
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// WCAG's contrast ratio of a CSS `rgb(…)` colour against white.
fn contrast_with_white(css: &str) -> f64 {
    let parts: Vec<u8> = css
        .trim_start_matches("rgb(")
        .trim_end_matches(')')
        .split(',')
        .map(|part| part.trim().parse().unwrap())
        .collect();
    let linear = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let luminance =
        0.2126 * linear(parts[0]) + 0.7152 * linear(parts[1]) + 0.0722 * linear(parts[2]);
    1.05 / (luminance + 0.05)
}

/// The colours of the legend's swatches stay apart for a reader with deuteranopia (the
/// page seen through the simulation) and, where they meet in one lane, in greyscale;
/// every swatch's outline stands out from the white page (WCAG's 3:1 for graphics).
#[test]
fn the_colours_survive_colour_blindness_and_greyscale() {
    let Some(chromium) = chromium() else { return };
    let svg = explain("svg");
    let page = format!("<!DOCTYPE html><html><body style=\"margin:0\">{svg}</body></html>");
    let dir = tempfile::tempdir().unwrap();
    let measured = measure(&chromium, dir.path(), "colours", &page);
    let swatches = measured["swatches"].as_array().unwrap();
    assert_eq!(swatches.len(), 10, "every state and severity: {measured}");
    let shot = |name: &str, page: &str| {
        let html = dir.path().join(format!("{name}.html"));
        std::fs::write(&html, page).unwrap();
        let png = dir.path().join(format!("{name}.png"));
        let output = run_chromium(
            &chromium,
            &dir.path().join(format!("profile-{name}")),
            &html,
            &[format!("--screenshot={}", png.display())],
        );
        assert!(png.is_file(), "{}", String::from_utf8_lossy(&output.stderr));
        if let Some(keep) = std::env::var_os("MESH_LIFECYCLE_SCREENSHOTS") {
            std::fs::copy(&png, Path::new(&keep).join(format!("colours-{name}.png"))).unwrap();
        }
        resvg::tiny_skia::Pixmap::load_png(&png).unwrap()
    };
    let normal = shot("normal", &page);
    let deuteranopic = shot(
        "deuteranopia",
        &page.replace(
            "<body style=\"margin:0\">",
            &format!("<body style=\"margin:0\">{DEUTERANOPIA}"),
        ),
    );
    let sample = |pixmap: &resvg::tiny_skia::Pixmap, swatch: &serde_json::Value| {
        let x = swatch["x"].as_f64().unwrap().round() as u32;
        let y = swatch["y"].as_f64().unwrap().round() as u32;
        let p = pixmap.pixel(x, y).unwrap();
        [p.red(), p.green(), p.blue()]
    };
    let name = |swatch: &serde_json::Value| swatch["name"].as_str().unwrap().to_owned();
    let colours: Vec<(String, [u8; 3], [u8; 3])> = swatches
        .iter()
        .map(|s| (name(s), sample(&normal, s), sample(&deuteranopic, s)))
        .collect();
    // The filter did change the picture: red and green are no longer told apart by hue.
    let of = |wanted: &str| colours.iter().find(|(n, ..)| n == wanted).unwrap();
    assert_ne!(of("hazard error").1, of("hazard error").2, "{colours:?}");
    for (i, (a, normal_a, deut_a)) in colours.iter().enumerate() {
        for (b, normal_b, deut_b) in &colours[i + 1..] {
            let seen = delta_e(*normal_a, *normal_b);
            let deuteranopic = delta_e(*deut_a, *deut_b);
            assert!(seen >= 15.0, "{a} and {b}: ΔE {seen:.1}");
            assert!(
                deuteranopic >= 12.0,
                "{a} and {b} under deuteranopia: ΔE {deuteranopic:.1}"
            );
        }
    }
    // Colours that meet in one lane, and the severities, differ in lightness too.
    let groups: [&[&str]; 3] = [
        &["starting", "running", "stuck"],
        &["hook", "running", "draining", "stopping"],
        &["hazard error", "hazard warning", "hazard info"],
    ];
    for group in groups {
        for (i, a) in group.iter().enumerate() {
            for b in &group[i + 1..] {
                let lightness = (lab(of(a).1)[0] - lab(of(b).1)[0]).abs();
                assert!(
                    lightness >= 10.0,
                    "{a} and {b} in greyscale: ΔL {lightness:.1}"
                );
            }
        }
    }
    for swatch in swatches {
        let outline = swatch["stroke"].as_str().unwrap();
        let ratio = contrast_with_white(outline);
        assert!(
            ratio >= 3.0,
            "{}: outline {outline} {ratio:.2}:1",
            name(swatch)
        );
    }
}

/// Measures a lint report: the overview's counts, its index and the sections, a link
/// opening its section, the search box and the severity filter. It leaves only its
/// result in the page, so that the DOM printed is short.
const MEASURE_REPORT: &str = r#"
<script>
// After the load, when the browser has followed the URL's fragment.
window.addEventListener('load', () => setTimeout(function () {
  const out = {counts: {}};
  document.querySelectorAll('[data-count]').forEach(e => out.counts[e.dataset.count] = +e.querySelector('b').textContent);
  out.sections = document.querySelectorAll('details.workload').length;
  const rows = [...document.querySelectorAll('#index .row[data-section]')];
  out.rows = rows.length;
  out.broken = rows.filter(r => !document.getElementById(r.querySelector('a').getAttribute('href').slice(1))).length;
  const classes = ['worst-error', 'worst-warning', 'worst-info', 'worst-none'];
  const rank = r => classes.findIndex(c => r.classList.contains(c));
  out.unsorted = rows.filter((r, i) => i > 0 && rank(r) < rank(rows[i - 1])).length;
  out.worst = classes.map(c => rows.filter(r => r.classList.contains(c)).length);
  out.overviewFirst = document.getElementById('overview').getBoundingClientRect().top <
    document.getElementById('workloads').getBoundingClientRect().top;
  const target = document.getElementById(location.hash.slice(1));
  out.target = location.hash;
  out.targetOpen = !!target && target.closest('details').open;
  const shown = e => getComputedStyle(e).display !== 'none' && !e.hidden;
  const box = document.getElementById('search');
  out.search = !!box;
  if (box) {
    box.value = 'ml207';
    box.dispatchEvent(new Event('input'));
    out.searchRows = rows.filter(shown).length;
    out.searchSections = [...document.querySelectorAll('details.workload')].filter(d => !d.hidden).length;
    box.value = '';
    box.dispatchEvent(new Event('input'));
  }
  document.getElementById('show-error').click();
  out.errorRowsAfterFilter = rows.filter(r => r.classList.contains('worst-error') && shown(r)).length;
  out.otherRowsAfterFilter = rows.filter(r => !r.classList.contains('worst-error') && shown(r)).length;
  document.body.innerHTML = '<pre id="measured"></pre>';
  document.getElementById('measured').textContent = JSON.stringify(out);
}, 200));
</script>
"#;

/// A repository of 10,000 workloads, rendered as one page: Chromium loads it, its
/// overview counts what `--format json` counts, every row of the index links to a
/// section it opens, rows come worst first, and the search box and the severity
/// filter work. The workloads are a few shapes with many container names, as the
/// pods of a few charts are, so that thousands of distinct drawings are in the page.
#[test]
fn a_lint_report_of_10000_workloads_renders_and_counts_as_json_does() {
    let Some(chromium) = chromium() else { return };
    let shapes = [
        "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
        "testdata/rules/ml203-fire-linkerd-injected.yaml",
        "testdata/rules/ml207-fire-no-prestop.yaml",
        "testdata/rules/ml101-fire-job.yaml",
        "testdata/rules/ml206-silent-short-sleep.yaml",
        "testdata/suppressions/partly-suppressed.yaml",
    ]
    .map(|path| std::fs::read_to_string(root().join(path)).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let manifests = dir.path().join("repository.yaml");
    let documents: Vec<String> = (0..10_000)
        .map(|i| {
            let shape = &shapes[i % shapes.len()];
            // A unique workload name, and one of 400 container names.
            let named = shape.replacen("\n  name: ", &format!("\n  name: n{i}-"), 1);
            named.replacen("- name: ", &format!("- name: c{}-", i % 400), 1)
        })
        .collect();
    std::fs::write(&manifests, documents.join("\n---\n")).unwrap();
    let run = |format: &str| {
        let output = cli()
            .args(["lint", "--no-config", "--format", format])
            .arg(&manifests)
            .output()
            .unwrap();
        (output.stdout, output.status.code())
    };
    let (json, json_status) = run("json");
    let (page, status) = run("html");
    assert_eq!(status, json_status);
    let report: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let summary = &report["summary"];
    assert_eq!(summary["workloads"], 10_000);
    let page = String::from_utf8(page).unwrap();
    let with_ml207: std::collections::BTreeSet<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["ruleId"] == "ML207")
        .map(|f| f["workload"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(!with_ml207.is_empty());
    let measured = measure_with(
        &chromium,
        dir.path(),
        "report",
        &page,
        MEASURE_REPORT,
        "#w9998-body",
    );
    for key in [
        "errors",
        "warnings",
        "infos",
        "workloads",
        "suppressed",
        "inputErrors",
    ] {
        assert_eq!(measured["counts"][key], summary[key], "{key}: {measured}");
    }
    assert_eq!(measured["sections"], 10_000, "{measured}");
    assert_eq!(measured["rows"], 10_000, "{measured}");
    assert_eq!(measured["broken"], 0, "{measured}");
    assert_eq!(measured["unsorted"], 0, "{measured}");
    assert_eq!(measured["overviewFirst"], true, "{measured}");
    assert_eq!(
        measured["targetOpen"], true,
        "a link opens its section: {measured}"
    );
    assert_eq!(measured["search"], true, "{measured}");
    assert_eq!(measured["searchRows"], with_ml207.len(), "{measured}");
    assert_eq!(measured["searchSections"], with_ml207.len(), "{measured}");
    assert_eq!(measured["errorRowsAfterFilter"], 0, "{measured}");
    let others: u64 = measured["worst"].as_array().unwrap()[1..]
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(measured["otherRowsAfterFilter"], others, "{measured}");
    if let Some(keep) = std::env::var_os("MESH_LIFECYCLE_SCREENSHOTS") {
        let path = Path::new(&keep).join("lint-report.html");
        std::fs::write(&path, &page).unwrap();
        run_chromium(
            &chromium,
            &dir.path().join("profile-shot"),
            &path,
            &[format!(
                "--screenshot={}",
                Path::new(&keep).join("lint-report.png").display()
            )],
        );
    }
}

/// Measures each timeline picture of a lint report in a window 800 px wide, every
/// section open: its box, its container's, and the picture's own size.
const MEASURE_PICTURES: &str = r#"
<script>
(function () {
  document.querySelectorAll('details').forEach(d => d.open = true);
  const out = {pictures: 0, wider: 0, cut: [], distorted: []};
  document.querySelectorAll('.picture').forEach((p, i) => {
    out.pictures += 1;
    const box = p.getBoundingClientRect();
    const holder = p.parentElement.getBoundingClientRect();
    const style = getComputedStyle(p);
    // The picture's own size, from the SVG it draws.
    const m = decodeURIComponent(style.backgroundImage).match(/<svg[^>]* width="([\d.]+)" height="([\d.]+)"/);
    const [w, h] = [+m[1], +m[2]];
    if (w > holder.width) out.wider += 1;
    // The size the picture is drawn at in its box.
    const size = style.backgroundSize;
    const drawn = size === 'auto' || size === 'auto auto' ? [w, h]
      : size === '100% 100%' ? [box.width, box.height] : null;
    if (!drawn) { out.cut.push(`${i}: background-size ${size}`); return; }
    // The picture lies within its box, the box within what holds it and within the
    // window: nothing of it is cut off or needs a scroll to the side.
    if (drawn[0] > box.width + 0.5 || drawn[1] > box.height + 0.5 ||
        box.right > Math.min(holder.right, window.innerWidth) + 0.5)
      out.cut.push(`${i}: ${drawn[0].toFixed(1)}x${drawn[1].toFixed(1)} in ${box.width.toFixed(1)}x${box.height.toFixed(1)} ending at ${box.right.toFixed(1)} of ${holder.right.toFixed(1)}`);
    // Scaled whole: its proportions are the picture's.
    if (Math.abs(drawn[0] / drawn[1] - w / h) > 0.02)
      out.distorted.push(`${i}: ${drawn[0].toFixed(1)}x${drawn[1].toFixed(1)} for ${w}x${h}`);
  });
  const pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"#;

#[test]
fn the_lint_report_shows_whole_pictures_in_a_narrow_window() {
    let Some(chromium) = chromium() else { return };
    let output = cli()
        .current_dir(root())
        .args(["lint", "--no-config", "-o", "html"])
        .args(FIXTURES)
        .output()
        .unwrap();
    let page = String::from_utf8(output.stdout).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let at = page.rfind("</body>").unwrap();
    let path = dir.path().join("report.html");
    std::fs::write(
        &path,
        format!("{}{MEASURE_PICTURES}{}", &page[..at], &page[at..]),
    )
    .unwrap();
    let output = run_chromium(
        &chromium,
        &dir.path().join("profile"),
        &path,
        &["--window-size=800,2000".to_owned(), "--dump-dom".to_owned()],
    );
    let dom = String::from_utf8_lossy(&output.stdout);
    let start = dom.find("<pre id=\"measured\">").expect("measured") + 19;
    let json = &dom[start..];
    let measured: serde_json::Value =
        serde_json::from_str(&json[..json.find("</pre>").unwrap()]).unwrap();
    assert!(measured["pictures"].as_u64().unwrap() >= 8, "{measured}");
    // The window is narrower than the pictures: they are scaled, not cut.
    assert!(measured["wider"].as_u64().unwrap() >= 1, "{measured}");
    assert_eq!(measured["cut"], serde_json::json!([]), "{measured}");
    assert_eq!(measured["distorted"], serde_json::json!([]), "{measured}");
}
