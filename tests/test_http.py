"""`fevga serve` probed from outside: a real uvicorn on 127.0.0.1 (a free port), spoken to
with the standard library's HTTP client, every route with good and hostile input, many
clients at once, and Ctrl-C / SIGTERM.

Answers are checked against the package computed in-process and against the independent
rules oracle (tests/reference.py); every refusal must be a 4xx with a JSON error body.
"""

from __future__ import annotations

import http.client
import json
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

import reference as ref
import uvicorn
from fevga import GioulPosition, Position, analyse, evaluate, hint, rollout
from fevga.analyser import ApiEvaluator
from fevga.game import play_game
from fevga.records import write_match
from fevga.service.http import BodyLimit, Limits, create_app

API = "/api/v1"


class Server:
    """uvicorn serving create_app(limits) in a thread, on 127.0.0.1 and a free port."""

    def __init__(self, limits: Limits) -> None:
        import socket

        self.sock = socket.socket()
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        config = uvicorn.Config(BodyLimit(create_app(limits), limits.body_bytes), log_level="warning",
                                access_log=False, lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        assert not self.thread.is_alive()


def request(port: int, method: str, path: str, body: bytes | str | dict[str, Any] | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
    """(status, decoded body, headers) of one request."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = dict(headers or {})
    if isinstance(body, dict):
        body = json.dumps(body)
        headers.setdefault("Content-Type", "application/json")
    conn.request(method, path, body=body.encode() if isinstance(body, str) else body, headers=headers)
    response = conn.getresponse()
    raw = response.read()
    conn.close()
    kind = response.getheader("content-type", "")
    data: Any = raw
    if kind.startswith("application/json"):
        data = json.loads(raw)
    elif kind.startswith("text/"):
        data = raw.decode()
    return response.status, data, dict(response.getheaders())


def assert_refused(status: int, data: Any, code: str | None = None) -> None:
    """A 4xx with a JSON error body naming the problem."""
    assert 400 <= status < 500, (status, data)
    assert isinstance(data, dict) and set(data["error"]) == {"status", "code", "message"}, data
    assert data["error"]["status"] == status and data["error"]["message"]
    assert "Traceback" not in json.dumps(data)
    if code is not None:
        assert data["error"]["code"] == code, data


LIMITS = Limits(batch_positions=50, rollout_games=200_000, jobs=2, record_games=3, record_plies=400, seconds=20.0,
                body_bytes=256 * 1024, workers=2)


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    server = Server(LIMITS)
    yield server.port
    server.stop()


def get(port: int, path: str) -> tuple[int, Any]:
    status, data, _ = request(port, "GET", path)
    return status, data


# ---------------------------------------------------------------------- good input


def test_openapi_lists_every_route(port: int) -> None:
    status, spec = get(port, "/openapi.json")
    assert status == 200
    paths = spec["paths"]
    for route in ("moves", "evaluate", "hint", "rollouts", "rollouts/{job_id}", "analyse", "limits"):
        assert f"{API}/{route}" in paths
    assert set(paths[f"{API}/moves"]) == {"get", "post"}
    assert set(paths[f"{API}/rollouts/{{job_id}}"]) == {"get", "delete"}


def test_limits_are_served(port: int) -> None:
    status, data = get(port, f"{API}/limits")
    assert status == 200 and data["batch_positions"] == 50 and data["jobs"] == 2


def random_positions(seed: int, count: int) -> list[Position]:
    game = play_game(seed=seed, policy="random")
    positions = game.positions()[:-1]
    return random.Random(seed).sample(positions, min(count, len(positions)))


def test_moves_agree_with_the_oracle(port: int) -> None:
    rng = random.Random(5)
    for position in random_positions(1, 12):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        status, data = get(port, f"{API}/moves?position={position.id}&dice={dice[0]}-{dice[1]}")
        assert status == 200, data
        white, black = position.counts(0), position.counts(1)
        expected = ref.legal_results(white, black, position.turn, dice)
        got = set()
        for move in data["moves"]:
            after = Position.from_id(move["after"])
            got.add((after.counts(0), after.counts(1)))
        assert got == expected and data["count"] == len(expected)


def test_start_and_game(port: int) -> None:
    status, data = get(port, f"{API}/moves?position=start&dice=6-5")
    assert status == 200 and [m["move"] for m in data["moves"]] == ["24/13"]
    status, data = get(port, f"{API}/moves?position=start&dice=6-5&game=gioul")
    assert status == 200 and data["position"]["game"] == "gioul" and data["count"] == 2
    pending = GioulPosition.initial().rolled("5-5")
    status, data = get(port, f"{API}/moves?position={pending.id}")  # the ID tells the game
    assert status == 200 and {m["move"] for m in data["moves"]} == {m.notation for m in pending.legal_moves()}


def test_evaluate_and_hint_match_the_package(port: int) -> None:
    for position in random_positions(2, 4):
        for plies in (0, 1, 2):
            status, data = get(port, f"{API}/evaluate?position={position.id}&plies={plies}")
            assert status == 200
            e = evaluate(position, plies)
            assert (data["win"], data["win_mars"], data["lose_mars"]) == (e.win, e.win_mars, e.lose_mars)
        status, data = get(port, f"{API}/hint?position={position.id}&dice=3-1&plies=2")
        assert status == 200
        assert [m["move"] for m in data["moves"]] == [h.move.notation for h in hint(position, "3-1", 2)]


def test_gioul_evaluate_and_hint_are_the_shipped_gioul_nets(port: int) -> None:
    start = GioulPosition.initial()
    status, data = get(port, f"{API}/hint?position=start&dice=5-5&game=gioul")
    assert status == 200 and data["method"] == "net 1-ply"
    assert [m["move"] for m in data["moves"]] == [h.move.notation for h in hint(start, "5-5")]
    assert data["moves"][0]["equity"] == pytest.approx(hint(start, "5-5")[0].equity, abs=1e-12)
    pending = start.rolled("5-5")
    status, data = get(port, f"{API}/hint?position={pending.id}&after=true")
    assert status == 200 and data["moves"][0]["after"] == hint(pending, None)[0].move.position.id
    for state in (start, pending):
        status, data = get(port, f"{API}/evaluate?position={state.id}")
        assert status == 200 and data["equity"] == pytest.approx(evaluate(state).equity, abs=1e-12)
    status, data, _ = request(port, "POST", f"{API}/evaluate", {"items": [{"position": "start"}, {"position": pending.id}]})
    assert status == 200 and data["results"][1]["equity"] == pytest.approx(evaluate(pending).equity, abs=1e-12)
    assert data["results"][0]["equity"] == pytest.approx(evaluate(Position.initial()).equity, abs=1e-9)
    status, data = get(port, f"{API}/hint?position=start&game=gioul&dice=6-5&plies=2")  # every move: Gioul's
    assert status == 200 and data["method"] == "net 2-ply every move" and [m["move"] for m in data["moves"]] == \
        [h.move.notation for h in hint(GioulPosition.initial(), "6-5", plies=2, every_move=True)]
    status, data = get(port, f"{API}/hint?position=start&dice=6-5&plies=2")  # the move filter: Fevga's
    assert status == 200 and data["method"] == "net 2-ply" and [m["move"] for m in data["moves"]] == \
        [h.move.notation for h in hint(Position.initial(), "6-5", plies=2, every_move=False)]
    assert_refused(*get(port, f"{API}/evaluate?position=start&game=gioul&plies=3"), "plies_limit")
    status, data = get(port, f"{API}/hint?position=start&game=gioul&dice=6-5&plies=3")  # a move choice: one ply more
    assert status == 200 and [m["equity"] for m in data["moves"]] == \
        pytest.approx([h.equity for h in hint(GioulPosition.initial(), "6-5", plies=3)], abs=1e-12)
    assert_refused(*get(port, f"{API}/hint?position=start&game=gioul&dice=6-5&plies=4"), "plies_limit")


@pytest.mark.parametrize("game", ["fevga", "gioul"])
def test_quantised_requests_judge_with_the_quantised_net(port: int, game: str) -> None:
    """quantised=true (a query flag of evaluate and hint, a field of their POST bodies): the
    answers are the package's with the game's quantised net, item by item and in bulk."""
    import base64

    import numpy as np

    from fevga import Net, batch
    from fevga.game import play_game

    net = Net.default(game).quantised()
    # with contact: neither a race table nor a finished game overrides the net
    if game == "gioul":
        positions = [s for s in play_game(game="gioul", seed=5).positions() if s.winner() is None and not s.pending][4:10]
    else:
        positions = play_game(seed=4, policy="heuristic").positions()[6:42:6]
    p = positions[2]
    status, data = get(port, f"{API}/evaluate?position={p.id}&plies=1&quantised=true&game={game}")
    assert status == 200 and data["win"] == evaluate(p, 1, net=net).win != evaluate(p, 1).win
    status, data = get(port, f"{API}/hint?position={p.id}&dice=6-5&quantised=true&game={game}")
    assert status == 200 and [m["equity"] for m in data["moves"]] == [h.equity for h in hint(p, "6-5", net=net)]
    items = [{"position": q.id, "dice": "6-5"} for q in positions]
    status, data = request(port, "POST", f"{API}/evaluate", {"items": items, "quantised": True, "game": game})[:2]
    assert status == 200 and [r["win"] for r in data["results"]] == [evaluate(q, net=net).win for q in positions]
    rows = batch.to_array(positions)
    dice = np.array([[6, 5]] * len(positions), dtype=np.uint8)
    body = {"rows": base64.b64encode(rows.tobytes()).decode(), "game": game, "quantised": True}
    status, data = request(port, "POST", f"{API}/evaluate", body)[:2]
    values = np.frombuffer(base64.b64decode(data["values"]), dtype="<f8").reshape(-1, 3)
    assert status == 200 and np.array_equal(values, batch.evaluate(rows, net))
    body["dice_rows"] = base64.b64encode(dice.tobytes()).decode()
    status, data = request(port, "POST", f"{API}/hint", body)[:2]
    equities = np.frombuffer(base64.b64decode(data["equities"]), dtype="<f8")
    assert status == 200 and np.array_equal(equities, batch.hint(rows, dice, 1, net=net).equities)
    assert not np.array_equal(equities, batch.hint(rows, dice, 1).equities)
    assert_refused(*request(port, "POST", f"{API}/moves", {"items": items, "quantised": True})[:2], "invalid_request")


def test_every_move_hints_search_every_move(port: int) -> None:
    """every_move=true (a query flag of hint, a field of the POST hint body): the answers are
    fevga.hint's / fevga.batch.hint's with every move searched, item by item and in bulk; the
    method says so; left out, it is the game's default (every move in Gioul), and false is the
    move filter's; evaluate and moves refuse it."""
    import base64

    import numpy as np

    from fevga import batch
    from fevga.game import play_game

    positions = [s for s in play_game(game="gioul", seed=5).positions() if s.winner() is None and not s.pending][9:12]
    p = positions[0]
    expected = [(h.move.notation, h.plies, h.equity) for h in hint(p, "6-5", 2, every_move=True)]
    filtered = [(h.move.notation, h.plies, h.equity) for h in hint(p, "6-5", 2, every_move=False)]
    assert expected != filtered
    for flag in ("&every_move=true", ""):
        status, data = get(port, f"{API}/hint?position={p.id}&dice=6-5&plies=2{flag}")
        assert status == 200 and data["method"] == "net 2-ply every move"
        assert [(m["move"], m["plies"], m["equity"]) for m in data["moves"]] == expected
    status, data = get(port, f"{API}/hint?position={p.id}&dice=6-5&plies=2&every_move=false")
    assert status == 200 and data["method"] == "net 2-ply"
    assert [(m["move"], m["plies"], m["equity"]) for m in data["moves"]] == filtered
    items = [{"position": q.id, "dice": "6-5"} for q in positions]
    status, data = request(port, "POST", f"{API}/hint", {"items": items, "plies": 2, "every_move": True})[:2]
    assert status == 200 and [[m["equity"] for m in r["moves"]] for r in data["results"]] == \
        [[h.equity for h in hint(q, "6-5", 2, every_move=True)] for q in positions]
    rows = batch.to_array(positions)
    dice = np.array([[6, 5]] * len(positions), dtype=np.uint8)
    body = {"rows": base64.b64encode(rows.tobytes()).decode(), "dice_rows": base64.b64encode(dice.tobytes()).decode(),
            "game": "gioul", "plies": 2, "every_move": True}
    status, data = request(port, "POST", f"{API}/hint", body)[:2]
    equities = np.frombuffer(base64.b64decode(data["equities"]), dtype="<f8")
    assert status == 200 and np.array_equal(equities, batch.hint(rows, dice, 2, every_move=True).equities)
    for route in ("moves", "evaluate"):
        assert_refused(*request(port, "POST", f"{API}/{route}", {"items": items, "every_move": True})[:2],
                       "invalid_request")
        assert request(port, "POST", f"{API}/{route}", {"items": items, "every_move": False})[0] == 200  # the filter's
    assert_refused(*get(port, f"{API}/hint?position={p.id}&dice=6-5&every_move=maybe"), "invalid_request")
    status, data = get(port, f"{API}/hint?position=start&dice=6-5&plies=3&every_move=true")  # Fevga, asked for
    assert status == 200 and data["method"] == "net 3-ply every move" and [m["equity"] for m in data["moves"]] == \
        [h.equity for h in hint(Position.initial(), "6-5", 3, every_move=True)]
    record = play_game(seed=4, policy="heuristic")  # an analysis: every move of each decision at 2 plies
    status, data, _ = request(port, "POST", f"{API}/analyse?plies=2&every_move=true", record.to_json())
    expected = analyse(record, evaluator=ApiEvaluator(2, every_move=True))
    assert status == 200 and data["evaluator"] == "net 2-ply every move"
    assert data["players"] == json.loads(expected.to_json())["players"]
    assert_refused(*request(port, "POST", f"{API}/analyse?evaluator=heuristic&every_move=true", record.to_json())[:2],
                   "invalid_request")


def test_batches(port: int) -> None:
    positions = random_positions(3, 10)
    items = [{"position": p.id, "dice": "4-2"} for p in positions]
    status, data = request(port, "POST", f"{API}/moves", {"items": items})[:2]
    assert status == 200 and data["count"] == len(items)
    assert [r["count"] for r in data["results"]] == [len(p.legal_moves("4-2")) for p in positions]
    status, data = request(port, "POST", f"{API}/hint", {"items": items, "plies": 1})[:2]
    assert status == 200
    assert [r["moves"][0]["move"] for r in data["results"]] == [hint(p, "4-2")[0].move.notation for p in positions]
    for plies in (0, 1):
        status, data = request(port, "POST", f"{API}/evaluate", {"items": items, "plies": plies})[:2]
        assert status == 200
        assert [r["win"] for r in data["results"]] == pytest.approx([evaluate(p, plies).win for p in positions],
                                                                    abs=1e-12)
    import base64

    from fevga import batch

    rows = base64.b64encode(batch.to_array(positions).tobytes()).decode()
    status, data = request(port, "POST", f"{API}/evaluate", {"rows": rows})[:2]
    assert status == 200 and data["count"] == len(positions) and data["dtype"] == "<f8"
    import numpy as np

    values = np.frombuffer(base64.b64decode(data["values"]), dtype="<f8").reshape(-1, 3)
    assert values.tolist() == [[e.win, e.win_mars, e.lose_mars] for e in map(evaluate, positions)]
    dice = np.array([[4, 2]] * len(positions), dtype=np.uint8)
    bulk = {"rows": rows, "dice_rows": base64.b64encode(dice.tobytes()).decode()}
    status, data = request(port, "POST", f"{API}/moves", bulk)[:2]
    assert status == 200
    offsets = np.frombuffer(base64.b64decode(data["offsets"]), dtype="<i8")
    results = np.frombuffer(base64.b64decode(data["results"]), dtype=np.uint8).reshape(-1, batch.POSITION_WIDTH)
    for k, p in enumerate(positions):
        got = {Position._from_row(bytes(r)) for r in results[offsets[k]:offsets[k + 1]]}
        assert got == {m.position for m in p.legal_moves("4-2")}


def test_rollout_job_matches_the_package(port: int) -> None:
    body = {"position": "start", "games": 1296, "seed": 3, "policy": "heuristic"}
    status, job, headers = request(port, "POST", f"{API}/rollouts", body)
    assert status == 202 and headers["location"] == f"{API}/rollouts/{job['id']}"
    for _ in range(600):
        status, job = get(port, f"{API}/rollouts/{job['id']}")
        if job["status"] not in ("queued", "running"):
            break
        time.sleep(0.1)
    assert job["status"] == "done" and job["progress"] == 1.0
    expected = rollout(Position.initial(), games=1296, seed=3, workers=1, policy="heuristic", progress=False)
    assert job["result"]["equity"] == expected.equity
    status, listing = get(port, f"{API}/rollouts")
    assert status == 200 and job["id"] in {j["id"] for j in listing["jobs"]}


def test_rollout_of_every_move_and_cancel(port: int) -> None:
    body = {"position": "start", "dice": "5-5", "games": 72, "seed": 1}
    status, job, _ = request(port, "POST", f"{API}/rollouts", body)
    assert status == 202
    job = wait_job(port, job["id"])
    assert job["status"] == "done" and len(job["result"]["moves"]) == 2
    long = {"position": "start", "games": 200_000, "seed": 1, "policy": "net"}
    status, job, _ = request(port, "POST", f"{API}/rollouts", long)
    assert status == 202
    status, cancelled, _ = request(port, "DELETE", f"{API}/rollouts/{job['id']}")
    assert status == 200
    job = wait_job(port, job["id"])
    assert job["status"] == "cancelled"


def wait_job(port: int, job_id: str, seconds: float = 120) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        status, job = get(port, f"{API}/rollouts/{job_id}")
        assert status == 200
        if job["status"] not in ("queued", "running") or time.monotonic() > deadline:
            return job
        time.sleep(0.05)


def test_too_many_jobs(port: int) -> None:
    long = {"position": "start", "games": 200_000, "seed": 2, "policy": "net"}
    ids = []
    for _ in range(LIMITS.jobs):
        status, job, _ = request(port, "POST", f"{API}/rollouts", long)
        assert status == 202
        ids.append(job["id"])
    status, data, _ = request(port, "POST", f"{API}/rollouts", long)
    assert_refused(status, data, "too_many_jobs")
    assert status == 429
    for job_id in ids:
        request(port, "DELETE", f"{API}/rollouts/{job_id}")
    for job_id in ids:
        assert wait_job(port, job_id)["status"] == "cancelled"


def test_analyse_json_text_and_html(port: int) -> None:
    record = play_game(seed=4, policy="heuristic")
    status, data, _ = request(port, "POST", f"{API}/analyse?evaluator=heuristic", record.to_json())
    assert status == 200 and len(data["games"]) == 1 and "players" in data
    text = write_match(record)
    status, again, _ = request(port, "POST", f"{API}/analyse?evaluator=heuristic", text,
                               {"Content-Type": "text/plain"})
    assert status == 200 and again["players"] == data["players"]
    status, page, headers = request(port, "POST", f"{API}/analyse?format=html&evaluator=heuristic", record.to_json())
    assert status == 200 and headers["content-type"].startswith("text/html") and "<html" in page.lower()


# ---------------------------------------------------------------------- hostile input


HOSTILE_GETS = [
    (f"{API}/moves?position=garbage&dice=6-5", "invalid_notation"),
    (f"{API}/moves?position=f_8AAAD__gAAAAA!&dice=6-5", "invalid_notation"),
    (f"{API}/moves?position=" + "A" * 16 + "&dice=6-5", None),
    (f"{API}/moves?position=start&dice=7-1", "invalid_dice"),
    (f"{API}/moves?position=start&dice=0-0", "invalid_dice"),
    (f"{API}/moves?position=start&dice=six-five", "invalid_dice"),
    (f"{API}/moves?position=start&dice=" + "6" * 100, "invalid_request"),
    (f"{API}/moves?position=start", "missing_dice"),
    (f"{API}/moves?dice=6-5", "invalid_request"),
    (f"{API}/moves?position=" + "x" * 5000 + "&dice=6-5", "invalid_request"),
    (f"{API}/moves?position=%7B%22white%22%3A1%7D&dice=6-5", "invalid_notation"),
    (f"{API}/moves?position=f_8AAAD__gAAAAAAAABH&dice=6-5&game=fevga", "invalid_notation"),
    (f"{API}/moves?position=start&dice=6-5&game=backgammon", "invalid_request"),
    (f"{API}/evaluate?position=start&plies=99", "invalid_request"),
    (f"{API}/evaluate?position=start&plies=-1", "invalid_request"),
    (f"{API}/evaluate?position=start&plies=99999999999999999999999", "invalid_request"),
    (f"{API}/evaluate?position=start&plies=two", "invalid_request"),
    (f"{API}/hint?position=start&dice=6-5&plies=0", "invalid_request"),
    (f"{API}/hint?position=start&dice=6-5&plies=1000000", "invalid_request"),
    (f"{API}/hint?position=ABf-uAAVUCBd8AAA85hH&dice=6-5", "dice_pending"),
    (f"{API}/rollouts/no-such-job", "unknown_job"),
    (f"{API}/nowhere", "not_found"),
]


@pytest.mark.parametrize(("path", "code"), HOSTILE_GETS)
def test_hostile_queries(port: int, path: str, code: str | None) -> None:
    status, data = get(port, path)
    assert_refused(status, data, code)


def test_hot_routes_validate_their_queries_as_fastapi_does(port: int) -> None:
    # GET moves, evaluate and hint are answered before FastAPI's routing (HotRoutes): the same
    # pydantic validation and messages as FastAPI's query parameters, the same JSON errors
    status, data = get(port, f"{API}/evaluate?position=start&plies=two&game=chess")
    assert_refused(status, data, "invalid_request")
    assert data["error"]["message"] == ("query.plies: Input should be a valid integer, unable to parse string as an "
                                        "integer; query.game: Input should be 'fevga' or 'gioul'")
    status, data = get(port, f"{API}/hint?dice=6-5&plies=9")
    assert data["error"]["message"] == "query.position: Field required; query.plies: Input should be less than or equal to 4"
    status, data = get(port, f"{API}/hint?position=start&dice=6-5&after=perhaps")
    assert data["error"]["message"] == "query.after: Input should be a valid boolean, unable to interpret input"
    # a repeated parameter: the last one counts; an unknown one is ignored
    status, data = get(port, f"{API}/moves?position=start&dice=6-5&dice=5-5&color=red")
    assert status == 200 and data["dice"] == [5, 5] and data["count"] == 2
    # other methods go on to the app: POST is the batch form, the rest are refused
    for method in ("PUT", "DELETE"):
        assert_refused(*request(port, method, f"{API}/hint?position=start&dice=6-5")[:2], "method_not_allowed")
    # answered on the event loop (1 ply) and in a worker thread (2 plies) alike
    position = random_positions(3, 1)[0]
    for plies in (1, 2):
        status, data = get(port, f"{API}/hint?position={position.id}&dice=5-2&plies={plies}&after=1")
        assert status == 200 and [(m["move"], m["after"], m["equity"]) for m in data["moves"]] == [
            (h.move.notation, h.move.position.id, h.equity) for h in hint(position, "5-2", plies)]


def test_openapi_describes_the_hot_routes(port: int) -> None:
    operation = get(port, "/openapi.json")[1]["paths"][f"{API}/hint"]["get"]
    parameters = {p["name"]: p for p in operation["parameters"]}
    assert list(parameters) == ["position", "dice", "plies", "game", "rules", "after", "quantised", "every_move"]
    assert parameters["position"]["required"] and parameters["position"]["schema"]["maxLength"] == LIMITS.text_chars
    assert parameters["plies"]["schema"] == {"default": 1, "minimum": 1, "maximum": LIMITS.plies_hint,
                                             "title": "Plies", "type": "integer"}
    assert all(p["in"] == "query" and p["description"] for p in parameters.values())


def test_finished_position(port: int) -> None:
    done = Position.from_counts(ref.side({0: 15}), ref.side({0: 1, 12: 14}), 1)
    status, data = get(port, f"{API}/hint?position={done.id}&dice=6-5")
    assert_refused(status, data, "game_over")
    status, data = get(port, f"{API}/evaluate?position={done.id}")  # a finished game is scored
    assert status == 200 and data["win"] == 0.0


HOSTILE_POSTS: list[tuple[str, bytes | str | dict[str, Any], str | None]] = [
    ("moves", b"{", "invalid_request"),
    ("moves", b"[" * 100000 + b"]" * 100000, "invalid_request"),  # nested past the JSON parser's depth
    ("hint", b'{"items": ' + b"[" * 50000 + b"]" * 50000 + b"}", "invalid_request"),
    ("rollouts", b'{"a":' * 30000 + b"1" + b"}" * 30000, "invalid_request"),
    ("moves", b"", "invalid_request"),
    ("moves", b"\xff\xfe garbage", "invalid_request"),
    ("moves", b"[1, 2, 3]", "invalid_request"),
    ("moves", {"items": "start"}, "invalid_request"),
    ("moves", {"items": [{"position": 5}]}, "invalid_request"),
    ("moves", {"items": [{"position": "start", "dice": "6-5", "extra": 1}]}, "invalid_request"),
    ("moves", {"items": [{"position": "start", "dice": "6-5"}, {"position": "nope", "dice": "6-5"}]},
     "invalid_notation"),
    ("moves", {"items": [{"position": "start", "dice": "9-9"}]}, "invalid_dice"),
    ("moves", {"items": [{"position": "start", "dice": "6-5"}] * 51}, "batch_limit"),
    ("evaluate", {"items": [{"position": "start"}] * 51}, "batch_limit"),
    ("evaluate", {"items": [{"position": "start"}], "plies": 3}, "plies_limit"),
    ("evaluate", {"rows": "!!!not base64!!!"}, "invalid_rows"),
    ("evaluate", {"rows": "AAAA"}, "invalid_rows"),
    ("evaluate", {"rows": "/" * 68}, "invalid_position"),
    ("moves", {"rows": "f_8AAAD__gAAAAAA"}, "invalid_request"),
    ("moves", {"rows": "AAAA" * 17, "dice_rows": "BgU="}, None),  # a row of zeros: no checkers
    ("moves", {"rows": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAP", "dice_rows": "BwU="},
     "invalid_position"),
    ("hint", {"items": [{"position": "start"}]}, "missing_dice"),
    ("hint", {"items": [{"position": "start", "dice": "6-5"}], "plies": 10 ** 30}, "invalid_request"),
    ("rollouts", {"position": "start", "games": 0}, "invalid_request"),
    ("rollouts", {"position": "start", "games": 10 ** 12}, "games_limit"),
    ("rollouts", {"position": "start", "policy": "cheat"}, "invalid_request"),
    ("rollouts", {"position": "start", "game": "gioul", "policy": "lookahead"}, "unsupported"),
    ("rollouts", {"position": "start", "workers": 64}, "workers_limit"),
    ("rollouts", {"position": "garbage"}, "invalid_notation"),
    ("rollouts", {"position": "start", "dice": "7-7"}, "invalid_dice"),
    ("analyse", b"", "invalid_record"),
    ("analyse", b"{not json", "invalid_record"),
    ("analyse", b"\xff\xfe", "invalid_record"),
    ("analyse", b"[" * 10000 + b"]" * 10000, None),
    ("analyse", {"plies": [{"dice": [6, 5], "move": "24/13"}]}, "record"),
    ("analyse", "this is not a match\n1) 6-5: 24/13", None),
]


@pytest.mark.parametrize(("route", "body", "code"), HOSTILE_POSTS)
def test_hostile_bodies(port: int, route: str, body: Any, code: str | None) -> None:
    headers = {} if isinstance(body, dict) else {"Content-Type": "application/json"}
    status, data, _ = request(port, "POST", f"{API}/{route}", body, headers)
    assert_refused(status, data, code)


def test_batch_bodies_are_read_as_json_by_pydantic(port: int) -> None:
    # the batch routes parse their bodies themselves (one pydantic pass in a worker thread)
    body = json.dumps({"items": [{"position": "start", "dice": "6-5"}]})
    for headers in ({"Content-Type": "text/plain"}, {}):
        status, data, _ = request(port, "POST", f"{API}/hint", body, headers)
        assert_refused(status, data, "invalid_request")
    status, data, _ = request(port, "POST", f"{API}/hint", body, {"Content-Type": "application/json; charset=utf-8"})
    assert status == 200 and data["results"][0]["moves"][0]["move"] == "24/13"
    status, data, _ = request(port, "POST", f"{API}/moves", {"items": [{"position": 5}]})
    assert_refused(status, data, "invalid_request")
    assert data["error"]["message"] == "body.items.0.position: Input should be a valid string"
    spec = get(port, "/openapi.json")[1]
    for route in ("moves", "evaluate", "hint"):
        body_schema = spec["paths"][f"{API}/{route}"]["post"]["requestBody"]["content"]["application/json"]["schema"]
        assert body_schema == {"$ref": "#/components/schemas/BatchRequest"}
    assert spec["components"]["schemas"]["BatchRequest"]["properties"]["items"]["items"] == {
        "$ref": "#/components/schemas/BatchItem"}


def test_hostile_analyse_limits_and_games(port: int) -> None:
    gioul = play_game(game="gioul", seed=1)
    status, data, _ = request(port, "POST", f"{API}/analyse?graphs=true", gioul.to_json())
    assert status == 200 and data["evaluator"] == "net 1-ply", data
    plies = data["games"][0]["plies"]
    assert [p["kind"] for p in plies] == [d.kind for d in gioul.decisions] and "<svg" in data["games"][0]["graph"]
    assert data["players"] == analyse(gioul).to_dict()["players"]
    status, page, _ = request(port, "POST", f"{API}/analyse?format=html", write_match(gioul))
    assert status == 200 and page.startswith("<!DOCTYPE html>") and "<svg" in page
    status, data, _ = request(port, "POST", f"{API}/analyse?evaluator=heuristic", gioul.to_json())
    assert_refused(status, data, "unsupported")  # the heuristic evaluator judges Fevga only
    from fevga.game import play_match

    match = play_match(7, seed=2, policy="heuristic")
    assert len(match.games) > LIMITS.record_games
    status, data, _ = request(port, "POST", f"{API}/analyse", match.to_json())
    assert_refused(status, data, "record_limit")
    status, data, _ = request(port, "POST", f"{API}/analyse?plies=3", play_game(seed=1).to_json())
    assert_refused(status, data, "invalid_request")


def _raw_response(port: int, message: bytes) -> tuple[int, Any]:
    """(status, decoded JSON body) of one raw HTTP/1.1 message, sent whole before reading."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(message)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, json.loads(response.read())


def test_oversized_bodies(port: int) -> None:
    # The server answers 413 without reading past the limit and closes. Each client here sends
    # only what the server reads before it answers: had it sent more, the close could reset the
    # connection before the client read the answer (as a real client then sees).
    head = f"POST {API}/moves HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    # a declared length over the limit: refused from the header alone
    status, data = _raw_response(port, f"{head}Content-Length: {LIMITS.body_bytes + 1}\r\n\r\n".encode())
    assert_refused(status, data, "body_too_large")
    assert status == 413
    # no length, chunked: refused once one byte past the limit has arrived
    size = LIMITS.body_bytes + 1
    status, data = _raw_response(port, f"{head}Transfer-Encoding: chunked\r\n\r\n{size:x}\r\n".encode() + b"[" * size)
    assert_refused(status, data, "body_too_large")
    assert status == 413
    # a lying Content-Length
    status, data, _ = request(port, "POST", f"{API}/moves", b"{}", {"Content-Length": "nonsense",
                                                                   "Content-Type": "application/json"})
    assert 400 <= status < 500


def test_time_limit() -> None:
    server = Server(Limits(seconds=0.01, workers=1))
    try:
        # 42 moves searched 4 plies deep: seconds of work
        status, data = get(server.port, f"{API}/hint?position=fMNKIBQD_AB8RAAA&dice=2-1&plies=4")
        assert_refused(status, data, "time_limit")
        assert status == 408
    finally:
        server.stop()


# ---------------------------------------------------------------------- concurrency


def test_many_clients_at_once(port: int) -> None:
    positions = random_positions(6, 8)
    expected = {p.id: hint(p, "6-3")[0].move.notation for p in positions}

    def client(k: int) -> list[tuple[int, str, str]]:
        out = []
        for j in range(6):
            p = positions[(k + j) % len(positions)]
            status, data = get(port, f"{API}/hint?position={p.id}&dice=6-3")
            out.append((status, p.id, data["moves"][0]["move"] if status == 200 else json.dumps(data)))
        return out

    with ThreadPoolExecutor(32) as pool:
        answers = [a for batch in pool.map(client, range(32)) for a in batch]
    assert len(answers) == 32 * 6
    assert all(status == 200 and move == expected[pid] for status, pid, move in answers)


# ---------------------------------------------------------------------- the command


def start_cli() -> tuple[subprocess.Popen[bytes], int]:
    proc = subprocess.Popen([sys.executable, "-m", "fevga", "serve", "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stderr is not None
    line = proc.stderr.readline().decode()
    assert "listening on http://127.0.0.1:" in line, line
    port = int(line.split("http://127.0.0.1:")[1].split()[0])
    deadline = time.monotonic() + 60
    while True:  # the socket is bound before uvicorn serves: wait for the first answer
        try:
            if get(port, f"{API}/limits")[0] == 200:
                return proc, port
        except OSError:
            assert time.monotonic() < deadline
            time.sleep(0.1)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_fevga_serve_stops_cleanly_and_cancels_jobs(sig: signal.Signals) -> None:
    proc, port = start_cli()
    try:
        status, job, _ = request(port, "POST", f"{API}/rollouts",
                                 {"position": "start", "games": 1_000_000, "policy": "net", "workers": 1})
        assert status == 202
        time.sleep(0.5)
        began = time.monotonic()
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert b"Traceback" not in err and b"stopped" in err
        assert time.monotonic() - began < 60
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_fevga_serve_binds_localhost_by_default() -> None:
    from fevga.cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1"


def test_hostile_bulk_moves(port: int) -> None:
    import base64

    from fevga import batch

    start = base64.b64encode(batch.to_array([Position.initial()] * 2).tobytes()).decode()
    for dice, code in ((b"\x07\x05\x06\x05", "invalid_dice"), (b"\x06\x05", "invalid_dice"),
                       (b"\x06\x05" * 60, "batch_limit"), (b"\x06", "invalid_rows")):
        body = {"rows": start, "dice_rows": base64.b64encode(dice).decode()}
        status, data, _ = request(port, "POST", f"{API}/moves", body)
        assert_refused(status, data, code)


def test_bulk_answers_as_raw_bytes(port: int) -> None:
    import base64

    import numpy as np

    from fevga import batch

    positions = random_positions(7, 6)
    rows = batch.to_array(positions)
    dice = np.array([[6, 1]] * len(positions), dtype=np.uint8)
    body = {"rows": base64.b64encode(rows.tobytes()).decode(), "dice_rows": base64.b64encode(dice.tobytes()).decode()}
    raw_headers = {"Accept": "application/octet-stream"}
    status, raw, headers = request(port, "POST", f"{API}/moves", body, raw_headers)
    assert status == 200 and headers["content-type"] == "application/octet-stream"
    n, m = int(headers["x-fevga-count"]), int(headers["x-fevga-moves"])
    expected = batch.legal_moves(rows, dice)
    width = batch.POSITION_WIDTH
    data = raw
    assert len(data) == 8 * (n + 1) + m * (width + 8 + 1)
    assert np.array_equal(np.frombuffer(data[: 8 * (n + 1)], dtype="<i8"), expected.offsets)
    assert np.array_equal(np.frombuffer(data[8 * (n + 1): 8 * (n + 1) + m * width], dtype=np.uint8).reshape(m, width),
                          expected.results)
    status, raw, headers = request(port, "POST", f"{API}/evaluate", {"rows": body["rows"]}, raw_headers)
    data = raw
    assert status == 200 and int(headers["x-fevga-count"]) == len(positions)
    assert np.array_equal(np.frombuffer(data, dtype="<f8").reshape(-1, 3), batch.evaluate(rows))


def _hint_arrays(data: bytes, n: int, m: int, width: int = 51) -> list[Any]:
    """The seven arrays of a raw bulk hint answer (docs/http.md "Bulk"); results `width` bytes a row."""
    import numpy as np

    shapes = [("<i8", (n + 1,)), ("u1", (m, width)), ("u1", (m, 4, 2)), ("u1", (m,)),
              ("<f8", (m, 3)), ("<f8", (m,)), ("i1", (m,))]
    arrays, at = [], 0
    for dtype, shape in shapes:
        size = int(np.dtype(dtype).itemsize * np.prod(shape))
        arrays.append(np.frombuffer(data[at:at + size], dtype=dtype).reshape(shape))
        at += size
    assert at == len(data)
    return arrays


@pytest.mark.parametrize("plies", [1, 2])
def test_bulk_hint_is_the_batch_hint(port: int, plies: int, game: str) -> None:
    """POST hint with rows and dice_rows answers fevga.batch.hint's arrays, in base64 JSON and
    as raw bytes, best move first, as fevga.hint ranks each pair; Gioul state rows with
    game=gioul."""
    import base64

    import numpy as np

    from fevga import batch
    from fevga.game import play_game

    if game == "gioul":
        positions = [s for s in play_game(game="gioul", seed=11).positions() if s.winner() is None][::4 if plies == 1 else 12]
    else:
        positions = random_positions(11, 40 if plies == 1 else 6)
    rows = batch.to_array(positions)
    dice = np.random.default_rng(plies).integers(1, 7, size=(len(rows), 2)).astype(np.uint8)
    body = {"rows": base64.b64encode(rows.tobytes()).decode(), "dice_rows": base64.b64encode(dice.tobytes()).decode(),
            "plies": plies, "game": game}
    expected = batch.hint(rows, dice, plies)
    arrays = [expected.offsets, expected.results, expected.steps, expected.nsteps, expected.values,
              expected.equities, expected.plies]
    status, data, _ = request(port, "POST", f"{API}/hint", body)
    assert status == 200 and data["count"] == len(rows) and data["moves"] == int(expected.offsets[-1])
    names = ("offsets", "results", "steps", "nsteps", "values", "equities", "plies")
    for name, array in zip(names, arrays):
        got = np.frombuffer(base64.b64decode(data[name]), dtype=array.dtype.newbyteorder("<")).reshape(array.shape)
        assert np.array_equal(got, array), name
    status, raw, headers = request(port, "POST", f"{API}/hint", body, {"Accept": "application/octet-stream"})
    assert status == 200 and headers["content-type"] == "application/octet-stream"
    got = _hint_arrays(raw, int(headers["x-fevga-count"]), int(headers["x-fevga-moves"]), rows.shape[1])
    assert all(np.array_equal(a, b) for a, b in zip(got, arrays))
    for k, p in enumerate(positions[:5]):  # the best of each pair is the hint's best
        if p.winner() is None:
            roll = None if getattr(p, "pending", ()) else tuple(dice[k])
            best = hint(p, roll, plies)[0].move.position
            assert batch.from_array(got[1][got[0][k]][None])[0] == best


def test_hostile_bulk_hint(port: int) -> None:
    import base64

    from fevga import batch

    rows = batch.to_array([Position.initial()] * 3)
    good = {"rows": base64.b64encode(rows.tobytes()).decode(), "dice_rows": base64.b64encode(b"\x06\x05" * 3).decode()}
    for body, code in (({**good, "items": [{"position": "start", "dice": "6-5"}]}, "invalid_request"),
                       ({**good, "after": True}, "invalid_request"),
                       ({**good, "plies": 0}, "invalid_request"),
                       ({**good, "plies": 3}, "plies_limit"),
                       ({"rows": good["rows"]}, "invalid_request"),
                       ({**good, "dice_rows": base64.b64encode(b"\x06\x05\x06\x05\x00\x05").decode()},
                        "invalid_dice"),
                       ({**good, "dice_rows": "BgU="}, "invalid_dice"),
                       ({**good, "rows": "AAAA" * 17 * 3}, "invalid_position"),
                       ({**good, "rows": "@@@@"}, "invalid_rows"),
                       ({**good, "game": "gioul"}, "invalid_rows"),  # 51-byte rows are no Gioul states
                       ({**good, "game": "gioul", "rules": "strict"}, "unsupported")):
        status, data, _ = request(port, "POST", f"{API}/hint", body)
        assert_refused(status, data, code)
    status, data, _ = request(port, "POST", f"{API}/hint", {**good, "dice_rows": base64.b64encode(
        b"\x06\x05\x06\x05\x00\x05").decode()})
    assert "row 2" in data["error"]["message"]


def test_bulk_hint_stops_when_its_time_is_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the time limit the bulk hint stops within one slice of rows (its `stop` is set
    when the request is answered) and the request gets a 408."""
    import base64

    import numpy as np

    from fevga import batch
    from fevga.service.errors import ApiError
    from fevga.service.http import _hint_rows

    rows = base64.b64encode(batch.to_array(random_positions(3, 4)).tobytes()).decode()
    dice = base64.b64encode(np.full((4, 2), 3, dtype=np.uint8).tobytes()).decode()
    stop = threading.Event()
    stop.set()
    with pytest.raises(ApiError, match="ran out of time") as caught:
        _hint_rows(rows, dice, 1, "fevga", LIMITS, False, None, stop)
    assert caught.value.status == 408
    # time runs out during the first slice: the second is never ranked
    calls = []
    ranked = batch.hint

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(len(args[0]))
        stop.set()
        return ranked(*args, **kwargs)

    stop.clear()
    many_rows = batch.to_array((random_positions(3, 40) * 20)[:600])
    many_dice = np.full((len(many_rows), 2), 3, dtype=np.uint8)
    monkeypatch.setattr(batch, "hint", counted)
    with pytest.raises(ApiError, match="ran out of time"):
        _hint_rows(base64.b64encode(many_rows.tobytes()).decode(), base64.b64encode(many_dice.tobytes()).decode(), 1,
                   "fevga", Limits(batch_positions=1000), False, None, stop)
    assert calls == [256]  # one slice of HINT_SLICE_ROWS, then the stop was seen
    monkeypatch.undo()
    many = batch.to_array((random_positions(3, 40) * 50)[:1000])  # about a second at 2 plies
    dice = base64.b64encode(np.full((len(many), 2), 3, dtype=np.uint8).tobytes()).decode()
    many = base64.b64encode(many.tobytes()).decode()
    server = Server(Limits(seconds=0.01, workers=1))
    try:
        status, data, _ = request(server.port, "POST", f"{API}/hint", {"rows": many, "dice_rows": dice, "plies": 2})
        assert_refused(status, data, "time_limit")
    finally:
        server.stop()


def test_empty_bulk_answers_as_raw_bytes(port: int) -> None:
    # no rows: the arrays are empty (moves: the one offset 0), sent all the same
    raw_headers = {"Accept": "application/octet-stream"}
    status, raw, headers = request(port, "POST", f"{API}/evaluate", {"rows": ""}, raw_headers)
    assert status == 200 and raw == b"" and headers["x-fevga-count"] == "0"
    status, raw, headers = request(port, "POST", f"{API}/moves", {"rows": "", "dice_rows": ""}, raw_headers)
    assert status == 200 and raw == bytes(8) and headers["x-fevga-moves"] == "0"


def test_rules_presets(port: int) -> None:
    # docs/rules.md 9, release: the runner on 14 with 2-1 has one move by default, two with reach
    path = f"{API}/moves?position=f_4AQAAAAAH__AAA&dice=2-1"
    assert get(port, path)[1]["count"] == 1
    assert {m["move"] for m in get(port, path + "&rules=strict")[1]["moves"]} == {"14/11", "24/23 14/12"}
    status, data = request(port, "POST", f"{API}/moves", {"items": [{"position": "f_4AQAAAAAH__AAA", "dice": "2-1"}],
                                                          "rules": "strict"})[:2]
    assert status == 200 and data["results"][0]["count"] == 2
    assert_refused(*get(port, path + "&rules=cheating"), "invalid_request")
    assert_refused(*get(port, f"{API}/moves?position=start&dice=6-5&game=gioul&rules=strict"), "unsupported")


def test_fevga_serve_without_the_extra_says_what_to_install() -> None:
    code = ("import sys; sys.modules['fastapi'] = None\n"
            "from fevga.cli import main\nsys.exit(main(['serve', '--port', '0']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert proc.returncode == 2
    assert b"pip install 'fevga[serve]'" in proc.stderr and b"Traceback" not in proc.stderr
