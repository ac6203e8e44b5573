#!/usr/bin/env python3
"""The admission webhook under load: `serve --admission` answering AdmissionReviews over
TLS on loopback from a client of many concurrent keep-alive connections.

    python3 bench/admission.py                       # 20,000 reviews, 64 connections
    python3 bench/admission.py --reviews 2000 --connections 8
    python3 bench/run.py --only-admission            # the same, from the suite's driver

It makes a throw-away certificate with openssl, starts target/release's binary on a
free loopback port with the profile of tests/it/admission.rs, posts the reviews of
testdata/admission/ round robin (each with a uid of its own, checked in the answer),
and prints the latency percentiles, the throughput, the errors (any answer that is not
200 with the review's uid) and the server's resident memory after the warm-up, at its
peak and at the end. The client shares the machine with the server: on a small machine
its own work bounds the throughput. Python 3.11 standard library only, and openssl.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = ["pod-istio.json", "pod-linkerd.json", "job-istio.json", "deployment-clean.json", "deployment-shop.json"]
PROFILE = "istio:\n  version: '1.24'\nnamespaces:\n  shop:\n    labels: {istio-injection: enabled}\n"
UID = "@@uid@@"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def certificate(directory: str) -> tuple[str, str]:
    cert, key = os.path.join(directory, "tls.crt"), os.path.join(directory, "tls.key")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-days", "1",
         "-keyout", key, "-out", cert],
        check=True, capture_output=True)
    return cert, key


def bodies() -> list[bytes]:
    out = []
    for name in FIXTURES:
        with open(os.path.join(ROOT, "testdata", "admission", name)) as file:
            review = json.load(file)
        review["request"]["uid"] = UID
        out.append(json.dumps(review).encode())
    return out


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def start(binary: str, directory: str, flags: list[str]) -> tuple[subprocess.Popen, int]:
    cert, key = certificate(directory)
    config = os.path.join(directory, "config.yaml")
    with open(config, "w") as file:
        file.write(PROFILE)
    server = subprocess.Popen(
        [binary, "serve", "--admission", "--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key,
         "--config", config, "--warn-on", "info", *flags],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in server.stderr:
        if "https://" in line:
            port = int(line.rsplit(":", 1)[1].split("/")[0])
            threading.Thread(target=lambda: server.stderr.read(), daemon=True).start()
            return server, port
    raise SystemExit("the server ended before it listened")


def load(port: int, cert: str, reviews: int, connections: int, payloads: list[bytes]) -> dict:
    context = ssl.create_default_context(cafile=cert)
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    counter = iter(range(reviews))

    def worker() -> None:
        connection = http.client.HTTPSConnection("localhost", port, context=context, timeout=30)
        mine: list[float] = []
        while True:
            with lock:
                index = next(counter, None)
            if index is None:
                break
            uid = f"bench-{index}"
            body = payloads[index % len(payloads)].replace(UID.encode(), uid.encode())
            started = time.perf_counter()
            try:
                connection.request("POST", "/validate", body, {"Content-Type": "application/json"})
                answer = connection.getresponse()
                data = answer.read()
                took = time.perf_counter() - started
                if answer.status != 200 or json.loads(data)["response"]["uid"] != uid:
                    with lock:
                        errors.append(f"{answer.status}: {data[:200]!r}")
                mine.append(took)
            except (OSError, http.client.HTTPException, ValueError, KeyError) as error:
                with lock:
                    errors.append(repr(error))
                connection.close()
                connection = http.client.HTTPSConnection("localhost", port, context=context, timeout=30)
        connection.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=worker) for _ in range(connections)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    return {"latencies": sorted(latencies), "errors": errors, "wall": wall}


def percentile(sorted_values: list[float], fraction: float) -> float:
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def run(binary: str, reviews: int, connections: int) -> str:
    payloads = bodies()
    with tempfile.TemporaryDirectory() as directory:
        server, port = start(binary, directory, [])
        cert = os.path.join(directory, "tls.crt")
        try:
            load_before = os.getloadavg()
            # Warm-up: every connection opened and every kind of review answered once.
            load(port, cert, connections * 4, connections, payloads)
            after_warmup = rss_kib(server.pid)
            peak = [after_warmup]
            done = threading.Event()

            def sample() -> None:
                while not done.wait(0.25):
                    peak.append(rss_kib(server.pid))

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            result = load(port, cert, reviews, connections, payloads)
            done.set()
            sampler.join()
            end = rss_kib(server.pid)
            load_after = os.getloadavg()
        finally:
            server.terminate()
            server.wait(timeout=30)
    lat = result["latencies"]
    ms = lambda seconds: f"{seconds * 1000:.1f} ms"  # noqa: E731
    lines = [
        f"`serve --admission`, {reviews:,} reviews at {connections} concurrent keep-alive connections "
        f"(the {len(FIXTURES)} reviews of testdata/admission round robin, `--warn-on info`):",
        "",
        "| p50 | p90 | p99 | max | reviews/s | errors | RSS after warm-up / peak / end |",
        "|-----|-----|-----|-----|-----------|--------|--------------------------------|",
        f"| {ms(percentile(lat, 0.5))} | {ms(percentile(lat, 0.9))} | {ms(percentile(lat, 0.99))} | "
        f"{ms(lat[-1] if lat else float('nan'))} | {len(lat) / result['wall']:,.0f} | {len(result['errors'])} | "
        f"{after_warmup / 1024:.1f} / {max(peak) / 1024:.1f} / {end / 1024:.1f} MiB |",
        "",
        f"Load average before / after: {' '.join(f'{x:.2f}' for x in load_before)} / "
        f"{' '.join(f'{x:.2f}' for x in load_after)}. Wall time {result['wall']:.1f} s.",
    ]
    if result["errors"]:
        lines.append("")
        lines.append("First errors: " + "; ".join(result["errors"][:5]))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reviews", type=int, default=20_000, help="reviews posted (20,000)")
    parser.add_argument("--connections", type=int, default=64, help="concurrent connections (64)")
    parser.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "kubectl-mesh_lifecycle"))
    args = parser.parse_args(argv)
    print(run(args.binary, args.reviews, args.connections))


if __name__ == "__main__":
    main()
