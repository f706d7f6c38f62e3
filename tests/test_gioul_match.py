"""Gioul matches (fevga.game.play_match(game="gioul"), `fevga play-match --game gioul`): the
opening-dice rule, records that replay and refuse tampering, the choice of game. The match flow,
seeds that replay every game and unfinished matches run for both games in test_game.py."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from fevga import GioulPosition, Position, Rules
from fevga.errors import InvalidArgumentError, InvalidRulesError, RecordError
from fevga.records import GameRecord, GioulGameRecord, GioulMatchRecord, MatchRecord
from fevga.game import play_game, play_match


def test_opening_dice_rule() -> None:
    match = play_match(game="gioul", length=3, seed=2, rules=Rules.gioul(first_roll="opening_dice"))
    first = match.games[0].decisions[0]
    assert first.roll is not None and first.roll[0] != first.roll[1]  # the two dice of the draw


def test_match_records_round_trip_and_replay(tmp_path: Path) -> None:
    match = play_match(game="gioul", length=3, seed=5, policy="heuristic")
    data = json.loads(match.to_json())
    assert data["game"] == "gioul" and data["score"] == list(match.score)
    assert GioulMatchRecord.from_json(match.to_json()) == match
    assert GioulMatchRecord.from_dict(data) == match
    game = match.games[-1]
    assert GioulGameRecord.from_json(game.to_json()) == game


def _tampered(data: dict[str, Any], change: Any) -> dict[str, Any]:
    copied = copy.deepcopy(data)
    change(copied)
    return copied


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["games"][0]["decisions"][3].update(steps=[[24, 1]]), "illegal"),
        (lambda d: d["games"][0]["decisions"][2].update(player="white" if d["games"][0]["decisions"][2]["player"] == "black" else "black"), "player"),
        (lambda d: d["games"][0]["decisions"][0].update(kind="hand-over"), "kind"),
        (lambda d: d["games"][0]["decisions"][1].update(dice=[9]), "dice"),
        (lambda d: d["games"][0].update(points=3), "do not match the replay"),
        (lambda d: d["games"][0]["decisions"].pop(), "not finished"),
        (lambda d: d.update(score=[9, 9]), "score"),
        (lambda d: d.update(game="fevga"), "not a Gioul match"),
        (lambda d: d["games"][1].update(start="bogus"), "start"),
        (lambda d: d["games"][0]["rules"].update(game="fevga"), "rules"),
        (lambda d: d["games"].append(d["games"][-1]), "after the match was won"),
    ],
)
def test_tampered_records_are_refused(change: Any, message: str) -> None:
    data = json.loads(play_match(game="gioul", length=3, seed=5, policy="heuristic").to_json())
    assert len(data["games"]) >= 2
    with pytest.raises(RecordError, match=message):
        GioulMatchRecord.from_dict(_tampered(data, change))


def test_bad_arguments() -> None:
    for call in (
        lambda: play_match(game="gioul", length=0),
        lambda: play_match(game="gioul", length=3, policy="lookahead"),
        lambda: play_match(game="gioul", length=3, policy=("random",)),  # type: ignore[arg-type]
        lambda: play_game(game="gioul", seed=1, start=GioulPosition.from_counts([15] + [0] * 24, [0] * 24 + [15])),
    ):
        with pytest.raises(InvalidArgumentError):
            call()
    with pytest.raises(InvalidRulesError):
        play_match(game="gioul", length=3, rules=Rules())
    with pytest.raises(RecordError):
        GioulMatchRecord.from_json("{not json")


def test_cli_play_match_gioul(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from fevga.cli import main

    out = tmp_path / "m.json"
    assert main(["play-match", "3", "--game", "gioul", "--seed", "9", "--policy", "random", "--save", str(out)]) == 0
    text = capsys.readouterr().out
    record = GioulMatchRecord.from_json(out.read_text())
    assert record == play_match(game="gioul", length=3, seed=9, policy="random")
    assert f"final score {record.score[0]}-{record.score[1]}" in text and "game 1 (one-die draw)" in text
    for argv, error in (
        (["play-match", "3", "--game", "gioul", "--policy", "lookahead"], "Gioul policy 'lookahead'"),
        (["play-match", "3", "--game", "gioul", "--human", "white"], "--human"),
        (["play-match", "3", "--game", "gioul", "--rules", "strict"], "Fevga preset"),
        (["play-match", "3", "--game", "gioul", "--save", str(tmp_path / "m.txt")], "JSON"),
    ):
        assert main(argv) == 2
        assert error in capsys.readouterr().err


def test_play_game_and_play_match_play_either_game() -> None:
    """One play_game and one play_match for both games, chosen by the start position, the
    rules or game= (all three the same game)."""
    by_name = play_game(seed=5, policy="heuristic", game="gioul")
    assert isinstance(by_name, GioulGameRecord) and by_name.decisions
    assert play_game(seed=5, policy="heuristic", rules=Rules.gioul()) == by_name
    started = play_game(seed=5, policy="heuristic", start=GioulPosition.initial())
    assert isinstance(started, GioulGameRecord) and started.start == GioulPosition.initial()
    assert started == play_game(seed=5, policy="heuristic", start=GioulPosition.initial(), game="gioul")
    match = play_match(3, seed=2, game="gioul")
    assert isinstance(match, GioulMatchRecord) and match == play_match(3, seed=2, rules=Rules.gioul())
    assert isinstance(play_game(seed=5), GameRecord) and isinstance(play_match(1, seed=2), MatchRecord)
    with pytest.raises(InvalidRulesError, match="game says fevga, rules says gioul"):
        play_game(seed=1, rules=Rules.gioul(), game="fevga")
    with pytest.raises(InvalidArgumentError, match="start says fevga"):
        play_game(seed=1, start=Position.initial(), game="gioul")
    with pytest.raises(InvalidArgumentError, match="game 'chess'"):
        play_match(3, game="chess")  # type: ignore[call-overload]
    with pytest.raises(InvalidArgumentError, match="max_plies"):
        play_game(seed=1, max_plies=10, game="gioul")
