"""`fevga serve` benchmarks (docs/http.md "Speed"): 32 concurrent clients asking `hint`
(latency percentiles, no errors), and the batch endpoints' throughput against the Python
batch API computing the same in one run (ratios, so that a noisy host cancels).

The server is `python -m fevga serve --port 0` in a subprocess on 127.0.0.1; the clients are
threads of this process with keep-alive connections (the standard library's client). Traffic
goes to 127.0.0.1 only, in loops bounded in count.

Run the targets:
    FEVGA_BENCH_FULL=1 python -m pytest benchmarks/bench_http.py --benchmark-enable -s
As smoke tests (the default; CI) the sizes are reduced and the answers still checked.
The 10-minute memory soak is a script: python benchmarks/soak_http.py --seconds 600.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from corpus import ROLLS, midgame_positions

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from fevga import Position, batch, hint

FULL = os.environ.get("FEVGA_BENCH_FULL") == "1"
CLIENTS = 32
REQUESTS_PER_CLIENT = 100 if FULL else 5
BATCH = 10_000 if FULL else 1000
API = "/api/v1"


def start_server(*args: str) -> tuple[subprocess.Popen[bytes], int]:
    """`fevga serve --port 0` and the port it listens on, once it answers."""
    proc = subprocess.Popen([sys.executable, "-m", "fevga", "serve", "--port", "0", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    line = proc.stderr.readline().decode()
    port = int(line.split("http://127.0.0.1:")[1].split()[0])
    deadline = time.monotonic() + 60
    while True:
        try:
            if Client(port).get(f"{API}/limits")[0] == 200:
                return proc, port
        except OSError:
            assert time.monotonic() < deadline, "the server did not answer"
            time.sleep(0.1)


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    proc.wait(timeout=60)


class Client:
    """One keep-alive connection (opened again if the server closed it while idle)."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def _send(self, method: str, path: str, body: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                return response.status, json.loads(response.read())
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                self.conn.close()  # uvicorn closes a keep-alive connection idle for 5 s
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def get(self, path: str) -> tuple[int, Any]:
        return self._send("GET", path)

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        return self._send("POST", path, json.dumps(body))

    def post_raw(self, path: str, body: dict[str, Any]) -> tuple[int, bytes, dict[str, str]]:
        """A bulk request answered as raw bytes (Accept: application/octet-stream)."""
        for attempt in (1, 2):
            try:
                self.conn.request("POST", path, body=json.dumps(body), headers={
                    "Content-Type": "application/json", "Accept": "application/octet-stream"})
                response = self.conn.getresponse()
                return response.status, response.read(), {k.lower(): v for k, v in response.getheaders()}
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                self.conn.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    proc, port = start_server()
    yield port
    stop_server(proc)


def _report(benchmark: Any, name: str, **values: float) -> None:
    benchmark.extra_info.update(values)
    print(f"\n{name}: " + ", ".join(f"{k} {v:.4g}" for k, v in values.items()))


def test_http_hint_32_clients(benchmark: Any, server: int) -> None:
    """32 clients at once, each asking `hint` (1 ply) for corpus positions and rolls."""
    positions = midgame_positions()[:64]
    queries = [(p, ROLLS[k % len(ROLLS)]) for k, p in enumerate(positions)]
    expected = {(p.id, d): hint(p, d)[0].move.notation for p, d in queries}
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()

    def client(k: int) -> None:
        conn = Client(server)
        mine = []
        for j in range(REQUESTS_PER_CLIENT):
            position, dice = queries[(k * 7 + j) % len(queries)]
            began = time.perf_counter()
            status, data = conn.get(f"{API}/hint?position={position.id}&dice={dice[0]}-{dice[1]}")
            mine.append(time.perf_counter() - began)
            if status != 200 or data["moves"][0]["move"] != expected[(position.id, dice)]:
                with lock:
                    errors.append(f"{status} {json.dumps(data)[:200]}")
        with lock:
            latencies.extend(mine)

    def run() -> float:
        threads = [threading.Thread(target=client, args=(k,)) for k in range(CLIENTS)]
        began = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.perf_counter() - began

    elapsed = benchmark.pedantic(run, rounds=1, iterations=1)
    assert not errors, errors[:3]
    assert len(latencies) == CLIENTS * REQUESTS_PER_CLIENT
    ms = sorted(1000 * x for x in latencies)
    _report(benchmark, "http hint, 32 clients", requests=len(ms), p50_ms=statistics.median(ms),
            p90_ms=ms[int(0.90 * (len(ms) - 1))], p99_ms=ms[int(0.99 * (len(ms) - 1))], max_ms=ms[-1],
            requests_per_second=len(ms) / elapsed)


