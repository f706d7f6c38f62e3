"""`fevga ubgi` against an independent controller.

The controller here speaks UBGI v0.2 to `python -m fevga ubgi` in a subprocess and keeps
the game itself with the independent rules oracles (tests/reference.py for Fevga,
tests/gioul_reference.py for Gioul): it plays whole games, checks that every `bestmove` is
one of the oracle's legal results, and sends malformed and out-of-order commands, after
each of which the engine must answer one spec error line and keep serving.

gnubg IDs are encoded here from gnubg's published description of its position key (the
manual's "technical description of the Position ID", with the player not on roll first as
gnubg's PositionKey writes it), not with the package's encoder; the encoder is checked
against gnubg's own ID of the backgammon start.
"""

from __future__ import annotations

import base64
import os
import queue
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import gioul_reference as gref
import reference as ref
import fevga
from fevga import GioulPosition, Net, Position, hint
from fevga.game import play_game
from fevga.service.engine import Engine
from fevga.service.gnubgid import gnubg_id, position_from_gnubg_id

ERROR_CODES = {"bad_command", "bad_value", "bad_state", "unsupported"}


# ---------------------------------------------------------------------- gnubg's key, independently


def gnubg_key_id(not_on_roll: list[int], on_roll: list[int]) -> str:
    """gnubg's position ID of two 25-slot boards (gnubg index 0-23 = the player's points 1-24
    from its own side, 24 = its bar): for each player, 1 bits per checker then a 0 per
    slot, little-endian in 10 bytes, base64 without padding."""
    bits: list[int] = []
    for board in (not_on_roll, on_roll):
        for slot in board:
            bits += [1] * slot + [0]
    bits += [0] * (80 - len(bits))
    key = bytes(sum(bits[8 * i + j] << j for j in range(8)) for i in range(10))
    return base64.b64encode(key).decode()[:14]


def fevga_gnubg_id(mover: tuple[int, ...], waiting: tuple[int, ...]) -> str:
    """A Fevga board (25 counts a side, own numbering, index 0 = off) as gnubg sees it:
    own point p at gnubg index p - 1, the bar empty, the side not on roll first."""
    def slots(counts: tuple[int, ...]) -> list[int]:
        return [counts[p] for p in range(1, 25)] + [0]
    return gnubg_key_id(slots(waiting), slots(mover))


def test_encoder_reproduces_gnubg_backgammon_start() -> None:
    # gnubg's ID of the backgammon opening position, as gnubg prints it
    board = [0] * 25
    for index, count in ((5, 5), (7, 3), (12, 5), (23, 2)):
        board[index] = count
    assert gnubg_key_id(board, board) == "4HPwATDgc/ABMA"


# Fevga boards (mover's counts, waiting side's counts, own numbering) and their gnubg IDs,
# derived by the independent encoder above.
START = ref.initial()[0]
VECTORS = [
    (START, START, "AACA/z8AAID/Pw"),
    (ref.side({13: 1, 24: 14}), START, "AACA/z8AEAD/Pw"),
    (ref.side({0: 13, 1: 1, 2: 1}), ref.side({0: 14, 6: 1}), "IAAAFAAAAAAAAA"),
    (ref.side({0: 15}), ref.side({0: 1, 12: 14}), "APj/AQAAAAAAAA"),
]


@pytest.mark.parametrize(("mover", "waiting", "expected"), VECTORS)
def test_gnubg_id_vectors(mover: tuple[int, ...], waiting: tuple[int, ...], expected: str) -> None:
    assert fevga_gnubg_id(mover, waiting) == expected
    for turn in (0, 1):
        white, black = (mover, waiting) if turn == 0 else (waiting, mover)
        position = Position.from_counts(white, black, turn)
        assert gnubg_id(position) == expected
        decoded = position_from_gnubg_id(expected, turn)
        assert decoded == position


@pytest.mark.parametrize("bad", ["", "AACA/z8AAID/P", "AACA/z8AAID/Pw=", "AACA/z8AAID/P!", "AACA/z8AAID/Px",
                                 "//////////////", "AAAAAAAAAAAAAA", "AACA/z8AAID/Pw" * 2])
