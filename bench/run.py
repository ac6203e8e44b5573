#!/usr/bin/env python3
"""The benchmark suite: `lint -o json` beside the bare parse floor and checkov,
and `lint --fix` beside `lint`.

    python3 bench/run.py                  # everything; writes bench/out/results.md
    python3 bench/run.py --quick          # fewer runs, to check that the suite works
    python3 bench/run.py --cluster-only   # only `lint --cluster -A` against 400,000 pods
    python3 bench/run.py --only-fixes     # the `lint --fix` rows alone
    python3 bench/run.py --only-admission # `serve --admission` under load (bench/admission.py)

It builds the release binary and the parse floor example, generates the corpora
(bench/gen.py, seeded) into bench/out/corpus, installs checkov 3.3.30 into
bench/out/venv, checks that `-j 1` and the default thread count print byte-identical
reports, then times every tool on every corpus round-robin and prints a Markdown table
of medians, peak RSS, throughput and the targets of BENCHMARKS.md.

Python 3.11 standard library only. See BENCHMARKS.md for what each number means.
"""

from __future__ import annotations

import argparse
import datetime
import filecmp
import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKOV_VERSION = "3.3.30"
MIB = 1024 * 1024

sys.path.insert(0, os.path.join(ROOT, "bench"))
import gen  # noqa: E402


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_checked(command: list[str], **kwargs) -> None:
    log("$ " + " ".join(command))
    subprocess.run(command, check=True, cwd=ROOT, **kwargs)


# ---------------------------------------------------------------------------------------
# Preparation.


def build() -> None:
    run_checked(["cargo", "build", "--release", "--locked"])
    run_checked(["cargo", "build", "--release", "--locked", "--examples"])


def corpora(out: str) -> dict:
    """Generates the corpora unless they are there already from the same generator."""
    corpus = os.path.join(out, "corpus")
    manifest_path = os.path.join(corpus, "manifest.json")
    with open(os.path.join(ROOT, "bench", "gen.py"), "rb") as f:
        generator = hashlib.sha256(f.read()).hexdigest()
    try:
        with open(manifest_path) as f:
            manifest = json.load(f)
        if manifest.get("generatorSha256") == generator:
            return manifest
    except (OSError, ValueError):
        pass
    log(f"generating corpora into {corpus}")
    shutil.rmtree(corpus, ignore_errors=True)
    manifest = gen.generate(corpus)
    manifest["generatorSha256"] = generator
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    return manifest


def checkov(out: str) -> str:
    """The checkov executable of bench/out/venv, installed on first use."""
    venv = os.path.join(out, "venv")
    executable = os.path.join(venv, "bin", "checkov")
    python = os.path.join(venv, "bin", "python")
    if os.path.exists(executable):
        installed = subprocess.run(
            [python, "-c", "import importlib.metadata as m; print(m.version('checkov'))"],
            capture_output=True, text=True).stdout.strip()
        if installed == CHECKOV_VERSION:
            return executable
    run_checked([sys.executable, "-m", "venv", venv])
    run_checked([os.path.join(venv, "bin", "pip"), "install", "--quiet", f"checkov=={CHECKOV_VERSION}"])
    return executable


# ---------------------------------------------------------------------------------------
# Measurement.


class Cell:
    """One tool on one corpus: a command, timed `runs` times."""

    def __init__(self, key: str, corpus: str, tool: str, command: list[str], runs: int,
                 input_bytes: int, env: dict | None = None, slow: bool = False):
        self.key = key
        self.slow = slow
        self.output_bytes = 0
        self.output_complete = True
        self.corpus = corpus
        self.tool = tool
        self.command = command
        self.runs = runs
        self.input_bytes = input_bytes
        self.env = env
        self.walls: list[float] = []
        self.rss_kib: list[int] = []
        self.time_v_rss_kib: int | None = None
        self.statuses: set[int] = set()

    def spawn(self, stdout_path: str, prefix: tuple = ()) -> tuple[float, int, int]:
        """Runs the command once: (wall seconds, exit status, max RSS in KiB)."""
        env = dict(os.environ, **(self.env or {}))
        with open(stdout_path, "wb") as stdout, open(stdout_path + ".stderr", "wb") as stderr:
            started = time.perf_counter()
            process = subprocess.Popen([*prefix, *self.command], stdout=stdout, stderr=stderr,
                                       env=env, cwd=ROOT)
            _, status, usage = os.wait4(process.pid, 0)
            wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        return wall, process.returncode, usage.ru_maxrss

    def measure_once(self, scratch: str) -> None:
        output = os.path.join(scratch, self.key + ".out")
        if self.slow:
            # Runs of many seconds are timed under /usr/bin/time -v itself (its own
            # start-up is noise at that scale), so there is no extra run for peak RSS.
            report = os.path.join(scratch, self.key + ".time-v")
            wall, status, rss = self.spawn(output, ("/usr/bin/time", "-v", "-o", report))
            self.time_v_rss_kib = max(self.time_v_rss_kib or 0, read_time_v(report))
        else:
            wall, status, rss = self.spawn(output)
        self.walls.append(wall)
        self.rss_kib.append(rss)
        self.statuses.add(status)
        self.output_bytes = os.path.getsize(output)
        with open(output, "rb") as f:
            f.seek(max(0, self.output_bytes - 64))
            tail = f.read().rstrip()
        # Both reports are one JSON object; one cut short does not end with its brace.
        self.output_complete = tail.endswith(b"}")

    def measure_rss(self, scratch: str) -> None:
        """Peak RSS as `/usr/bin/time -v` reports it ("Maximum resident set size")."""
        if self.slow:
            return
        report = os.path.join(scratch, self.key + ".time-v")
        command = ["/usr/bin/time", "-v", "-o", report] + self.command
        with open(os.devnull, "wb") as devnull:
            subprocess.run(command, stdout=devnull, stderr=devnull, cwd=ROOT,
                           env=dict(os.environ, **(self.env or {})))
        self.time_v_rss_kib = read_time_v(report)

    @property
    def median(self) -> float:
        return statistics.median(self.walls)

    @property
    def rss_mib(self) -> float:
        kib = self.time_v_rss_kib if self.time_v_rss_kib is not None else max(self.rss_kib)
        return kib / 1024

    def throughput(self) -> float | None:
        return self.input_bytes / 1e6 / self.median if self.input_bytes else None

    def as_json(self) -> dict:
        return {"corpus": self.corpus, "tool": self.tool, "command": self.command,
                "wallSeconds": self.walls, "medianSeconds": self.median,
                "maxRssKiBPerRun": self.rss_kib, "timeVMaxRssKiB": self.time_v_rss_kib,
                "exitStatuses": sorted(self.statuses), "inputBytes": self.input_bytes,
                "outputBytes": self.output_bytes, "outputComplete": self.output_complete}


