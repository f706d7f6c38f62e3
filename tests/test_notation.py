"""Move notation: the core's formatter (fevga_core.movegen.steps_notation behind
fevga.notation.format_steps) against a plain reading of docs/records.md's rule, and its errors."""

from __future__ import annotations

import random
from typing import Any

import pytest

from fevga import GioulPosition, Position
from fevga.errors import InvalidArgumentError
from fevga.notation import format_steps


def reference(steps: list[tuple[int, int]]) -> str:
    """One token per checker path (a step extends the latest path ending where it starts),
    paths by start descending then end ascending, equal paths counted as ``(n)``."""
    if not steps:
        return "pass"
    paths: list[list[int]] = []
    for source, target in steps:
        for path in reversed(paths):
            if path[1] == source:
                path[1] = target
                break
        else:
            paths.append([source, target])
    paths.sort(key=lambda p: (-p[0], p[1]))
    tokens: list[str] = []
    for path in paths:
        token = f"{path[0]}/{'off' if path[1] == 0 else path[1]}"
        if tokens and tokens[-1][0] == token:
            tokens[-1][1] += 1
        else:
            tokens.append([token, 1])  # type: ignore[list-item]
    return " ".join(t if n == 1 else f"{t}({n})" for t, n in tokens)  # type: ignore[misc]


@pytest.mark.parametrize(("steps", "text"), [
    ((), "pass"),
    (((24, 19), (19, 14), (14, 9), (24, 19)), "24/9 24/19"),
    (((6, 0), (6, 0)), "6/off(2)"),
    (((13, 7), (13, 7), (7, 1), (13, 7)), "13/1 13/7(2)"),
    (((99, 10), (10, 0)), "99/off"),
])
def test_known_notations(steps: tuple[tuple[int, int], ...], text: str) -> None:
    assert format_steps(steps) == text


def test_agrees_with_the_rule_on_random_step_sequences() -> None:
    rng = random.Random(20261203)
    for _ in range(20_000):
        steps = [(rng.randint(0, 25), rng.randint(0, 25)) for _ in range(rng.randint(0, 8))]
        assert format_steps(steps) == reference(steps), steps


@pytest.mark.parametrize("game", ["fevga", "gioul"])
def test_every_move_of_both_games_reads_back(game: str) -> None:
    """Each move's notation follows the rule and parses back to the same move (both games
    share the formatter)."""
    for dice in ("6-5", "3-1", "4-4"):
        if game == "fevga":
            position, pending = Position.initial(), dice
        else:
            position, pending = GioulPosition.initial().rolled(dice), None
        for move in position.legal_moves(pending):
            assert move.notation == reference(list(move.steps))
            assert position.parse_move(move.notation, pending) == move


@pytest.mark.parametrize(("steps", "message"), [
    ([(25, 300)], "step point 300 must be an integer 0..99"),
    ([(-1, 3)], "step point -1 must be an integer 0..99"),
    ([(True, 3)], "step point True must be an integer 0..99"),
    ([("24", 3)], "step point '24' must be an integer 0..99"),
    ([(24, 3, 1)], "must be a (from, to) pair"),
    ([(24, 23)] * 65, "65 steps: at most 64"),
])
def test_bad_steps_are_refused_by_name(steps: list[tuple[int, ...]], message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message.replace("(", r"\(").replace(")", r"\)")):
        format_steps(steps)  # type: ignore[arg-type]


def _documented_id(white: tuple[int, ...], black: tuple[int, ...], turn: int) -> str:
    """The position ID as the notation module's docstring lays it out, bit by bit in Python."""
    import base64

    runs = [("1" * n + "0") for n in white[:0:-1]] + [("1" * n + "0") for n in black[:0:-1]]
    bits = str(turn) + "".join(runs)
    return base64.urlsafe_b64encode((int(bits, 2) << (96 - len(bits))).to_bytes(12, "big")).decode()


@pytest.mark.parametrize("game", ["fevga", "gioul"])
def test_the_core_writes_the_documented_id(game: str) -> None:
    """The core's encoder (CoreBoard._board_id) against the documented layout, over every
    position of seeded games, both turns, and the extremes (all off, all on one point)."""
    from fevga.game import play_game

    positions: list[Any] = []
    for seed in range(30):
        positions += play_game(seed=seed, game=game).positions()
    positions += [Position.from_counts([15] + [0] * 24, [0] * 24 + [15], 1),
                  Position.from_counts([0] * 12 + [15] + [0] * 12, [0] + [15] + [0] * 23, 0)]
    for p in positions:
        expected = _documented_id(p.counts(0), p.counts(1), p.turn)
        assert p.id[:16] == expected and type(p).from_id(p.id) == p
        assert len(p.id) == (20 if isinstance(p, GioulPosition) else 16)