def test_gnubg_id_refuses_garbage(bad: str) -> None:
    from fevga.errors import FevgaError

    with pytest.raises(FevgaError):
        position_from_gnubg_id(bad)


def test_gnubg_id_refuses_bar_and_shared_points() -> None:
    from fevga.errors import InvalidNotationError, InvalidPositionError

    bar = [0] * 25
    bar[23], bar[24] = 14, 1
    start = [0] * 23 + [15, 0]
    with pytest.raises(InvalidNotationError, match="bar"):
        position_from_gnubg_id(gnubg_key_id(start, bar))
    # both sides on the same board point: the mover's own 12 is the other side's own 24
    clash = [0] * 25
    clash[11], clash[23] = 1, 14
    with pytest.raises(InvalidPositionError):
        position_from_gnubg_id(gnubg_key_id(start, clash))


# ---------------------------------------------------------------------- the controller


class Controller:
    """`python -m fevga ubgi` in a subprocess, read line by line with a timeout."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "fevga", "ubgi"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8").rstrip("\n"))
        self.lines.put(None)

    def send(self, line: str | bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((line if isinstance(line, bytes) else line.encode()) + b"\n")
        self.proc.stdin.flush()

    def read(self, timeout: float = 30.0) -> str:
        line = self.lines.get(timeout=timeout)
        assert line is not None, "the engine closed its output"
        return line

    def until(self, prefixes: tuple[str, ...], timeout: float = 30.0) -> list[str]:
        """Lines up to and including the first that starts with one of `prefixes`."""
        out = []
        while True:
            line = self.read(timeout)
            out.append(line)
            if line.startswith(prefixes):
                return out

    def answer_to(self, line: str | bytes) -> list[str]:
        """The lines a command produces, fenced by an isready."""
        self.send(line)
        self.send("isready")
        return self.until(("readyok",))[:-1]

    def close(self) -> int:
        self.send("quit")
        return self.proc.wait(timeout=30)


@pytest.fixture
def engine() -> Controller:
    controller = Controller()
    controller.send("ubgi")
    lines = controller.until(("ubgiok",))
    assert lines[:3] == [lines[0], "id author the fevga developers", "proto 0.2"] and lines[0].startswith("id name")
    yield controller
    if controller.proc.poll() is None:
        assert controller.close() == 0


def apply_move(counts: tuple[int, ...], payload: str) -> tuple[int, ...]:
    """The mover's counts after a bestmove payload (from/to tokens, `off`, or `pass`)."""
    if payload == "pass":
        return counts
    mover = list(counts)
    for token in payload.split():
        source, target = token.split("/")
        a, b = int(source), 0 if target == "off" else int(target)
        assert mover[a] > 0, f"{payload}: no checker on {a}"
        assert b < a, f"{payload}: {token} does not move forward"
        mover[a] -= 1
        mover[b] += 1
    return tuple(mover)


def go(controller: Controller) -> tuple[str, list[str]]:
    lines = controller.until(("bestmove", "error"))
    assert lines[-1].startswith("bestmove"), lines
    return lines[-1].removeprefix("bestmove "), lines[:-1]


STRICT = {"release": "reach", "ban_prime_before_opponent_mother": "true", "must_open": "no_playable_roll"}