def _best_of(fn: Any, rounds: int = 3) -> float:
    times = []
    for _ in range(rounds):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
    return min(times)


def test_http_batch_evaluate_throughput(benchmark: Any, server: int) -> None:
    """POST evaluate of BATCH positions (as IDs, and as base64 rows) against the Python batch
    API on the same input: fevga.batch.evaluate of the IDs' positions (parsed), and of the array."""
    positions = [midgame_positions()[k % 1000] for k in range(BATCH)]
    ids = [p.id for p in positions]
    rows = batch.to_array(positions)
    conn = Client(server)
    expected = batch.evaluate(rows)

    def http_ids() -> None:
        status, data = conn.post(f"{API}/evaluate", {"items": [{"position": i} for i in ids]})
        assert status == 200 and data["results"][-1]["win"] == float(expected[-1, 0])

    encoded = base64.b64encode(rows.tobytes()).decode()

    def http_rows() -> None:
        status, data = conn.post(f"{API}/evaluate", {"rows": encoded})
        values = batch.np.frombuffer(base64.b64decode(data["values"]), dtype="<f8").reshape(-1, 3)
        assert status == 200 and values[-1, 0] == expected[-1, 0]

    def http_raw() -> None:
        status, raw, headers = conn.post_raw(f"{API}/evaluate", {"rows": encoded})
        assert status == 200 and int(headers["x-fevga-count"]) == BATCH
        assert batch.np.frombuffer(raw, dtype="<f8").reshape(-1, 3)[-1, 0] == expected[-1, 0]

    def python_ids() -> None:
        batch.evaluate(batch.to_array([Position.from_id(i) for i in ids]))

    def python_rows() -> None:
        batch.evaluate(rows)

    benchmark.pedantic(http_rows, rounds=1, iterations=1)
    t = {name: _best_of(fn) for name, fn in (("http_ids", http_ids), ("http_rows", http_rows), ("http_raw", http_raw),
                                               ("python_ids", python_ids), ("python_rows", python_rows))}
    _report(benchmark, f"batch evaluate of {BATCH}", **{f"{k}_per_second": BATCH / v for k, v in t.items()},
            ratio_ids=t["python_ids"] / t["http_ids"], ratio_rows=t["python_rows"] / t["http_rows"],
            ratio_raw=t["python_rows"] / t["http_raw"])


def test_http_batch_moves_throughput(benchmark: Any, server: int) -> None:
    """POST moves of BATCH (position, dice) pairs: as items against the Python API giving the
    same answer (every legal move's notation and resulting ID of each pair), and in the bulk
    form (base64 rows and dice in, base64 arrays out) against fevga.batch.legal_moves."""
    positions = [midgame_positions()[k % 1000] for k in range(BATCH)]
    dice = [ROLLS[k % len(ROLLS)] for k in range(BATCH)]
    text_count = BATCH // 5  # the text form writes every move's ID: far slower, measured on fewer
    items = [{"position": p.id, "dice": f"{a}-{b}"} for p, (a, b) in zip(positions[:text_count], dice)]
    conn = Client(server)
    total = sum(p.count_legal_moves(d) for p, d in zip(positions, dice))
    text_total = sum(p.count_legal_moves(d) for p, d in zip(positions[:text_count], dice))

    def http() -> None:
        status, data = conn.post(f"{API}/moves", {"items": items})
        assert status == 200 and sum(r["count"] for r in data["results"]) == text_total

    def python_text() -> None:
        out = [[(m.notation, m.position.id) for m in Position.from_id(p.id).legal_moves(d)]
               for p, d in zip(positions[:text_count], dice)]
        assert sum(map(len, out)) == text_total

    rows = batch.to_array(positions)
    rolls = batch.np.array(dice, dtype=batch.np.uint8)
    bulk = {"rows": base64.b64encode(rows.tobytes()).decode(), "dice_rows": base64.b64encode(rolls.tobytes()).decode()}

    def http_rows() -> None:
        status, data = conn.post(f"{API}/moves", bulk)
        assert status == 200 and data["moves"] == total
        assert len(base64.b64decode(data["results"])) == total * batch.POSITION_WIDTH

    def http_raw() -> None:
        status, raw, headers = conn.post_raw(f"{API}/moves", bulk)
        assert status == 200 and int(headers["x-fevga-moves"]) == total
        n = int(headers["x-fevga-count"])
        offsets = batch.np.frombuffer(raw, dtype="<i8", count=n + 1)
        results = batch.np.frombuffer(raw, dtype=batch.np.uint8, count=total * batch.POSITION_WIDTH,
                                      offset=8 * (n + 1)).reshape(total, batch.POSITION_WIDTH)
        assert offsets[-1] == total and results.shape[0] == total

    def python_arrays() -> None:
        assert int(batch.legal_moves(rows, rolls).counts().sum()) == total

    benchmark.pedantic(http_rows, rounds=1, iterations=1)
    t = {name: _best_of(fn) for name, fn in (("http", http), ("python_text", python_text), ("http_rows", http_rows),
                                               ("http_raw", http_raw), ("python_arrays", python_arrays))}
    sizes = {"http": text_count, "python_text": text_count, "http_rows": BATCH, "http_raw": BATCH,
             "python_arrays": BATCH}
    _report(benchmark, f"batch moves ({text_count} as text, {BATCH} in bulk)",
            **{f"{k}_per_second": sizes[k] / v for k, v in t.items()},
            ratio_text=t["python_text"] / t["http"], ratio_rows=t["python_arrays"] / t["http_rows"],
            ratio_raw=t["python_arrays"] / t["http_raw"])