def read_time_v(report: str) -> int:
    with open(report) as f:
        match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", f.read())
    if not match:
        raise SystemExit(f"no peak RSS in {report}")
    return int(match.group(1))


def identical_across_threads(binary: str, path: str, scratch: str) -> tuple[bool, dict]:
    """Lints `path` with `-j 1` and with the default thread count; compares the bytes."""
    outputs = []
    for label, extra in [("j1", ["-j", "1"]), ("default", [])]:
        target = os.path.join(scratch, f"determinism-{os.path.basename(path)}-{label}.json")
        with open(target, "wb") as stdout:
            status = subprocess.run([binary, "lint", "-o", "json", *extra, path],
                                    stdout=stdout, stderr=subprocess.DEVNULL, cwd=ROOT).returncode
        if status not in (0, 1):
            raise SystemExit(f"lint exited {status} on {path}: an input error in a generated corpus")
        outputs.append(target)
    same = filecmp.cmp(outputs[0], outputs[1], shallow=False)
    with open(outputs[1]) as f:
        summary = json.load(f)["summary"]
    if summary.get("inputErrors"):
        raise SystemExit(f"lint reports input errors on {path}: {summary}")
    return same, summary


def instructions(command: list[str], scratch: str, name: str) -> int:
    """Instructions executed, counted by callgrind: deterministic where wall time is not."""
    out = os.path.join(scratch, f"callgrind-{name}.out")
    result = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    match = re.search(r"refs:\s+([\d,]+)", result.stderr)
    if not match:
        raise SystemExit(f"callgrind failed on {command}: {result.stderr[-500:]}")
    return int(match.group(1).replace(",", ""))


def instruction_table(lint: str, floor: str, path: str, size: int, scratch: str) -> str:
    rows = [("lint `-j 1`", [lint, "lint", "-o", "json", "-j", "1", path]),
            ("parse floor", [floor, path]),
            ("read + split only", [floor, "--split-only", path])]
    counts = {}
    for label, command in rows:
        log(f"callgrind: {label}")
        counts[label] = instructions(command, scratch, label.split()[0])
    lines = ["", f"Instructions (callgrind) on `{os.path.basename(path)}`, deterministic:", "",
             "| tool | instructions | per input byte |", "|---|---|---|"]
    for label, count in counts.items():
        lines.append(f"| {label} | {count / 1e6:,.0f} M | {count / size:.0f} |")
    ratio = counts["parse floor"] / counts["lint `-j 1`"]
    lines += ["", f"Parse floor ÷ lint `-j 1` in instructions: {ratio:.2f} (the throughput ratio a "
                  "single thread would reach if time followed instructions)."]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------
# The shapes of one input: the 1,000 Deployments as a stream and as one `List` (what
# `kubectl get -A -o yaml` and `-o json` print), and a List of half of them, linted and
# explained: the cost of a finding must not depend on the document around it.

SHAPES = {
    "deployments-stream": "deployments-stream.yaml",
    "deployments-list": "deployments-list.yaml",
    "deployments-list-json": "deployments-list.json",
    "deployments-list-500": "deployments-list-500.yaml",
}


def shape_paths(corpus: str) -> dict[str, str]:
    return {name: os.path.join(corpus, file) for name, file in SHAPES.items()}


def shape_cells(add, lint: str, corpus: str, runs: int) -> None:
    """lint (JSON) on every shape; explain (text and the HTML page) on the stream and
    the Lists of 1,000 and 500."""
    for name, path in shape_paths(corpus).items():
        add(name, "lint", [lint, "lint", "-o", "json", path], runs)
        if name != "deployments-list-json":
            for fmt in ("text", "html"):
                add(name, f"explain-{fmt}", [lint, "explain", "-o", fmt, path], runs)


def wide_pod_cells(add, lint: str, corpus: str, runs: int) -> None:
    """lint (JSON) on one Pod of 10,000 and of 20,000 containers."""
    for name in ("pod-10k", "pod-20k"):
        add(name, "lint", [lint, "lint", "-o", "json", os.path.join(corpus, name + ".yaml")], runs)