@pytest.mark.parametrize(("seed", "strict"), [(1, False), (2, False), (3, False), (4, True), (5, True)])
def test_whole_fevga_games_against_the_oracle(engine: Controller, seed: int, strict: bool) -> None:
    rules = ref.STRICT_RULES if strict else ref.DEFAULT_RULES
    for name, value in (STRICT if strict else {}).items():
        assert engine.answer_to(f"set game.{name} {value}") == []
    engine.send("newgame")
    rng = random.Random(seed)
    white, black = ref.initial()
    turn = rng.randrange(2)
    plies = 0
    while not ref.is_game_over(white, black) and plies < 600:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        mover, waiting = (white, black) if turn == 0 else (black, white)
        if plies % 3 == 2:  # the engine's own ID now and then, else gnubg's
            engine.send(f"position fevgaid {Position.from_counts(white, black, turn).id}")
        else:
            engine.send(f"position gnubgid {fevga_gnubg_id(mover, waiting)}")
        engine.send(f"dice {dice[0]} {dice[1]}")
        engine.send("go")
        payload, info = go(engine)
        after = apply_move(mover, payload)
        legal = {(w if turn == 0 else b) for (w, b) in ref.legal_results(white, black, turn, dice, rules)}
        assert after in legal, (white, black, turn, dice, payload)
        if not strict:  # and it is the engine's best move (fevga.hint at 1 ply)
            best = hint(Position.from_counts(white, black, turn), dice)[0].move.position
            assert best.counts(turn) == after
        assert any(line.startswith("info next ") for line in info)
        white, black = (after, black) if turn == 0 else (white, after)
        turn, plies = 1 - turn, plies + 1
    assert ref.is_game_over(white, black) or plies == 600


def gioul_position(state: gref.State) -> GioulPosition:
    roller = state.roller if state.dice else None
    return GioulPosition.from_counts(state.white, state.black, state.turn,
                                     next_roll=(state.rolls[0] + 1, state.rolls[1] + 1),
                                     dice=state.dice or None, roller=roller)


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_whole_gioul_games_against_the_oracle(engine: Controller, seed: int) -> None:
    assert engine.answer_to("set game.variant gioul") == []
    engine.send("newgame")
    rng = random.Random(seed)
    state = gref.initial()
    decisions = 0
    while not gref.game_over(state) and decisions < 1500:
        engine.send(f"position fevgaid {gioul_position(state).id}")
        roll = None
        if not state.dice:
            roll = (rng.randint(1, 6), rng.randint(1, 6))
            engine.send(f"dice {roll[0]} {roll[1]}")
        engine.send("go")
        payload, info = go(engine)
        mover = state.turn
        after = apply_move(state.army(mover), payload)
        successors = gref.successors(state, roll)
        matching = [nxt for (w, b), nxt in successors.items() if (w if mover == 0 else b) == after]
        assert len(matching) == 1, (state, roll, payload)
        state = matching[0]
        next_line = next(line for line in info if line.startswith("info next "))
        assert next_line.split()[3] == gioul_position(state).id
        assert any(line.startswith("info decision ") for line in info)
        decisions += 1
    assert gref.game_over(state) or decisions == 1500


def test_gioul_choice_is_the_shipped_gioul_nets() -> None:
    """Every decision of the shipped Gioul net's self-play games is the one `go` answers."""
    engine = Engine()
    engine.set("game.variant", "gioul")
    for seed in range(3):
        record = play_game(game="gioul", seed=seed, policy="net")
        for decision, before in zip(record.decisions, record.positions()):
            if decision.choices < 2:
                continue
            chosen = next(m for m in before.legal_moves(decision.roll) if m.steps == decision.steps)
            choice = engine.choose(before, decision.roll)
            assert choice.best.position == chosen.position and choice.method == "net 1-ply"
            assert choice.ranking[0].equity == hint(before, decision.roll)[0].equity


def test_gioul_go_answers_from_the_net_over_the_protocol(engine: Controller) -> None:
    assert engine.answer_to("set game.variant gioul") == []
    start = GioulPosition.initial()
    engine.send(f"position fevgaid {start.id}")
    engine.send("dice 5 5")
    engine.send("go")
    payload, info = go(engine)
    best = hint(start, "5-5")[0]
    assert payload == "24/9 24/19" == best.move.notation
    assert any(line.startswith("info depth 1 ") and line.endswith("method net_1-ply") for line in info), info
    assert f"info multipv 1 score {best.equity:+.4f}" in " ".join(info)
    engine.send("set engine.ply 4")  # deeper than Gioul judgment goes: searched at 3 plies, and says so
    engine.send("go")
    payload, info = go(engine)
    assert payload == hint(start, "5-5", plies=3)[0].move.notation and any("searches 3 ply" in line for line in info), info
    assert any(line.startswith("info depth 3 ") and line.endswith("method net_3-ply_every_move") for line in info), info
    fevga_net = Path(fevga.__file__).parent / "data" / "net.npz"
    engine.send(f"set engine.net {fevga_net}")  # a Fevga net under game.variant gioul: one clear error at go
    engine.send("go")
    lines = engine.until(("bestmove", "error"))
    assert lines[-1].startswith("error bad_value") and "Fevga net" in lines[-1], lines


