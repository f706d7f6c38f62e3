"""`fevga ... --game gioul` as a user runs it (subprocess) and in-process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fevga.cli import main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fevga", *args], capture_output=True, text=True, timeout=120)


def test_moves_perft_play_show() -> None:
    moves = run("moves", "start", "5-5", "--game", "gioul", "--json")
    assert moves.returncode == 0, moves.stderr
    data = json.loads(moves.stdout)
    assert data["game"] == "gioul"
    assert [m["move"] for m in data["moves"]] == ["24/4", "24/9 24/19", "24/14(2)", "24/14 24/19(2)", "24/19(4)"]
    assert run("perft", "3", "--game", "gioul").stdout.startswith("perft(3) = 480752")
    played = run("play", "--game", "gioul", "--seed", "7", "--json")
    record = json.loads(played.stdout)
    assert record["game"] == "gioul" and record["result"] in ("white", "black", "draw")
    assert {"player", "roller", "kind", "dice", "move"} <= set(record["decisions"][0])
    shown = run("show", "--game", "gioul")
    assert "Gioul. Next rolls: white 1, black 1" in shown.stdout and "f_8AAAD__gAAAAAAAABH" in shown.stdout


def test_a_gioul_id_selects_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    # vector 11.6.6: White's roll 4 is 5-5, two 5s only, the rest goes to Black
    assert main(["moves", "f_4AIAD__AABAAAA4ABH", "5-5"]) == 0
    out = capsys.readouterr().out
    assert "13/3" in out and "black plays 5 5 6 6 6 6" in out
    assert main(["moves", "__4AAAj__AABAAAA5VhH"]) == 0  # the pending decision: no dice
    assert "with 5 5:" in capsys.readouterr().out


def test_gioul_errors_are_one_line() -> None:
    for args in (
        ("moves", "start", "--game", "gioul"),  # a new roll needs dice
        ("moves", "__4AAAj__AABAAAA5VhH", "6-5"),  # dice pending: no new roll
        ("moves", "start", "5-5", "--game", "gioul", "--rules", "strict"),
        ("play", "--game", "gioul", "--policy", "bearoff"),
        ("moves", "f_8AAAD__gAAAAAA", "6-5", "--game", "gioul"),  # a Fevga ID
    ):
        result = run(*args)
        assert result.returncode == 2, args
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("fevga: error:"), result.stderr


def test_rollout_of_a_gioul_position() -> None:
    result = run("rollout", "start", "--game", "gioul", "--games", "2000", "--seed", "3", "--workers", "2", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["game"] == "gioul" and data["games"] == 2000 and data["side"] == "white"
    text = run("rollout", "__4AAAj__AABAAAA5VhH", "--games", "500", "--seed", "1")
    assert text.returncode == 0 and "Gioul rollout of __4AAAj__AABAAAA5VhH for black" in text.stdout
    refused = run("rollout", "start", "--game", "gioul", "--dice", "6-5")
    assert refused.returncode == 2 and "not supported for Gioul" in refused.stderr
