"""The `fevga` command line, run as a user would (a subprocess) and in-process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fevga import Position
from fevga.cli import main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fevga", *args], capture_output=True, text=True, timeout=120)


def test_show_moves_perft_play_as_subprocess() -> None:
    shown = run("show")
    assert shown.returncode == 0 and "W15" in shown.stdout and "B15" in shown.stdout and "pips 360" in shown.stdout
    moves = run("moves", "start", "5-5", "--json")
    data = json.loads(moves.stdout)
    assert sorted(m["move"] for m in data["moves"]) == ["24/4", "24/9 24/19"]
    assert run("perft", "3").stdout.startswith("perft(3) = 21893")
    played = run("play", "--seed", "7", "--json")
    assert json.loads(played.stdout)["result"] == "white"


def test_errors_are_one_line_without_traceback() -> None:
    for args in (("moves", "start", "7-1"), ("moves", "NOTANID", "6-5"), ("perft", "-1"), ("show", "{bad json")):
        result = run(*args)
        assert result.returncode == 2, args
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("fevga: error:"), result.stderr
        assert "Traceback" not in result.stderr


def test_in_process_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["moves", Position.initial().id, "6-5"]) == 0
    assert "24/13" in capsys.readouterr().out
    assert main(["moves", "start", "66", "--rules", "strict"]) == 0
    assert "24/18" in capsys.readouterr().out
    assert main(["play", "--seed", "3", "--white", "heuristic"]) == 0
    out = capsys.readouterr().out
    assert "white=heuristic black=random" in out and "point(s)" in out


def test_output_into_a_closed_pipe_is_not_a_traceback() -> None:
    # The reader closes the pipe before the command (still starting Python) writes a byte.
    child = subprocess.Popen([sys.executable, "-m", "fevga", "moves", "start", "5-5", "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()
    stderr = child.stderr.read()
    assert child.wait(timeout=120) == 1
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