@pytest.mark.parametrize("variant", ["fevga", "gioul"])
def test_engine_quantised_answers_with_the_quantised_net(engine: Controller, variant: str) -> None:
    """`set engine.quantised true`: the ranking is fevga.hint's with the game's quantised net."""
    engine.send(f"set game.variant {variant}")
    position = GioulPosition.initial() if variant == "gioul" else Position.from_id("f_8AAAD__gAAAAAA")
    net = Net.default(variant).quantised()
    engine.send(f"position fevgaid {position.id}")
    engine.send("dice 6 5")
    assert engine.answer_to("set engine.quantised true") == []
    engine.send("go")
    payload, info = go(engine)
    best = hint(position, "6-5", net=net)[0]
    assert payload == best.move.notation and f"info multipv 1 score {best.equity:+.4f}" in " ".join(info), info
    assert engine.answer_to("get engine.quantised") == ["value engine.quantised true"]
    assert engine.answer_to("set engine.quantised yes")[0].startswith("error bad_value engine.quantised")


# A Gioul state of seeded self-play (play_game(game="gioul", seed=0)) whose filtered 2-ply
# search of 6-5 drops the move every move's 2-ply search ranks best.
GIOUL_EVERY_MOVE_ID = "fwIADmoDwAFXvAAA8ABH"


def test_engine_every_move_answers_with_every_move_searched(engine: Controller) -> None:
    """`set engine.every_move true` at engine.ply 2: the ranking is fevga.hint(..., 2,
    every_move=True)'s (a Gioul decision whose filter drops the best 2-ply move), named so;
    `false` is the move filter's; `default` (the start) is the game's, every move in Gioul."""
    position = GioulPosition.from_id(GIOUL_EVERY_MOVE_ID)
    every, filtered = hint(position, "6-5", 2, every_move=True), hint(position, "6-5", 2, every_move=False)
    assert every[0].move.notation != filtered[0].move.notation
    assert engine.answer_to("get engine.every_move") == ["value engine.every_move default"]
    for line in ("set game.variant gioul", "set engine.ply 2", f"position fevgaid {position.id}", "dice 6 5"):
        engine.send(line)
    for value, expected, method in (("default", every, "net_2-ply_every_move"), ("false", filtered, "net_2-ply"),
                                    ("true", every, "net_2-ply_every_move")):
        assert engine.answer_to(f"set engine.every_move {value}") == []
        engine.send("go")
        payload, info = go(engine)
        assert payload == expected[0].move.notation and f"score {expected[0].equity:+.4f}" in " ".join(info), info
        assert any(line.endswith(f"method {method}") for line in info), info
    assert engine.answer_to("set engine.every_move 1")[0].startswith("error bad_value engine.every_move")


