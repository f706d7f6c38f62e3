"""A bounded memory soak of `fevga serve`: mixed good and hostile requests from a few client
threads for a fixed time, the server's resident memory sampled as it goes.

    python benchmarks/soak_http.py --seconds 600        # the 10-minute soak (docs/http.md)

Traffic goes to 127.0.0.1 only (the server is started here on a free port); the loop stops
after `--seconds` or `--max-requests`, whichever comes first, then the server is stopped.
Prints one line per sample and a summary: requests, refusals (4xx, expected: two in five of
the requests are hostile, and rollout jobs past the limit get 429), server errors (5xx, must be 0), and the RSS at the start (after
a warm-up of every route) and at the end. bench_http.py runs it for a few seconds as a
smoke test.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import random
import sys
import threading
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_http import API, start_server, stop_server  # noqa: E402
from corpus import ROLLS, midgame_positions  # noqa: E402

from fevga import batch  # noqa: E402
from fevga.game import play_game  # noqa: E402

MAX_SECONDS = 3600


def rss_kib(pid: int) -> int:
    """Resident set size of process `pid` in KiB (Linux /proc)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def _requests(seed: int) -> list[tuple[str, str, Any]]:
    """The mix one client cycles through: (method, path, JSON body or None)."""
    rng = random.Random(seed)
    positions = midgame_positions()[:200]
    record = play_game(seed=seed, policy="heuristic").to_json()
    mix: list[tuple[str, str, Any]] = []
    for k in range(40):
        p = positions[rng.randrange(len(positions))]
        a, b = ROLLS[rng.randrange(len(ROLLS))]
        mix += [("GET", f"{API}/hint?position={p.id}&dice={a}-{b}", None),
                ("GET", f"{API}/moves?position={p.id}&dice={a}-{b}", None),
                ("GET", f"{API}/evaluate?position={p.id}&plies={k % 2}", None),
                ("GET", f"{API}/hint?position=garbage{k}&dice={a}-{b}", None),  # hostile
                ("GET", f"{API}/moves?position={p.id}&dice=9-{b}", None)]  # hostile
        if k % 10 == 0:
            items = [{"position": q.id} for q in positions[k : k + 100]]
            chosen = positions[k : k + 100]
            bulk = {"rows": base64.b64encode(batch.to_array(chosen).tobytes()).decode(),
                    "dice_rows": base64.b64encode(bytes([1 + (k + j) % 6 for j in range(2 * len(chosen))])).decode()}
            mix += [("POST", f"{API}/evaluate", {"items": items}),
                    ("POST", f"{API}/hint", bulk),
                    ("POST", f"{API}/hint", {**bulk, "dice_rows": bulk["rows"]}),  # hostile: not dice
                    ("POST", f"{API}/analyse?evaluator=heuristic", record),
                    ("POST", f"{API}/moves", "{\"items\": [oops"),  # hostile
                    ("POST", f"{API}/rollouts", {"position": p.id, "games": 72, "seed": k})]
    return mix


def soak(seconds: float, clients: int = 8, max_requests: int = 10_000_000, sample_every: float = 10.0,
         echo: bool = True) -> dict[str, Any]:
    """Run the soak; returns the summary (also printed with `echo`)."""
    if not 0 < seconds <= MAX_SECONDS:
        raise ValueError(f"seconds {seconds} must be in (0, {MAX_SECONDS}]")
    proc, port = start_server()
    counts = {"requests": 0, "ok": 0, "refused": 0, "server_errors": 0}
    lock = threading.Lock()
    stop = threading.Event()

    def one(conn: http.client.HTTPConnection, method: str, path: str, body: Any) -> int:
        data = body if isinstance(body, str) or body is None else json.dumps(body)
        conn.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
        response = conn.getresponse()
        response.read()
        return response.status

    def client(k: int) -> None:
        mix = _requests(k)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        i = 0
        while not stop.is_set():
            method, path, body = mix[i % len(mix)]
            i += 1
            try:
                status = one(conn, method, path, body)
            except (ConnectionError, http.client.HTTPException):
                conn.close()
                continue
            with lock:
                counts["requests"] += 1
                kind = "ok" if status < 400 else "refused" if status < 500 else "server_errors"
                counts[kind] += 1
                if counts["requests"] >= max_requests:
                    stop.set()

    try:
        # warm-up: every route once, so that the start figure includes the loaded net and tables
        warm = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for method, path, body in _requests(99)[:30]:
            one(warm, method, path, body)
        warm.close()
        start_rss = rss_kib(proc.pid)
        began = time.monotonic()
        threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(clients)]
        for t in threads:
            t.start()
        samples = [(0.0, start_rss)]
        if echo:
            print(f"{'seconds':>8} {'requests':>9} {'rss_kib':>9}", flush=True)
            print(f"{0:8.0f} {0:9d} {start_rss:9d}", flush=True)
        while not stop.is_set() and time.monotonic() - began < seconds:
            stop.wait(min(sample_every, max(0.0, seconds - (time.monotonic() - began))))
            elapsed = time.monotonic() - began
            samples.append((elapsed, rss_kib(proc.pid)))
            if echo:
                print(f"{elapsed:8.0f} {counts['requests']:9d} {samples[-1][1]:9d}", flush=True)
        stop.set()
        for t in threads:
            t.join(timeout=120)
        end_rss = rss_kib(proc.pid)
    finally:
        stop.set()
        stop_server(proc)
    summary = {**counts, "seconds": samples[-1][0], "clients": clients, "rss_start_kib": start_rss,
               "rss_end_kib": end_rss, "rss_max_kib": max(r for _, r in samples),
               "requests_per_second": counts["requests"] / max(samples[-1][0], 1e-9)}
    if echo:
        print(json.dumps(summary), flush=True)
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=600.0, help="how long (at most %(default)s... 3600)")
    parser.add_argument("--clients", type=int, default=8, help="client threads (default: %(default)s)")
    parser.add_argument("--max-requests", type=int, default=10_000_000, help="stop after this many requests")
    args = parser.parse_args()
    summary = soak(args.seconds, args.clients, args.max_requests)
    return 0 if summary["server_errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