# Shapes that cost by count, not by bytes: 100,000 one-line documents, 4 MB of `---`
# lines (a million empty documents) and a `List` of 300,000 small Pods, each on the
# default threads and on `-j 1`. Written here, not by gen.py, so the seeded corpora
# keep their generator.

COUNT_SHAPES = ("tiny-documents", "separators", "small-item-list", "small-item-list-json")


def count_shape_cells(add, lint: str, scratch: str, runs: int, sizes: dict) -> None:
    texts = {
        "tiny-documents": "".join(f"a: {n}\n---\n" for n in range(100_000)),
        "separators": "---\n" * (1 << 20),
        "small-item-list": "apiVersion: v1\nkind: List\nitems:\n" + "".join(
            f"- apiVersion: v1\n  kind: Pod\n  metadata: {{name: p{n}}}\n  spec:\n"
            "    containers: [{name: a, image: x}]\n" for n in range(300_000)),
        # As `kubectl get -o json` prints it: four spaces, each object on lines of its own.
        "small-item-list-json": json.dumps({"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{n}"},
             "spec": {"containers": [{"name": "a", "image": "x"}]}}
            for n in range(300_000)]}, indent=4) + "\n",
    }
    for name, text in texts.items():
        path = os.path.join(scratch, name + (".json" if name.endswith("-json") else ".yaml"))
        with open(path, "w") as f:
            f.write(text)
        documents = 1 if name.startswith("small-item-list") else text.count("---\n")
        sizes[name] = {"bytes": len(text.encode()), "documents": documents}
        add(name, "lint", [lint, "lint", "-o", "json", path], runs)
        add(name, "lint-j1", [lint, "lint", "-o", "json", "-j", "1", path], runs)


def count_shape_checks(cells: dict, check) -> None:
    for name in COUNT_SHAPES:
        if f"{name}/lint" not in cells:
            continue
        ratio = cells[f"{name}/lint"].median / cells[f"{name}/lint-j1"].median
        check(f"{name}: default threads ÷ `-j 1`: lint time", f"{ratio:.2f}×", "≤ 1.0×", ratio <= 1.0)
    for name, label in [("small-item-list", "YAML"), ("small-item-list-json", "JSON")]:
        for tool, threads in [("lint", "default threads"), ("lint-j1", "`-j 1`")]:
            if f"{name}/{tool}" not in cells:
                continue
            cell = cells[f"{name}/{tool}"]
            ratio = cell.rss_mib * MIB / cell.input_bytes
            check(f"{label} `List` of 300,000 small Pods, {threads}: peak RSS ÷ its size",
                  f"{ratio:.1f}×", "≤ 15×", ratio <= 15)


def shape_checks(cells: dict, check) -> None:
    stream = cells["deployments-stream/lint"].median
    for name, label in [("deployments-list", "YAML"), ("deployments-list-json", "JSON")]:
        ratio = cells[f"{name}/lint"].median / stream
        check(f"1,000 Deployments as one {label} `List` ÷ as a stream: lint time",
              f"{ratio:.2f}×", "≤ 1.5×", ratio <= 1.5)
    for tool, what in [("lint", "lint"), ("explain-text", "explain"), ("explain-html", "explain -f html")]:
        if tool != "lint":
            ratio = cells[f"deployments-list/{tool}"].median / cells[f"deployments-stream/{tool}"].median
            check(f"1,000 Deployments as one `List` ÷ as a stream: {what} time", f"{ratio:.2f}×", "≤ 1.5×",
                  ratio <= 1.5)
        growth = cells[f"deployments-list/{tool}"].median / cells[f"deployments-list-500/{tool}"].median
        check(f"`List` of 1,000 ÷ `List` of 500 Deployments: {what} time", f"{growth:.2f}×", "≤ 2.2×",
              growth <= 2.2)
    if "pod-20k/lint" in cells:
        growth = cells["pod-20k/lint"].median / cells["pod-10k/lint"].median
        check("one Pod of 20,000 ÷ one of 10,000 containers: lint time", f"{growth:.2f}×", "≤ 2.2×",
              growth <= 2.2)


# ---------------------------------------------------------------------------------------
# Report.