MALFORMED: list[tuple[str | bytes, str]] = [
    ("go", "bad_state"),  # no position yet
    ("frobnicate", "bad_command"),
    ("position", "bad_command"),
    ("position gnubgid", "bad_command"),
    ("position gnubgid AACA/z8AAID/Pw extra", "bad_command"),
    ("position xgid XGID=-a----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "unsupported"),
    ("position gnubgid not-an-id!!!!!", "bad_value"),
    ("position gnubgid AACA/z8AAID/P", "bad_value"),
    ("position gnubgid //////////////", "bad_value"),
    ("position fevgaid garbage", "bad_value"),
    ("position fevgaid f_8AAAD__gAAAAAAAABH", "bad_state"),  # a Gioul ID under game.variant fevga
    ("dice 7 1", "bad_value"),
    ("dice 0 3", "bad_value"),
    ("dice 6", "bad_command"),
    ("dice a b", "bad_value"),
    ("dice 99999999999999999999 1", "bad_value"),
    ("set engine.ply", "bad_command"),
    ("set engine.ply 0", "bad_value"),
    ("set engine.ply 99", "bad_value"),
    ("set engine.ply two", "bad_value"),
    ("set engine.net /nonexistent/net.npz", "bad_value"),
    ("set game.variant backgammon", "bad_value"),
    ("set no.such.key 1", "unsupported"),
    ("get no.such.key", "unsupported"),
    ("get", "bad_command"),
    ("go sideways", "bad_command"),
    ("setoption name", "bad_command"),
    ("x" * 20000, "bad_command"),
    (b"\xff\xfe\x00garbage", "bad_command"),
]


def test_malformed_commands_get_one_error_each(engine: Controller) -> None:
    for line, code in MALFORMED:
        answer = engine.answer_to(line)
        assert len(answer) == 1, (line, answer)
        words = answer[0].split()
        assert words[0] == "error" and words[1] in ERROR_CODES, (line, answer)
        assert words[1] == code, (line, answer)
    # still serving, and right
    engine.send("position fevgaid start")
    engine.send("dice 6 5")
    engine.send("go")
    assert go(engine)[0] == "24/13"


def test_out_of_order_commands(engine: Controller) -> None:
    assert engine.answer_to("dice 6 5") == []  # dice before any position are taken
    # dice before the position are dropped with it: a new position needs its roll
    engine.send("dice 6 5")
    engine.send("position fevgaid start")
    assert engine.answer_to("go") == ["error bad_state missing dice"]
    # a refused position leaves no position, never the previous one
    engine.send("position fevgaid start")
    engine.send("dice 6 5")
    assert engine.answer_to("position fevgaid garbage")[0].startswith("error bad_value")
    assert engine.answer_to("go") == ["error bad_state missing position"]
    # newgame forgets the position
    engine.send("position fevgaid start")
    engine.send("dice 6 5")
    engine.send("newgame")
    assert engine.answer_to("go") == ["error bad_state missing position"]
    # a finished game
    engine.send(f"position fevgaid {Position.from_counts(ref.side({0: 15}), ref.side({0: 1, 12: 14}), 1).id}")
    engine.send("dice 6 5")
    assert engine.answer_to("go")[0].startswith("error bad_state game over")
    # Gioul: a pending decision takes no dice
    assert engine.answer_to("set game.variant gioul") == []
    pending = GioulPosition.initial().rolled("6-5")
    engine.send(f"position fevgaid {pending.id}")
    assert engine.answer_to("dice 6 5")[0].startswith("error bad_state the position has dice pending")
    engine.send("go")
    payload, _ = go(engine)
    assert payload in {m.notation for m in pending.legal_moves()}
    assert engine.answer_to(f"position gnubgid {fevga_gnubg_id(START, START)}")[0].startswith("error unsupported")
    assert engine.answer_to("position fevgaid f_8AAAD__gAAAAAA")[0].startswith("error bad_state")
    # keys, get, set round trip; cube questions have an answer
    assert engine.answer_to("get game.variant") == ["value game.variant gioul"]
    assert all(line.startswith("key ") for line in engine.answer_to("keys"))
    engine.send("go cube")
    assert engine.until(("bestcube",))[-1] == "bestcube nodouble"


def test_isready_and_stop_during_a_long_search(engine: Controller) -> None:
    # a Gioul rollout on the net: isready is answered at once while it runs, and stop is taken
    engine.send("set game.variant gioul")
    engine.send("set engine.rollouts 1000000")
    engine.send("position fevgaid start")
    engine.send("dice 3 1")
    engine.send("go")
    began = time.monotonic()
    engine.send("isready")
    assert engine.read() == "readyok"
    assert time.monotonic() - began < 5
    engine.send("stop")
    assert engine.read(timeout=60) == "error bad_state stopped"
    engine.send("set engine.rollouts 0")
    engine.send("position fevgaid start")
    engine.send("dice 3 1")
    engine.send("go")
    payload, info = go(engine)
    assert payload in {m.notation for m in GioulPosition.initial().legal_moves("3-1")}


def test_a_go_sent_during_a_search_still_answers_isready_and_stop(engine: Controller) -> None:
    """A go that arrives while an earlier search is still stopping waits behind it; the
    isready and stop that follow it are sent during the later search and must be taken at
    once, not after its million games (CI hung 42 minutes on this race)."""
    engine.send("set engine.rollouts 1000000")
    engine.send("position fevgaid start")
    engine.send("dice 6 5")
    engine.send("go")
    engine.send("isready")
    assert engine.read() == "readyok"
    engine.send(b"stop\ngo\nisready")  # one write: the second go and its isready queue behind the first
    assert engine.read(timeout=30) == "error bad_state stopped"
    began = time.monotonic()
    assert engine.read(timeout=30) == "readyok"
    assert time.monotonic() - began < 20
    engine.send("stop")
    assert engine.read(timeout=30) == "error bad_state stopped"


def test_end_of_input_is_quit() -> None:
    proc = subprocess.run([sys.executable, "-m", "fevga", "ubgi"], input=b"ubgi\nisready\n", capture_output=True,
                          timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.decode().splitlines()[-1] == "readyok"
    assert proc.stderr == b""


def test_rollout_go_is_reproducible(engine: Controller) -> None:
    engine.send("set engine.rollouts 72")
    engine.send("set engine.seed 7")
    engine.send(f"set engine.threads {min(2, os.cpu_count() or 1)}")
    answers = []
    for _ in range(2):
        engine.send("position fevgaid start")
        engine.send("dice 5 5")
        engine.send("go")
        answers.append(go(engine))
    assert answers[0][0] == answers[1][0]
    scores = [[line for line in info if line.startswith("info multipv")] for _, info in answers]
    assert scores[0] == scores[1] and "games 72" in scores[0][0] and len(scores[0]) == 2


ANSWERS = ("id ", "proto ", "key ", "ubgiok", "value ", "info ", "bestmove ", "bestcube ", "bestturn ")


def test_random_command_soup(engine: Controller) -> None:
    """Random lines built from the protocol's words and junk: every answer is well formed,
    errors carry a spec code, and the engine keeps serving (a fixed seed: reproducible)."""
    rng = random.Random(2024)
    words = ["ubgi", "isready", "newgame", "set", "get", "keys", "position", "gnubgid", "fevgaid", "xgid", "dice",
             "go", "chequer", "cube", "turn", "stop", "setoption", "name", "value", "engine.ply", "game.variant",
             "gioul", "fevga", "engine.multipv", "start", "AACA/z8AAID/Pw", "f_8AAAD__gAAAAAAAABH", "1", "6", "0",
             "-3", "999999999999", "\u00e9\u00e8", "\t", "'", "\"", ";", "{}", "%s%n"]
    for _ in range(400):
        line = " ".join(rng.choice(words) for _ in range(rng.randint(1, 5)))
        for answer in engine.answer_to(line):
            assert answer.startswith(ANSWERS) or (answer.startswith("error ") and answer.split()[1] in ERROR_CODES), \
                (line, answer)
    assert engine.proc.poll() is None


def test_gioul_rollout_choice() -> None:
    engine = Engine()
    engine.set("game.variant", "gioul")
    engine.set("engine.rollouts", "72")
    choice = engine.choose(GioulPosition.initial(), (6, 5))
    assert choice.method == "rollout" and len(choice.ranking) == 2
    assert all(r.games == 72 and r.equity is not None for r in choice.ranking)
    assert choice.ranking[0].diff == 0.0 and choice.ranking[1].diff <= 0.0
    assert {r.notation for r in choice.ranking} == {m.notation for m in GioulPosition.initial().legal_moves("6-5")}
