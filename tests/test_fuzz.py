"""Fuzzing of the public API, the file readers and the command line (issue 19, "Fuzzing in CI").

Where tests/test_core_surface.py fuzzes the compiled core for memory safety (anything but a
crash passes), this file holds the public surface to its contract: a call either works, with a
consistent answer, or raises a `FevgaError`; a command either succeeds or prints one line and
exits 2. Inputs come from hypothesis strategies (hostile values, structured JSON, mutated valid
files); every input that ever failed is kept as an `@example` regression case.

Bounded in time for CI: FEVGA_FUZZ_EXAMPLES (default 60) examples per test, about a minute in
all; raise it for a longer local run. `.ci/sanitize` runs this file under ASan and UBSan.
"""

from __future__ import annotations

import functools
import io
import json
import os
import tempfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import fevga
import fevga.batch
import fevga.gioul
from fevga import FevgaError, GioulPosition, Net, Position, Rules
from fevga.bearoff import OneSidedDB, TwoSidedDB, open_db
from fevga.cli import main
from fevga.game import play_game, play_match
from fevga.notation import parse_dice, parse_paths
from fevga.records import parse_record, write_match

EXAMPLES = int(os.environ.get("FEVGA_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])

HOSTILE = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**80), 2**80), st.sampled_from([10**12, -1, 0, 7, 2**63, 2**64]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30), st.binary(max_size=60),
    st.lists(st.integers(-20, 20), max_size=30), st.just(GioulPosition.initial()), st.just(Position.initial()),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3), st.sampled_from(["\u00b2", "\u0661", "6-5", "start"]),
)


def _contract(call: Any) -> Any:
    """Run `call`: a result, or None after a FevgaError; any other exception fails the test."""
    try:
        return call()
    except FevgaError:
        return None


# --- positions, notation, rules ---------------------------------------------------------------

counts = st.lists(st.integers(-2, 17), min_size=0, max_size=27)


@FUZZ
@given(counts, counts, HOSTILE)
@example([15] + [0] * 24, [0] * 24 + [15], 0)  # the finished position: White has won a mars
@example([0] * 24 + [15], [0] * 24 + [15], 2**70)
def test_positions_from_counts(white: list[int], black: list[int], turn: Any) -> None:
    position = _contract(lambda: Position.from_counts(white, black, turn))
    if position is None:
        return
    assert Position.from_id(position.id) == position
    assert Position.from_json(position.to_json()) == position
    e = fevga.evaluate(position)
    assert 0 <= e.win_mars <= e.win <= 1 and 0 <= e.lose_mars <= 1 - e.win + 1e-12
    winner = position.winner()
    if winner is not None:
        assert e.equity == position.points() * (1 if winner == position.turn else -1)


@FUZZ
@given(st.text(max_size=40))
@example("{" * 100_000)
@example('{"white": ' + "9" * 5000 + "}")
@example("f_8AAAD__gAAAAAABH")
@example('{"game": "gioul", "white": [], "black": [], "turn": "white", "next_roll": 5}')
def test_position_and_state_text(text: str) -> None:
    for parse in (Position.parse, Position.from_id, GioulPosition.parse, GioulPosition.from_id):
        _contract(lambda: parse(text))


@FUZZ
@given(HOSTILE, st.text(max_size=20))
@example("\u00b2-5", "24/13")
@example([6, 5, 4], "")
def test_moves_dice_and_notation(dice: Any, notation: str) -> None:
    position = play_game(seed=3, policy="random", max_plies=8).final
    _contract(lambda: parse_dice(dice))
    _contract(lambda: parse_paths(notation))
    moves = _contract(lambda: position.legal_moves(dice))
    if moves:
        assert len(set(moves)) == len(moves)
        _contract(lambda: position.parse_move(notation, dice))
        _contract(lambda: position.play(notation, dice))
    state = GioulPosition.initial()
    _contract(lambda: state.legal_moves(dice))
    _contract(lambda: state.parse_move(notation, dice))


@FUZZ
@given(st.dictionaries(st.sampled_from(["release", "first_roll", "start_quarter_check", "game", "must_open",
                                        "ban_prime_before_opponent_mother"]), HOSTILE, max_size=3))
@example({"ban_prime_before_opponent_mother": 2**70})
def test_rules(options: dict[str, Any]) -> None:
    rules = _contract(lambda: Rules(**options))
    if rules is not None:
        assert Rules(**rules.to_dict()) == rules


