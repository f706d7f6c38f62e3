"""The command line never shows a traceback: every error is one line on stderr with exit status 2
(issue 19, "Tracebacks on the CLI"; issue 14, item 8: error wording)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fevga import GioulPosition
from fevga.cli import main


def _one_line(err: str) -> None:
    assert err.startswith("fevga") and ": error: " in err and err.count("\n") == 1, err
    assert "Traceback" not in err and "usage:" not in err


@pytest.mark.parametrize("argv", [
    ["rollout", "--games", "\u00b2"],  # a superscript two
    ["rollout", "--games", "\u0661\u0662"],  # Arabic-Indic digits: int() would read 12
    ["rollout", "--games", "1_000"],
    ["rollout", "--games", "9" * 5000],
    ["perft", "\u00b2"],
    ["play", "--seed", "\u00b9"],
    ["train", "/tmp/x", "--lam", "nan"],
    ["train", "/tmp/x", "--rate", "inf"],
    ["train", "/tmp/x", "--rate", "1e999"],
    ["moves", "start", "\u00b2-5"],
    ["nonsense"],
    [],
    ["rollout", "--no-such-option"],
    ["bearoff"],
    ["analyse"],
    ["evaluate", "--plies"],
])
def test_argument_errors_are_one_line_with_status_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    _one_line(captured.err)
    assert captured.out == ""


def test_gioul_pending_dice_in_unicode_digits(capsys: pytest.CaptureFixture[str]) -> None:
    text = '{"game": "gioul", "white": %s, "black": %s, "turn": "white", "next_roll": {"white": 2, "black": 2}, ' \
           '"roller": "white", "dice": "\u00b2"}' % ([0] * 24 + [15], [0] * 24 + [15])
    assert main(["moves", text]) == 2
    _one_line(capsys.readouterr().err)


def test_closed_stdout_is_one_line_and_status_2() -> None:
    for argv in (["met"], ["show"], ["moves", "start", "6-5"]):
        done = subprocess.run(f"{sys.executable} -m fevga {' '.join(argv)} >&-", shell=True, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 2, (argv, done.stderr)
        _one_line(done.stderr)
        assert "standard output is closed" in done.stderr


def test_plies_ranges_are_worded_alike(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from fevga.game import play_game
    from fevga.records import save_record

    record = tmp_path / "g.json"
    save_record(play_game(seed=1, max_plies=6), record)
    messages = []
    for plies in ("0", "5"):
        assert main(["analyse", str(record), "--plies", plies]) == 2
        err = capsys.readouterr().err
        _one_line(err)
        messages.append(err.replace(f"plies={plies}", "plies=N"))
    assert messages[0] == messages[1] and "1..4" in messages[0]
    for plies in ("0", "5"):
        assert main(["hint", "start", "6-5", "--plies", plies]) == 2
        assert "must be an integer in 1..4" in capsys.readouterr().err


def test_evaluate_and_hint_of_a_gioul_id_judge_it_or_say_why_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    gioul = GioulPosition.initial()
    for argv in (["evaluate", gioul.id], ["hint", gioul.id, "6-5"], ["evaluate", gioul.to_json()]):
        assert main(argv) == 0  # the ID (or JSON) says the game: no --game needed
    capsys.readouterr()
    for argv, words in ((["hint", gioul.id, "6-5", "--plies", "4"], "a Gioul state is judged at 1..3 plies"),
                        (["hint", gioul.rolled("6-5").id, "6-5"], "has dice pending"),
                        (["hint", gioul.id], "needs the dice")):
        assert main(argv) == 2
        err = capsys.readouterr().err
        _one_line(err)
        assert words in err and "--game" not in err, err


def test_no_traceback_from_a_bug_either(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import fevga.cli.game

    def broken(args: object) -> int:
        raise TypeError("an engine bug")

    monkeypatch.setattr(fevga.cli.game, "_show", broken)
    assert main(["show"]) == 2
    err = capsys.readouterr().err
    _one_line(err)
    assert "internal error" in err and "TypeError: an engine bug" in err


_INTERRUPTED_IMPORT = """
import importlib.abc, sys

class Interrupt(importlib.abc.MetaPathFinder):
    # a Ctrl-C that lands while the package is still importing its modules
    def find_spec(self, name, path, target=None):
        if name == "fevga.batch":
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, Interrupt())
from fevga.cli import main
sys.exit(main())
"""


def test_ctrl_c_during_start_up_is_one_line_and_status_130(tmp_path: Path) -> None:
    command = tmp_path / "fevga"  # what the console script is called: the hook looks at argv[0]
    command.write_text(_INTERRUPTED_IMPORT)
    done = subprocess.run([sys.executable, str(command), "--version"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 130 and done.stderr == "fevga: interrupted\n", (done.returncode, done.stderr)
    other = tmp_path / "tool.py"  # a program that imports fevga keeps Python's own KeyboardInterrupt
    other.write_text(_INTERRUPTED_IMPORT)
    done = subprocess.run([sys.executable, str(other), "--version"], capture_output=True, text=True, timeout=120)
    assert "Traceback" in done.stderr and "KeyboardInterrupt" in done.stderr