def machine() -> dict:
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    return {"cpu": model, "cores": os.cpu_count(), "kernel": platform.release(), "rustc": rustc,
            "python": platform.python_version(), "commit": commit,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def rate(mb_per_s: float) -> str:
    return f"{mb_per_s:.1f} MB/s" if mb_per_s >= 1 else f"{mb_per_s:.3f} MB/s"


def size(count: int) -> str:
    return f"{count / 1e6:.2f} MB" if count >= 100_000 else f"{count / 1e3:.1f} KB"


def verdict(ok: bool) -> str:
    return "met" if ok else "**not met**"


def report(cells: dict[str, Cell], manifest: dict, determinism: dict, info: dict,
           load: tuple[str, str], args) -> str:
    corpora_info = manifest["corpora"]
    lines = [
        f"Machine: {info['cpu']}, {info['cores']} cores, Linux {info['kernel']}; {info['rustc']}; "
        f"commit {info['commit']}; {info['date']}.",
        f"Load average before / after: {load[0]} / {load[1]}. "
        f"Runs per cell: {args.runs} (checkov {args.slow_runs}, small file {args.small_runs}); "
        "wall time is the median, with the range in brackets.",
        "",
        "| corpus | tool | median wall (min–max) | peak RSS | throughput |",
        "|---|---|---|---|---|",
    ]
    for cell in cells.values():
        throughput = cell.throughput()
        lines.append(
            f"| {cell.corpus} | {cell.tool} | {ms(cell.median)} ({ms(min(cell.walls))}–{ms(max(cell.walls))}) "
            f"| {cell.rss_mib:.1f} MiB | {rate(throughput) if throughput and cell.input_bytes > 1e6 else ''} |")

    checks = ["", "| target | measured | limit | |", "|---|---|---|---|"]

    def check(name: str, measured: str, limit: str, ok: bool) -> None:
        checks.append(f"| {name} | {measured} | {limit} | {verdict(ok)} |")

    if "deployments/checkov" in cells:
        speedup = cells["deployments/checkov"].median / cells["deployments/lint"].median
        check("1,000 Deployments: checkov time ÷ lint time", f"{speedup:.0f}×", "≥ 200×", speedup >= 200)
    rss = cells["deployments/lint"].rss_mib
    check("1,000 Deployments: lint peak RSS", f"{rss:.1f} MiB", "< 30 MiB", rss < 30)
    small = cells["single/lint"].median
    check("one small file: lint median, whole process", ms(small), "< 5 ms", small < 0.005)
    lint, floor = cells["stream-50MB/lint"], cells["stream-50MB/floor"]
    ratio = lint.throughput() / floor.throughput()
    check("50 MB stream: lint throughput ÷ parse floor throughput",
          f"{lint.throughput():.1f} ÷ {floor.throughput():.1f} MB/s = {ratio:.2f}", "≥ 1.5", ratio >= 1.5)
    ratio_j1 = cells["stream-50MB/lint-j1"].throughput() / floor.throughput()
    check("… the same at `-j 1`", f"{cells['stream-50MB/lint-j1'].throughput():.1f} ÷ "
          f"{floor.throughput():.1f} MB/s = {ratio_j1:.2f}", "≥ 1.0", ratio_j1 >= 1.0)
    largest = corpora_info["stream-50MB"]["largest_document_bytes"]
    limit = (3 * largest + 20 * MIB) / MIB
    check("50 MB stream: lint peak RSS", f"{lint.rss_mib:.1f} MiB (largest document {largest / MIB:.2f} MiB)",
          f"< 3 × largest + 20 MiB = {limit:.1f} MiB", lint.rss_mib < limit)
    scale_bytes = corpora_info["stream-50MB"]["bytes"] / corpora_info["stream-5MB"]["bytes"]
    for tool, name in [("lint", "lint"), ("lint-j1", "lint `-j 1`"), ("floor", "parse floor")]:
        scale = cells[f"stream-50MB/{tool}"].median / cells[f"stream-5MB/{tool}"].median
        check(f"10× input ({scale_bytes:.2f}× the bytes): {name} time ratio", f"{scale:.2f}×", "≤ 11×",
              scale <= 11)
    for corpus, same in determinism.items():
        check(f"`-j 1` and default output byte-identical: {corpus}", "identical" if same else "DIFFERENT",
              "identical", same)
    if "findings-21k/human" in cells:
        full, half = corpora_info["findings-21k"]["findings"], corpora_info["findings-10k"]["findings"]
        human, json_ = cells["findings-21k/human"].median, cells["findings-21k/json"].median
        # The report's own time: the same run in JSON reads and analyses the same document.
        check(f"one document, {full:,} findings: the human report's own time (human − JSON run)",
              f"{ms(human)} − {ms(json_)} = {ms(human - json_)}", "< 1 s", human - json_ < 1.0)
        scale = human / cells["findings-10k/human"].median
        check(f"… {full / half:.0f}× the findings: human time ratio", f"{scale:.2f}×", "≤ 2.5× (linear)",
              scale <= 2.5)
        for fmt in ("human", "table", "sarif", "junit"):
            # Memory a format adds over JSON's, per finding, at both sizes: bounded and
            # the same whatever the count.
            per = [(cells[f"{c}/{fmt}"].rss_mib - cells[f"{c}/json"].rss_mib) * MIB / n
                   for c, n in (("findings-21k", full), ("findings-10k", half))]
            check(f"{fmt}: peak RSS over JSON's, per finding ({full:,} / {half:,} findings)",
                  f"{per[0] / 1024:.2f} / {per[1] / 1024:.2f} KiB", "≤ 4 KiB at both",
                  max(per) <= 4 * 1024)

    shape_checks(cells, check)
    count_shape_checks(cells, check)

    notes = ["", "Corpora (bench/gen.py, seed %d):" % manifest["seed"], ""]
    for name, info_ in corpora_info.items():
        documents = info_["documents"]
        text = f"- `{name}`: {info_['bytes'] / 1e6:.2f} MB, {documents} document{'s' if documents != 1 else ''}"
        if "files" in info_:
            text += f" in {info_['files']} files"
        if "largest_document_bytes" in info_:
            text += f", largest document {info_['largest_document_bytes'] / 1000:.0f} KB"
        if "kinds" in info_:
            text += "; " + ", ".join(f"{count} {kind}" for kind, count in info_["kinds"].items())
        notes.append(text)
    notes += ["", "Report sizes: " + "; ".join(
        f"{cell.corpus} {cell.tool} {size(cell.output_bytes)}"
        + ("" if cell.output_complete else " (**cut short**: not a complete JSON object)")
        for cell in cells.values() if cell.tool in ("lint", "checkov") and cell.corpus != "startup") + "."]
    if "stream-50MB/junit" in cells:
        floor = cells["stream-50MB/floor"].throughput()
        notes += ["", "The 50 MB stream without fix checks (`-o junit`, which shows no fix): throughput "
                  "÷ parse floor " + ", ".join(
                      f"{cells[f'stream-50MB/{tool}'].throughput() / floor:.2f} {label}"
                      for tool, label in (("junit", "with 2 threads"), ("junit-j1", "at `-j 1`"))) + "."]
    startup = [cells[k] for k in ("startup/true", "startup/version", "startup/empty") if k in cells]
    if startup:
        notes += ["", "Process start-up, for reading the small-file time: " + "; ".join(
            f"{cell.tool} {ms(cell.median)}" for cell in startup) + "."]
    return "\n".join(lines + checks + notes) + "\n"



# ---------------------------------------------------------------------------------------
# `lint --fix` against `lint` (BENCHMARKS.md, "Fixes"): N Istio Deployments in one
# stream, each with one safe fix (ML101's hold annotation), at N = 50, 100, 200, 400.
# Targets: `--fix` costs at most 3× `lint` at N = 400, and doubling N at most doubles
# its time. Each `--fix` run gets a fresh copy of the file (the copy is not timed).

FIX_SIZES = (50, 100, 200, 400)


def fixable_stream(count: int) -> str:
    """`count` Deployments that ask for Istio injection and hold nothing: ML101 each."""
    documents = []
    for index in range(count):
        documents.append(
            "apiVersion: apps/v1\nkind: Deployment\n"
            f"metadata:\n  name: web-{index}\n  namespace: shop\n"
            f"spec:\n  selector:\n    matchLabels: {{app: web-{index}}}\n"
            "  template:\n    metadata:\n      labels:\n"
            f"        app: web-{index}\n        sidecar.istio.io/inject: \"true\"\n"
            "    spec:\n      containers:\n"
            f"      - name: web\n        image: example/web:{index}\n"
            "        ports:\n        - containerPort: 8080\n")
    return "---\n".join(documents)


def time_fix_rows(lint: str, scratch: str, runs: int) -> dict[int, tuple[float, float, int]]:
    """Median wall times of `lint` and `lint --fix` (both `-o json`) at each size,
    and how many findings one `--fix` fixed."""
    results = {}
    for count in FIX_SIZES:
        source = os.path.join(scratch, f"fix-{count}.yaml")
        with open(source, "w") as f:
            f.write(fixable_stream(count))
        target = os.path.join(scratch, f"fix-{count}-copy.yaml")
        lint_walls, fix_walls, fixed = [], [], 0
        for _ in range(runs + 1):  # the first of each is a warm-up
            start = time.perf_counter()
            subprocess.run([lint, "lint", "-o", "json", source], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
            lint_walls.append(time.perf_counter() - start)
            shutil.copyfile(source, target)
            start = time.perf_counter()
            done = subprocess.run([lint, "lint", "--fix", "-o", "json", target],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
            fix_walls.append(time.perf_counter() - start)
            fixed = json.loads(done.stdout)["summary"]["fixes"].get("fixed", 0)
        results[count] = (statistics.median(lint_walls[1:]), statistics.median(fix_walls[1:]), fixed)
    return results


def fix_section(lint: str, scratch: str, runs: int) -> str:
    """The `--fix` rows: times, ratio to `lint`, growth per doubling, with the targets."""
    results = time_fix_rows(lint, scratch, runs)
    lines = ["", f"`lint --fix` against `lint` (`-o json`), N Deployments with one safe fix each "
             f"in one stream; median of {runs} runs:", "",
             "| N | lint | lint --fix | fixed | --fix ÷ lint | --fix growth from N/2 |", "|---|---|---|---|---|---|"]
    checks = ["", "| target | measured | limit | |", "|---|---|---|---|"]
    previous = None
    for count, (lint_wall, fix_wall, fixed) in results.items():
        growth = f"{fix_wall / previous:.2f}×" if previous else ""
        lines.append(f"| {count} | {ms(lint_wall)} | {ms(fix_wall)} | {fixed} | {fix_wall / lint_wall:.2f}× | {growth} |")
        if previous:
            ok = fix_wall / previous <= 2.0
            checks.append(f"| --fix, N {count // 2} → {count}: time ratio | {fix_wall / previous:.2f}× | ≤ 2× | {verdict(ok)} |")
        checks.append(f"| --fix fixes all N = {count} | {fixed} | {count} | {verdict(fixed == count)} |")
        previous = fix_wall
    lint_wall, fix_wall, _ = results[FIX_SIZES[-1]]
    ratio = fix_wall / lint_wall
    checks.append(f"| --fix ÷ lint at N = {FIX_SIZES[-1]} | {ratio:.2f}× | ≤ 3× | {verdict(ratio <= 3.0)} |")
    return "\n".join(lines + checks) + "\n"

# End of the `--fix` rows.
# ---------------------------------------------------------------------------------------

# ---------------------------------------------------------------------------------------
# `lint --cluster -A` against a stand-in API server of many pods (bench/apiserver.py):
# memory bounded by a page of the list, not by the cluster, or a clear limit error.


def cluster_rows(lint: str, scratch: str, sizes: list[tuple[str, int]]) -> str:
    """Runs `lint --cluster -A -o json` through the real kubectl against the
    stand-in, once per (shape, pods), under `/usr/bin/time -v` (whose peak RSS is the
    largest of the linter and the kubectl calls it runs), and returns the Markdown table
    and its checks."""
    rows = ["", "`lint --cluster -A -o json` against bench/apiserver.py (pages of 500, "
                "default limits; peak RSS is the largest process: the linter or one kubectl call):", "",
            "| pods | shape | wall | peak RSS | exit | linted | errors |", "|---|---|---|---|---|---|---|"]
    checks = []
    results = {}
    for shape, pods in sizes:
        home = os.path.join(scratch, f"cluster-{shape}-{pods}")
        shutil.rmtree(home, ignore_errors=True)
        os.makedirs(home)
        port_file = os.path.join(home, "port")
        server = subprocess.Popen([sys.executable, os.path.join(ROOT, "bench", "apiserver.py"),
                                   "--pods", str(pods), "--shape", shape, "--port-file", port_file])
        try:
            while not os.path.exists(port_file):
                time.sleep(0.1)
            with open(port_file) as f:
                port = f.read().strip()
            kubeconfig = os.path.join(home, "kubeconfig")
            with open(kubeconfig, "w") as f:
                f.write("apiVersion: v1\nkind: Config\nclusters:\n- name: bench\n  cluster: {server: "
                        f"'http://127.0.0.1:{port}'}}\ncontexts:\n- name: bench\n  context: {{cluster: bench, "
                        "user: u}\ncurrent-context: bench\nusers:\n- name: u\n  user: {token: x}\n")
            report_path, time_v = os.path.join(home, "report.json"), os.path.join(home, "time-v")
            env = dict(os.environ, HOME=home, KUBECONFIG=kubeconfig)
            env.pop("KUBECTL", None)
            log(f"lint --cluster -A: {pods:,} pods, {shape}")
            start = time.monotonic()
            with open(report_path, "wb") as out, open(os.path.join(home, "stderr"), "wb") as err:
                status = subprocess.run(["/usr/bin/time", "-v", "-o", time_v, lint, "lint", "--cluster", "-A",
                                         "--no-config", "-o", "json"], stdout=out, stderr=err, env=env,
                                        cwd=home).returncode
            wall = time.monotonic() - start
        finally:
            server.terminate()
            server.wait()
        rss = read_time_v(time_v) / 1024
        with open(report_path) as f:
            report = json.load(f)
        errors = [e["message"] for e in report["errors"]]
        results[(shape, pods)] = (status, rss, errors)
        rows.append(f"| {pods:,} | {shape} | {wall:.0f} s | {rss:.1f} MiB | {status} | "
                    f"{report['summary']['files']:,} objects | {'; '.join(errors) or 'none'} |")
    for (shape, pods), (status, rss, errors) in results.items():
        if shape == "owned":
            checks.append(f"| {pods:,} pods of Deployments: completes, memory bounded by a page | exit {status}, "
                          f"{rss:.1f} MiB | exit 0 or 1, < 100 MiB | {verdict(status in (0, 1) and rss < 100)} |")
        else:
            limit_error = status == 2 and any("--max-input-size" in e for e in errors)
            ok = (status in (0, 1) or limit_error) and rss < 1024
            checks.append(f"| {pods:,} pods linted one by one: completes or a clear limit error, never swaps | "
                          f"exit {status}, {rss:.1f} MiB | the limit error, < 1 GiB | {verdict(ok)} |")
    return "\n".join(rows + ["", "| target | measured | limit | |", "|---|---|---|---|"] + checks) + "\n"


# ---------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10, help="timed runs of lint and the parse floor (10)")
    parser.add_argument("--slow-runs", type=int, default=3, help="timed runs of checkov (3)")
    parser.add_argument("--small-runs", type=int, default=30, help="timed runs on the single small file (30)")
    parser.add_argument("--quick", action="store_true", help="3 runs, 1 of checkov, 10 on the small file")
    parser.add_argument("--no-build", action="store_true", help="use the binaries already in target/release")
    parser.add_argument("--no-checkov", action="store_true", help="leave checkov out")
    parser.add_argument("--instructions", action="store_true",
                        help="also count instructions with callgrind on the 5 MB stream (needs valgrind)")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "out"), help="output directory (bench/out)")
    parser.add_argument("--cluster-pods", type=int, default=400_000,
                        help="pods of the stand-in cluster for `lint --cluster -A` (400,000; 0 leaves it out)")
    parser.add_argument("--cluster-only", action="store_true",
                        help="only the `lint --cluster` rows (needs kubectl)")
    parser.add_argument("--only-fixes", action="store_true",
                        help="only the `lint --fix` rows (built binary, no corpora, no checkov)")
    parser.add_argument("--only-admission", action="store_true",
                        help="only `serve --admission` under load: bench/admission.py's defaults")
    parser.add_argument("--update-benchmarks", metavar="LABEL",
                        help="also put the results into BENCHMARKS.md's results section, headed by LABEL")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.slow_runs, args.small_runs = 3, 1, 10

    out = os.path.abspath(args.out)
    scratch = os.path.join(out, "runs")
    os.makedirs(scratch, exist_ok=True)
    if not args.no_build:
        build()
    lint = os.path.join(ROOT, "target", "release", "kubectl-mesh_lifecycle")
    floor = os.path.join(ROOT, "target", "release", "examples", "parse_floor")
    cluster_sizes = [("owned", args.cluster_pods // 10), ("owned", args.cluster_pods),
                     ("standalone", args.cluster_pods)] if args.cluster_pods else []
    if args.quick:
        cluster_sizes = cluster_sizes[:1]
    if args.only_admission:
        import admission
        admission.main(["--binary", lint])
        return
    if args.cluster_only or args.only_fixes:
        text = ""
        if args.cluster_only:
            text += cluster_rows(lint, scratch, cluster_sizes)
        if args.only_fixes:
            text += fix_section(lint, scratch, args.runs)
        print(text)
        return
    manifest = corpora(out)
    corpus = os.path.join(out, "corpus")
    checkov_bin = None if args.no_checkov else checkov(out)
    # No update check against PyPI: checkov is timed without the network.
    checkov_env = {"CKV_SKIP_PACKAGE_UPDATE_CHECK": "true"}

    paths = {
        "single": os.path.join(corpus, "single", "deploy.yaml"),
        "deployments": os.path.join(corpus, "deployments"),
        "stream-5MB": os.path.join(corpus, "stream-5MB.yaml"),
        "stream-50MB": os.path.join(corpus, "stream-50MB.yaml"),
    }

    log("checking that -j 1 and the default thread count print the same report")
    determinism = {}
    for name, path in {**paths, **shape_paths(corpus)}.items():
        same, summary = identical_across_threads(lint, path, scratch)
        determinism[name] = same
        log(f"  {name}: {'identical' if same else 'DIFFERENT'}; {summary}")

    cells: dict[str, Cell] = {}

    def add(corpus_name: str, tool: str, command: list[str], runs: int, env: dict | None = None) -> None:
        key = f"{corpus_name}/{tool}"
        size = manifest["corpora"].get(corpus_name, {}).get("bytes", 0)
        cells[key] = Cell(key.replace("/", "-"), corpus_name, tool, command, runs, size, env,
                          slow=tool == "checkov")

    empty = os.path.join(scratch, "empty.yaml")
    with open(empty, "w") as f:
        f.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
    add("startup", "true", ["/bin/true"], args.small_runs)
    add("startup", "version", [lint, "--version"], args.small_runs)
    add("startup", "empty", [lint, "lint", "-o", "json", empty], args.small_runs)
    for name, path in paths.items():
        runs = args.small_runs if name == "single" else args.runs
        add(name, "lint", [lint, "lint", "-o", "json", path], runs)
        add(name, "lint-j1", [lint, "lint", "-o", "json", "-j", "1", path], runs)
        add(name, "floor", [floor, path], runs)
        if checkov_bin and name in ("single", "deployments"):
            # checkov takes a directory; the single file's directory holds only it.
            directory = path if os.path.isdir(path) else os.path.dirname(path)
            add(name, "checkov", [checkov_bin, "-d", directory, "--framework", "kubernetes",
                                  "--skip-download", "-o", "json"], args.slow_runs, checkov_env)
    add("stream-50MB", "split-only", [floor, "--split-only", paths["stream-50MB"]], args.runs)
    # The same stream as JUnit, the one report that shows no fix and so checks none:
    # what checking the offered fixes costs on the throughput targets.
    for tool, threads in (("junit", []), ("junit-j1", ["-j", "1"])):
        add("stream-50MB", tool, [lint, "lint", "-o", "junit", *threads, paths["stream-50MB"]],
            args.runs)
    # The cost of the reports themselves: one document, 21,000 findings (and half as
    # many), in every format that collects or renders findings.
    for name in ("findings-21k", "findings-10k"):
        path = os.path.join(corpus, name + ".yaml")
        for fmt in ("json", "human", "table", "sarif", "junit"):
            extra = ["--show-infos"] if fmt == "human" else []
            add(name, fmt, [lint, "lint", "-o", fmt, *extra, path], args.runs)

    shape_cells(add, lint, corpus, args.runs)
    wide_pod_cells(add, lint, corpus, args.runs)
    count_shape_cells(add, lint, scratch, args.runs, manifest["corpora"])

    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    info = machine()
    log("warming up (page cache, checkov's bytecode)")
    for cell in cells.values():
        if cell.tool != "checkov" or cell.corpus == "single":
            cell.spawn(os.path.join(scratch, cell.key + ".out"))
    rounds = max(cell.runs for cell in cells.values())
    for round_ in range(rounds):
        log(f"round {round_ + 1}/{rounds}")
        for cell in cells.values():
            if round_ < cell.runs:
                cell.measure_once(scratch)
    log("peak RSS under /usr/bin/time -v")
    for cell in cells.values():
        cell.measure_rss(scratch)
    load_after = " ".join(f"{x:.2f}" for x in os.getloadavg())

    for cell in cells.values():
        findings = {0, 1}
        expected = {"lint": findings, "lint-j1": findings, "junit": findings, "junit-j1": findings,
                    "checkov": findings}.get(cell.tool, {0})
        if cell.corpus in SHAPES or cell.corpus in COUNT_SHAPES or cell.corpus.startswith("pod-"):
            expected = {0, 1}
        if cell.corpus.startswith("findings-"):
            expected = {0}
        if cell.corpus == "startup" and cell.tool == "empty":
            expected = {0, 1}
        if not cell.statuses <= expected:
            raise SystemExit(f"{cell.key}: unexpected exit status {sorted(cell.statuses)}; "
                             f"see {os.path.join(scratch, cell.key + '.out.stderr')}")

    text = report(cells, manifest, determinism, info, (load_before, load_after), args)
    text += lsp_latency(lint, paths["stream-5MB"], scratch, max(args.runs * 3, 20))
    text += fix_section(lint, scratch, args.runs)
    if cluster_sizes and shutil.which("kubectl"):
        text += cluster_rows(lint, scratch, cluster_sizes)
    if args.instructions:
        text += instruction_table(lint, floor, paths["stream-5MB"],
                                  manifest["corpora"]["stream-5MB"]["bytes"], scratch)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"machine": info, "load": [load_before, load_after], "determinism": determinism,
                   "corpora": manifest["corpora"], "cells": {k: c.as_json() for k, c in cells.items()}},
                  f, indent=2)
        f.write("\n")
    print(text)
    log(f"written to {os.path.join(out, 'results.md')}")
    if args.update_benchmarks:
        update_benchmarks(args.update_benchmarks, text)