# --- judgment and search ----------------------------------------------------------------------


def _not_a_long_job(value: Any) -> Any:
    """A hostile depth or game count as it is, but 0 for a valid positive one (up to 2^53
    games are valid: a long job, not a contract test)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= 2**53:
        return 0
    return value


@FUZZ
@given(HOSTILE, HOSTILE, st.integers(0, 60))
@example(None, 1, 0)
@example(GioulPosition.initial(), 1, 0)
@example(7, 10**12, 0)
def test_evaluate_hint_search_arguments(plies: Any, depth: Any, ply: int) -> None:
    position = play_game(seed=ply, policy="random", max_plies=ply).final
    depth = _not_a_long_job(depth)
    if isinstance(plies, int) and 2 < plies < 10**6:  # a valid deep search: seconds, not a contract test
        plies = 2
    for call in (lambda: fevga.evaluate(position, plies), lambda: fevga.evaluate(plies),
                 lambda: fevga.hint(position, (6, 5), plies), lambda: fevga.hint(plies, (6, 5)),
                 lambda: fevga.expectimax(position, depth), lambda: fevga.expectimax(plies, 0),
                 lambda: fevga.expectimax(position, 0, evaluator=plies), lambda: fevga.perft(plies, 1),
                 lambda: fevga.perft(position, depth),
                 lambda: fevga.rollout(plies, games=36, seed=1, workers=1, policy="random", progress=False),
                 lambda: fevga.rollout(position, games=depth, seed=1, workers=1, policy="random", progress=False),
                 lambda: fevga.rollout(position, games=36, seed=plies, workers=1, policy="random", progress=False),
                 lambda: fevga.rollout(position, games=36, seed=1, workers=plies, policy="random", progress=False)):
        _contract(call)


# --- batch API --------------------------------------------------------------------------------


@FUZZ
@given(st.integers(0, 5), st.integers(40, 60), st.sampled_from([np.uint8, np.int64, np.float64, np.bool_, object]),
       st.integers(-3, 300), st.integers(-1, 8), HOSTILE)
def test_batch_arrays(n: int, width: int, dtype: Any, value: int, die: int, threads: Any) -> None:
    row = np.frombuffer(Position.initial()._row(), dtype=np.uint8).astype(np.int64)
    rows = np.tile(row, (n, 1))
    if n:
        rows[-1, abs(value) % 51] = value
    rows = rows[:, :width] if width <= 51 else np.hstack([rows, np.zeros((n, width - 51), dtype=np.int64)])
    candidate = rows.astype(dtype) if dtype is not object else rows.astype(object)
    dice = np.full((n, 2), die)
    for call in (lambda: fevga.batch.count_legal_moves(candidate, dice),
                 lambda: fevga.batch.count_legal_moves(candidate, dice, workers=threads),
                 lambda: fevga.batch.legal_moves(candidate, dice), lambda: fevga.batch.evaluate(candidate),
                 lambda: fevga.batch.evaluate(candidate, workers=threads), lambda: fevga.batch.from_array(candidate),
                 lambda: fevga.gioul.validate_states(candidate), lambda: fevga.batch.to_array(threads)):
        _contract(call)


# --- file readers -----------------------------------------------------------------------------


def _mutations(data: bytes, draw: Any) -> bytes:
    kind = draw(st.sampled_from(["flip", "truncate", "insert", "zero", "same"]))
    if not data or kind == "same":
        return data
    at = draw(st.integers(0, len(data) - 1))
    if kind == "flip":
        return data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1:]
    if kind == "truncate":
        return data[:at]
    if kind == "insert":
        return data[:at] + draw(st.binary(min_size=1, max_size=16)) + data[at:]
    return data[:at] + bytes(min(64, len(data) - at)) + data[at + 64:]


NET_BYTES = Net.initial(8, seed=4).to_bytes()


@FUZZ
@given(st.data())
def test_net_files(tmp_path_factory: pytest.TempPathFactory, data: Any) -> None:
    path = tmp_path_factory.mktemp("net") / "n.npz"
    path.write_bytes(_mutations(NET_BYTES, data.draw))
    net = _contract(lambda: Net.load(path))
    if net is not None:
        assert net.checksum == Net.initial(8, seed=4).checksum


def _json_values() -> Any:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.floats(allow_nan=False),
                        st.text(max_size=8))
    return st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                        max_leaves=20)


GAME = play_game(seed=8, policy="heuristic").to_dict()
MATCH_TEXT = write_match(play_match(3, seed=9, policy="heuristic"))


@FUZZ
@given(st.sampled_from(sorted(GAME)), _json_values(), st.integers(0, 200), _json_values())
@example("plies", {}, 0, None)
@example("points", "9" * 50, 0, None)
def test_json_records(field: str, value: Any, ply: int, ply_value: Any) -> None:
    record = json.loads(json.dumps(GAME))
    record[field] = value
    if record["plies"] and isinstance(record["plies"], list) and ply < len(record["plies"]):
        record["plies"][ply] = ply_value
    for text in (json.dumps(record), json.dumps({"length": 3, "games": [record]}), json.dumps([record])):
        _contract(lambda: parse_record(text))


@FUZZ
@given(st.data())
@example(None)
def test_text_records(data: Any) -> None:
    if data is None:
        texts = [MATCH_TEXT.replace(" 3 point match", " " + "9" * 5000 + " point match"),
                 MATCH_TEXT.replace("Game 1", "Game \u0661")]
    else:
        lines = MATCH_TEXT.splitlines()
        at = data.draw(st.integers(0, len(lines) - 1))
        replacement = data.draw(st.one_of(st.text(max_size=40), st.sampled_from(["", "  1) 65: 24/13", "Game 2",
                                                                               "9" * 5000 + " point match"])))
        texts = ["\n".join(lines[:at] + [replacement] + lines[at + 1:]),
                 "\n".join(lines[:at] + lines[at + 1:]),
                 _mutations(MATCH_TEXT.encode(), data.draw).decode("utf-8", "replace")]
    for text in texts:
        match = _contract(lambda: parse_record(text))
        if match is not None:
            assert parse_record(write_match(match)) == match


@pytest.fixture(scope="module")
def table_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    folder = tmp_path_factory.mktemp("fbo")
    return {"one": OneSidedDB.build(3, 3).save(folder / "one.fbo").read_bytes(),
            "two": TwoSidedDB.build(3).save(folder / "two.fbo").read_bytes()}


@FUZZ
@given(st.sampled_from(["one", "two"]), st.data(), st.booleans())
def test_bearoff_files(table_files: dict[str, bytes], tmp_path_factory: pytest.TempPathFactory, kind: str,
                       data: Any, fix_crc: bool) -> None:
    raw = bytearray(_mutations(table_files[kind], data.draw))
    if fix_crc and len(raw) > 20:  # mutations the checksums do not catch: only the content checks can
        length = int.from_bytes(raw[12:16], "little")
        if 20 + length <= len(raw):
            raw[16:20] = zlib.crc32(bytes(raw[20:20 + length])).to_bytes(4, "little")
    path = tmp_path_factory.mktemp("fbo") / "t.fbo"
    path.write_bytes(bytes(raw))
    db = _contract(lambda: open_db(path))
    if isinstance(db, OneSidedDB):
        _contract(lambda: db.mean_rolls([0, 0, 1]))
    elif db is not None:
        _contract(lambda: db.equity([0, 0, 1], [0, 1]))


# --- error-rate files: a corpus and its truth, mutated field by field --------------------------


@functools.lru_cache(maxsize=1)
def _error_rate_files() -> tuple[dict[str, Any], dict[str, Any]]:
    """A real two-decision Fevga corpus and a truth of its first decision."""
    from fevga.error_rate import Corpus, build_corpus, run_truth

    corpus = build_corpus(2, seed=38)
    with tempfile.TemporaryDirectory() as folder:
        truth = run_truth(Corpus(corpus.seed, corpus.net, corpus.decisions[:1]), Path(folder) / "truth.json", 36, 5)
    return json.loads(corpus.to_json()), json.loads(truth.to_json())


def _mutated_json(document: Any, draw: Any) -> Any:
    """`document` with one value somewhere inside it (a field, an item) replaced."""
    document = json.loads(json.dumps(document))
    node: Any = document
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            return document
        key = draw(st.sampled_from(keys))
        if isinstance(node[key], (dict, list)) and node[key] and draw(st.booleans()):
            node = node[key]
            continue
        node[key] = draw(_json_values())
        return document


@FUZZ
@given(st.data(), st.sampled_from(["corpus", "truth"]))
def test_error_rate_files(tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str], data: Any,
                          kind: str) -> None:
    """A mutated corpus or truth loads or raises a FevgaError; a loaded one is reported, or
    refused by `fevga error-rate report` in one line; a loaded corpus truths its first decision."""
    from fevga.error_rate import Corpus, run_truth

    corpus, truth = _error_rate_files()
    folder = tmp_path_factory.mktemp("error-rate")
    path = folder / f"{kind}.json"
    path.write_text(json.dumps(_mutated_json(corpus if kind == "corpus" else truth, data.draw)))
    if kind == "corpus":
        loaded = _contract(lambda: Corpus.load(path))
        if loaded is not None and loaded.decisions:
            small = Corpus(loaded.seed, loaded.net, loaded.decisions[:1], loaded.game)
            _contract(lambda: run_truth(small, folder / "truth.json", 36, 5, limit=1))
        return
    status = main(["error-rate", "report", str(path)])
    error = capsys.readouterr().err
    assert status in (0, 2) and "internal error" not in error, error
    if status == 2:
        assert error.count("\n") == 1 and ": error: " in error, error


# --- the command line -------------------------------------------------------------------------

COMMANDS = st.sampled_from([
    ["show"], ["moves", "start"], ["perft", "1"], ["evaluate"], ["hint", "start"], ["met"], ["met", "--length"],
    ["bearoff", "query"], ["rollout", "--games"], ["rollout", "--dice"], ["play", "--seed"], ["moves", "--game", "gioul"],
])
VALUES = st.one_of(st.sampled_from(["\u00b2", "\u0661\u0662", "9" * 5000, "-1", "nan", "6-5", "65", "start", "",
                                    "{" * 1000, '{"game": "gioul"}', "0,0,1/0,1", "f_8AAAD__gAAAAAA", "--json"]),
                   st.text(max_size=12))


@settings(max_examples=max(10, EXAMPLES // 2), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(COMMANDS, st.lists(VALUES, max_size=3))
@example(["rollout", "--games"], ["\u00b2"])
@example(["met"], ["--size", "\u0661"])
def test_cli(capsys: pytest.CaptureFixture[str], command: list[str], values: list[str]) -> None:
    argv = command + values
    if "rollout" in argv:  # the last --games wins: a short job whatever the values were
        argv += ["--workers", "1", "--no-progress", "--policy", "random", "--games", "36"]
    status = main(argv)
    captured = capsys.readouterr()
    assert status in (0, 2), (argv, status, captured.err)
    assert "Traceback" not in captured.err
    if status == 2:
        assert captured.err.count("\n") == 1 and ": error: " in captured.err, (argv, captured.err)


# --- the service: UBGI lines and HTTP requests ------------------------------------------------

UBGI_WORDS = st.sampled_from(["ubgi", "isready", "newgame", "keys", "set", "setoption", "get", "position", "dice",
                              "go", "stop", "name", "value", "fevgaid", "gnubgid", "xgid", "start", "chequer",
                              "turn", "cube", "engine.ply", "engine.multipv", "engine.rollouts", "engine.net",
                              "game.variant", "gioul", "true", "AACA/z8AAID/Pw", "f_8AAAD__gAAAAAA",
                              "f_8AAAD__gAAAAAABH", "6", "5", "0", "-1", "\u00b2", "\u0661", "9" * 5000])
UBGI_LINES = st.lists(st.lists(st.one_of(UBGI_WORDS, st.text(max_size=10)), min_size=1, max_size=5).map(" ".join),
                      max_size=8)
UBGI_CODES = ("bad_command", "bad_value", "bad_state", "unsupported")


@FUZZ
@given(UBGI_LINES)
@example(["dice \u00b2 5"])  # '²'.isdigit(): was an internal error
@example(["set engine.ply \u00b2", "set engine.multipv " + "9" * 5000, "set engine.seed \u0661"])
@example(["set engine.net /dev/zero", "set engine.net " + "/" * 4000])
@example(["position fevgaid start", "dice 6 5", "set engine.ply 2", "go", "go turn", "go cube"])
def test_ubgi_lines(lines: list[str]) -> None:
    from fevga.service.ubgi import Session

    out: list[str] = []
    session = Session(out.append)
    session.engine.values["engine.rollouts"] = 0  # set below only to small values: a fuzz step stays short
    for line in lines:
        if line.split()[:2] in (["set", "engine.rollouts"], ["set", "engine.ply"]):
            line = " ".join(line.split()[:2] + [w if w in ("0", "1", "2") else w[:1] for w in line.split()[2:3]])
        session.handle(line)  # never raises on input
    for answer in out:
        if answer.startswith("error "):
            assert answer.split()[1] in UBGI_CODES, answer
            assert "internal error" not in answer, (lines, answer)


@pytest.fixture(scope="module")
def api() -> Any:
    pytest.importorskip("fastapi")
    from fevga.service.http import BodyLimit, Limits, create_app

    limits = Limits(batch_positions=8, plies_evaluate=1, plies_hint=2, batch_plies=1, rollout_games=1296,
                    rollout_workers=1, jobs=1, keep_jobs=4, record_games=2, record_plies=200, analyse_plies=1,
                    seconds=20.0, body_bytes=64 * 1024, workers=1)
    app = create_app(limits)
    yield BodyLimit(app, limits.body_bytes)
    app.state.jobs.shutdown()
    app.state.pool.shutdown(wait=True)


def _asgi(app: Any, method: str, path: str, query: bytes, body: bytes) -> tuple[int, Any]:
    """(status, JSON or text body) of one request to the ASGI `app`, served in-process."""
    import asyncio

    sent: list[dict[str, Any]] = []

    async def run() -> None:
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
                 "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query, "root_path": "",
                 "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
                 "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}
        await app(scope, receive, send)

    asyncio.run(run())
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    raw = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode("utf-8", "replace")


HTTP_TEXT = st.one_of(st.sampled_from(["start", "f_8AAAD__gAAAAAA", "f_8AAAD__gAAAAAABH", "6-5", "5-5", "7-1", "0",
                                       "-1", "1", "2", "\u00b2", "gioul", "fevga", "strict", "9" * 5000,
                                       "{" * 500, '{"game": "gioul"}', "AACA/z8AAID/Pw"]),
                      st.text(max_size=20))
HTTP_BODY = st.one_of(
    _json_values().map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries({"items": st.lists(st.fixed_dictionaries({"position": HTTP_TEXT}, optional={"dice": HTTP_TEXT}),
                                             max_size=3)},
                          optional={"plies": st.integers(-2, 3), "game": HTTP_TEXT, "rules": HTTP_TEXT,
                                    "rows": st.text(max_size=70), "dice_rows": st.text(max_size=8)}
                          ).map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries({"position": HTTP_TEXT},
                          optional={"dice": HTTP_TEXT, "games": st.integers(-1, 1296), "seed": st.integers(-1, 2**70),
                                    "policy": HTTP_TEXT, "workers": st.integers(0, 3)}
                          ).map(lambda v: json.dumps(v).encode()),
    st.sampled_from([GAME_JSON := json.dumps(GAME).encode(), GAME_JSON.replace(b"6", b"9" * 5000),
                     GAME_JSON.replace(b"]", b", Infinity]", 1), MATCH_TEXT.encode(), b"[" * 5000, b"\xff\xfe"]),
    st.binary(max_size=40),
)


@FUZZ
@given(st.sampled_from([("GET", "moves"), ("GET", "evaluate"), ("GET", "hint"), ("POST", "moves"),
                        ("POST", "evaluate"), ("POST", "hint"), ("POST", "rollouts"), ("POST", "analyse"),
                        ("GET", "rollouts/x"), ("DELETE", "rollouts/x"), ("GET", "limits"), ("PUT", "moves")]),
       st.dictionaries(st.sampled_from(["position", "dice", "plies", "game", "rules", "after", "format",
                                        "evaluator"]), HTTP_TEXT, max_size=4),
       HTTP_BODY)
@example(("POST", "analyse"), {}, json.dumps(GAME).replace("]", ", Infinity]", 1).encode())
@example(("POST", "analyse"), {}, json.dumps(GAME).replace("6", "9" * 5000).encode())
@example(("GET", "hint"), {"position": "start", "dice": "\u00b2-5"}, b"")
def test_http_requests(api: Any, route: tuple[str, str], query: dict[str, str], body: bytes) -> None:
    from urllib.parse import urlencode

    method, path = route
    status, data = _asgi(api, method, f"/api/v1/{path}", urlencode(query).encode(), body if method != "GET" else b"")
    assert status < 500, (route, query, body[:200], status, data)
    if status >= 400:
        assert isinstance(data, dict) and set(data["error"]) == {"status", "code", "message"}, data
        assert data["error"]["status"] == status and "Traceback" not in json.dumps(data)
