"""`fevga ... --game gioul` as a user runs it (subprocess) and in-process: what only Gioul has
(IDs with dice pending, hand-overs, its refusals, its records). The commands both games share
(show, moves, perft, play, one-line errors, rollout) run for both in test_cli.py and test_rollout.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fevga.cli import main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fevga", *args], capture_output=True, text=True, timeout=120)


def test_a_gioul_id_selects_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    # vector 11.6.6: White's roll 4 is 5-5, two 5s only, the rest goes to Black
    assert main(["moves", "f_4AIAD__AABAAAA4ABH", "5-5"]) == 0
    out = capsys.readouterr().out
    assert "13/3" in out and "black plays 5 5 6 6 6 6" in out
    assert main(["moves", "__4AAAj__AABAAAA5VhH"]) == 0  # the pending decision: no dice
    assert "with 5 5:" in capsys.readouterr().out


def test_rollout_of_a_gioul_position(tmp_path: Path) -> None:
    """A state with dice handed over, with luck; a Gioul job resumed from its checkpoint (what
    rollouts of either game share: test_rollout.py's test_cli_rollout_json_and_ranking)."""
    text = run("rollout", "__4AAAj__AABAAAA5VhH", "--games", "504", "--seed", "1", "--luck", "--policy", "heuristic")
    assert text.returncode == 0, text.stderr
    assert "position __4AAAj__AABAAAA5VhH: 504 games, policy heuristic, seed 1" in text.stdout
    assert "rolls" in text.stdout
    checkpoint = str(tmp_path / "gioul.npz")
    common = ("rollout", "start", "--game", "gioul", "--games", "36", "--seed", "1", "--policy", "random",
              "--workers", "1")
    first = run(*common, "--checkpoint", checkpoint)
    again = run(*common, "--checkpoint", checkpoint)
    assert first.returncode == again.returncode == 0, (first.stderr, again.stderr)
    assert "36 games resumed from the checkpoint" in again.stdout
    assert first.stdout.splitlines()[1] == again.stdout.splitlines()[1]  # the same equity line


def test_rank_the_moves_of_a_gioul_roll_and_of_a_pending_decision() -> None:
    roll = run("rollout", "start", "--game", "gioul", "--dice", "6-5", "--games", "72", "--seed", "2", "--json")
    assert roll.returncode == 0, roll.stderr
    moves = json.loads(roll.stdout)["moves"]
    assert sorted(m["move"] for m in moves) == ["24/13", "24/18 24/19"]
    pending = run("rollout", "__4AAAj__AABAAAA5VhH", "--pending", "--games", "72", "--seed", "2")
    assert pending.returncode == 0, pending.stderr
    assert pending.stdout.startswith("black to play 5 5 6 6 6 6 (pending) in __4AAAj__AABAAAA5VhH")


def test_gioul_rollout_refusals_are_one_line() -> None:
    for args, message in (
        (("start", "--game", "gioul", "--net", "x.npz"), "cannot read net file 'x.npz'"),
        (("start", "--game", "gioul", "--rules", "strict"), "--rules not supported for Gioul"),
        (("start", "--game", "gioul", "--score", "1-0", "--length", "3"), "--score, --length not supported"),
        (("start", "--game", "gioul", "--pending"), "no dice pending"),
        (("__4AAAj__AABAAAA5VhH", "--dice", "6-5"), "rank them with --pending"),
        (("start", "--pending"), "--pending ranks the pending decision of a Gioul state"),
        (("start", "--game", "gioul", "--policy", "lookahead"), "cannot play Gioul"),
    ):
        result = run("rollout", *args, "--games", "36")
        assert result.returncode == 2, args
        assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr

def test_play_saves_a_gioul_self_play_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from fevga.records import GioulGameRecord
    from fevga.game import play_game
    from fevga.records import load_record

    path = tmp_path / "g.json"
    assert main(["play", "--game", "gioul", "--seed", "7", "--save", str(path)]) == 0
    saved = GioulGameRecord.from_json(path.read_text(encoding="utf-8"))
    assert saved == play_game(game="gioul", seed=7)
    assert saved.positions()[-1] == saved.final  # it replays through the rules
    text = tmp_path / "g.txt"
    assert main(["play", "--game", "gioul", "--seed", "7", "--save", str(text)]) == 0
    assert "Rules: game=gioul" in text.read_text(encoding="utf-8")
    (loaded,) = load_record(text).games  # the text format keeps every decision, not the seed
    assert loaded.decisions == saved.decisions and loaded.final == saved.final
    assert (loaded.winner, loaded.points) == (saved.winner, saved.points)
    capsys.readouterr()
    for record in (path, text):  # read as Gioul and analysed by the shipped Gioul net, the same from either file
        assert main(["analyse", str(record), "--json"]) == 0
        analysed = json.loads(capsys.readouterr().out)
        assert analysed["evaluator"] == "net 1-ply" and len(analysed["games"][0]["plies"]) == len(saved.decisions)
    assert main(["play", "--game", "gioul", "--seed", "7", "--save", str(tmp_path / "no" / "g.txt")]) == 2
    assert "no" not in {p.name for p in tmp_path.iterdir()}  # checked before the game, no folder made