# ---------------------------------------------------------------------------------------
# The language server: diagnostics after a change to an open manifest.

LSP_LINES = 2000
LSP_LIMIT_MS = 100.0


class LspClient:
    """A minimal editor: `lsp` over pipes, JSON-RPC with Content-Length headers."""

    def __init__(self, binary: str, cwd: str):
        self.process = subprocess.Popen([os.path.abspath(binary), "lsp"], cwd=cwd, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self) -> dict:
        length = 0
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit("lsp: the server closed its output")
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(self.process.stdout.read(length))

    def request(self, method: str, params) -> dict:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == self.next_id and "method" not in message:
                return message

    def diagnostics(self, uri: str, version: int) -> list:
        while True:
            message = self.receive()
            params = message.get("params") or {}
            if (message.get("method") == "textDocument/publishDiagnostics"
                    and params.get("uri") == uri and params.get("version") == version):
                return params["diagnostics"]


def lsp_manifest(stream: str) -> str:
    """The first documents of a generated stream, cut at a document marker once they
    reach LSP_LINES lines: a multi-document manifest of that size."""
    lines: list[str] = []
    with open(stream) as f:
        for line in f:
            if line.startswith("---") and len(lines) >= LSP_LINES:
                break
            lines.append(line)
    return "".join(lines)