def test_http_batch_hint_throughput(benchmark: Any, server: int) -> None:
    """POST hint (1 ply) of (position, dice) pairs: BATCH / 4 as items against fevga.hint called
    for each (the same answer: every pair's best move), and BATCH in the bulk form (base64 rows
    and dice in, ranked arrays out, in base64 JSON and as raw bytes) against fevga.batch.hint."""
    count = BATCH // 4
    positions = [midgame_positions()[k % 1000] for k in range(BATCH)]
    dice = [ROLLS[k % len(ROLLS)] for k in range(BATCH)]
    items = [{"position": p.id, "dice": f"{a}-{b}"} for p, (a, b) in zip(positions[:count], dice)]
    conn = Client(server)
    best = [hint(p, d)[0].move.notation for p, d in zip(positions[:count], dice)]

    def http() -> None:
        status, data = conn.post(f"{API}/hint", {"items": items})
        assert status == 200 and [r["moves"][0]["move"] for r in data["results"]] == best

    def python() -> None:
        assert [hint(Position.from_id(p.id), d)[0].move.notation for p, d in zip(positions[:count], dice)] == best

    rows = batch.to_array(positions)
    rolls = batch.np.array(dice, dtype=batch.np.uint8)
    expected = batch.hint(rows, rolls)
    total = int(expected.offsets[-1])
    bulk = {"rows": base64.b64encode(rows.tobytes()).decode(), "dice_rows": base64.b64encode(rolls.tobytes()).decode()}

    def http_rows() -> None:
        status, data = conn.post(f"{API}/hint", bulk)
        assert status == 200 and data["moves"] == total
        equities = batch.np.frombuffer(base64.b64decode(data["equities"]), dtype="<f8")
        assert equities[-1] == expected.equities[-1]

    def http_raw() -> None:
        status, raw, headers = conn.post_raw(f"{API}/hint", bulk)
        assert status == 200 and int(headers["x-fevga-moves"]) == total
        n = int(headers["x-fevga-count"])
        results = batch.np.frombuffer(raw, dtype=batch.np.uint8, count=total * batch.POSITION_WIDTH,
                                      offset=8 * (n + 1)).reshape(total, batch.POSITION_WIDTH)
        assert batch.np.array_equal(results[-1], expected.results[-1])

    def python_arrays() -> None:
        assert int(batch.hint(rows, rolls).offsets[-1]) == total

    benchmark.pedantic(http_rows, rounds=1, iterations=1)
    t = {name: _best_of(fn) for name, fn in (("http", http), ("python", python), ("http_rows", http_rows),
                                               ("http_raw", http_raw), ("python_arrays", python_arrays))}
    sizes = {"http": count, "python": count, "http_rows": BATCH, "http_raw": BATCH, "python_arrays": BATCH}
    _report(benchmark, f"batch hint ({count} as items, {BATCH} in bulk)",
            **{f"{k}_per_second": sizes[k] / v for k, v in t.items()},
            ratio=t["python"] / t["http"], ratio_rows=t["python_arrays"] / t["http_rows"],
            ratio_raw=t["python_arrays"] / t["http_raw"])


def test_http_memory_soak(benchmark: Any) -> None:
    """The memory soak of soak_http.py, for a few seconds (the 10-minute run is the script)."""
    from soak_http import soak

    summary = benchmark.pedantic(soak, args=(600.0 if FULL else 5.0,), kwargs={"echo": False}, rounds=1,
                                 iterations=1)
    assert summary["server_errors"] == 0 and summary["ok"] > 0 and summary["refused"] > 0
    _report(benchmark, "http soak", **{k: float(v) for k, v in summary.items()})