def lsp_latency(binary: str, stream: str, scratch: str, runs: int) -> str:
    """Opens a 2,000-line multi-document manifest in `lsp`, then changes one value in
    its middle document `runs` times (an incremental change, as an editor sends it):
    the time from sending each change to the diagnostics of its version. Returns the
    Markdown rows of the result and its check."""
    workspace = os.path.join(scratch, "lsp")
    shutil.rmtree(workspace, ignore_errors=True)
    os.makedirs(workspace)
    text = lsp_manifest(stream)
    path = os.path.join(workspace, "manifest.yaml")
    with open(path, "w") as f:
        f.write(text)
    lines = text.split("\n")
    documents = text.count("\n---") + 1
    middle = len(lines) // 2
    target = next(i for i in range(middle, len(lines)) if "terminationGracePeriodSeconds:" in lines[i])
    column = lines[target].index(":") + 2
    uri = "file://" + path
    client = LspClient(binary, workspace)
    client.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + workspace,
                                  "capabilities": {}})
    client.send({"method": "initialized", "params": {}})
    client.send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "yaml", "version": 1, "text": text}}})
    found = len(client.diagnostics(uri, 1))
    old = lines[target][column:]
    latencies = []
    for version in range(2, runs + 2):
        new = str(31 + version % 2 * 30)
        change = {"range": {"start": {"line": target, "character": column},
                            "end": {"line": target, "character": column + len(old)}}, "text": new}
        old = new
        started = time.perf_counter()
        client.send({"method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}})
        client.diagnostics(uri, version)
        latencies.append((time.perf_counter() - started) * 1000)
    client.request("shutdown", None)
    client.send({"method": "exit"})
    client.process.wait(timeout=30)
    latencies.sort()
    median = statistics.median(latencies)
    p90 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.9))]
    return "\n".join([
        "",
        f"Language server (`lsp`): a {len(lines) - 1:,}-line manifest of {documents} documents "
        f"({len(text) / 1000:.0f} KB, {found} diagnostics) open; one value of its middle document changed "
        f"{runs} times, each change timed from sending it to its diagnostics.",
        "",
        "| target | measured | limit | |",
        "|---|---|---|---|",
        f"| diagnostics after a change: median (90th percentile, max) | {median:.1f} ms ({p90:.1f} ms, "
        f"{latencies[-1]:.1f} ms) | < {LSP_LIMIT_MS:.0f} ms | {verdict(p90 < LSP_LIMIT_MS)} |",
        "",
    ])

# The language server's section ends here.
# ---------------------------------------------------------------------------------------


def update_benchmarks(label: str, text: str) -> None:
    """Replaces what lies between the results markers of BENCHMARKS.md."""
    path = os.path.join(ROOT, "BENCHMARKS.md")
    with open(path) as f:
        document = f.read()
    begin, end = "<!-- results:begin -->", "<!-- results:end -->"
    head, rest = document.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(path, "w") as f:
        f.write(f"{head}{begin}\n**{label}**\n\n{text}{end}{tail}")
    log(f"updated {path}")


if __name__ == "__main__":
    main()
