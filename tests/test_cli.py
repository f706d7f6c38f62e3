"""The `fevga` command line, run as a user would (a subprocess) and in-process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

import fevga
from fevga import Position
from fevga.cli import main
from fevga.game import play_game


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fevga", *args], capture_output=True, text=True, timeout=120)


class StartFacts(NamedTuple):
    """What a game's command line says of its start."""

    args: tuple[str, ...]  # the arguments that choose the game
    shown: tuple[str, ...]  # in `show`
    moves: list[str]  # the moves of 5-5, in order
    perft: int  # perft(3)
    results: tuple[str, ...]  # what seeded game 7 may end in
    decisions: str  # the record's list of decisions ...
    keys: set[str]  # ... and the keys of each


START_FACTS = {
    "fevga": StartFacts((), ("W15", "B15", "pips 360"), ["24/4", "24/9 24/19"], 21893, ("white",), "plies",
                        {"turn", "dice", "move", "steps", "position"}),
    "gioul": StartFacts(("--game", "gioul"), ("Gioul. Next rolls: white 1, black 1", "f_8AAAD__gAAAAAAAABH"),
                        ["24/4", "24/9 24/19", "24/14(2)", "24/14 24/19(2)", "24/19(4)"], 480752,
                        ("white", "black", "draw"), "decisions", {"player", "roller", "kind", "dice", "move"}),
}


def test_show_moves_perft_play_as_subprocess(game: str) -> None:
    facts = START_FACTS[game]
    shown = run("show", *facts.args)
    assert shown.returncode == 0 and all(text in shown.stdout for text in facts.shown), shown.stdout
    moves = run("moves", "start", "5-5", *facts.args, "--json")
    assert moves.returncode == 0, moves.stderr
    data = json.loads(moves.stdout)
    assert data.get("game", "fevga") == game  # a Fevga listing names no game
    assert [m["move"] for m in data["moves"]] == facts.moves
    assert run("perft", "3", *facts.args).stdout.startswith(f"perft(3) = {facts.perft}")
    record = json.loads(run("play", *facts.args, "--seed", "7", "--json").stdout)
    assert record.get("game", "fevga") == game and record["result"] in facts.results
    assert facts.keys <= set(record[facts.decisions][0])


# Commands refused with one line and no traceback, in each game.
BAD_COMMANDS = {
    "fevga": [("moves", "start", "7-1"), ("moves", "NOTANID", "6-5"), ("perft", "-1"), ("show", "{bad json")],
    "gioul": [
        ("moves", "start", "--game", "gioul"),  # a new roll needs dice
        ("moves", "__4AAAj__AABAAAA5VhH", "6-5"),  # dice pending: no new roll
        ("moves", "start", "5-5", "--game", "gioul", "--rules", "strict"),
        ("play", "--game", "gioul", "--policy", "bearoff"),
        ("moves", "f_8AAAD__gAAAAAA", "6-5", "--game", "gioul"),  # a Fevga ID
    ],
}


def test_errors_are_one_line_without_traceback(game: str) -> None:
    for args in BAD_COMMANDS[game]:
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


def test_hint_every_move_searches_every_move_at_the_plies(capsys: pytest.CaptureFixture[str]) -> None:
    middle = Position.from_id("flYUghD7UohCgAAA")  # 14 moves
    assert main(["hint", middle.id, "5-6", "--plies", "2", "--every-move", "--top", "0", "--json"]) == 0
    hinted = json.loads(capsys.readouterr().out)
    every = fevga.hint(middle, (5, 6), 2, every_move=True)
    assert hinted["every_move"] is True and [m["plies"] for m in hinted["moves"]] == [2] * len(every)
    assert [(m["move"], m["equity"]) for m in hinted["moves"]] == [(h.move.notation, h.equity) for h in every]
    assert main(["hint", middle.id, "5-6", "--plies", "2", "--top", "0", "--json"]) == 0
    assert 1 in [m["plies"] for m in json.loads(capsys.readouterr().out)["moves"]]  # the filter left some at 1 ply
    assert main(["hint", middle.id, "5-6", "--every-move"]) != 0  # at 1 ply it would change nothing
    assert "--every-move searches at 2 plies or more: add --plies 2" in capsys.readouterr().err


def test_a_gioul_hint_searches_every_move_unless_told_not_to(capsys: pytest.CaptureFixture[str]) -> None:
    """Gioul's default search is every move (fevga.hint every_move=None); --no-every-move asks
    for the move filter's, on a decision where the two pick differently."""
    state = fevga.GioulPosition.from_id("fwIADmoDwAFXvAAA8ABH")
    for flags, every_move in (([], True), (["--every-move"], True), (["--no-every-move"], False)):
        assert main(["hint", state.id, "6-5", "--game", "gioul", "--plies", "2", "--top", "0", "--json", *flags]) == 0
        hinted = json.loads(capsys.readouterr().out)
        expected = fevga.hint(state, (6, 5), 2, every_move=every_move)
        assert hinted["every_move"] is every_move
        assert [(m["move"], m["plies"], m["equity"]) for m in hinted["moves"]] == \
            [(h.move.notation, h.plies, h.equity) for h in expected]
    assert hinted["moves"][0]["move"] != fevga.hint(state, (6, 5), 2)[0].move.notation


def test_quantised_option_plays_and_judges_with_the_quantised_net(capsys: pytest.CaptureFixture[str]) -> None:
    quantised = fevga.Net.default().quantised()
    middle = "f_8AAAD__gAAAAAA"
    assert main(["evaluate", middle, "--quantised", "--json"]) == 0
    judged = json.loads(capsys.readouterr().out)
    expected = fevga.evaluate(Position.from_id(middle), net=quantised)
    assert judged["win"] == expected.win != fevga.evaluate(Position.from_id(middle)).win
    assert main(["hint", middle, "6-5", "--quantised", "--json"]) == 0
    hinted = json.loads(capsys.readouterr().out)
    assert hinted["moves"][0]["win"] == fevga.hint(Position.from_id(middle), (6, 5), net=quantised)[0].evaluation.win
    assert main(["play", "--seed", "3", "--policy", "net", "--quantised", "--json"]) == 0
    played = json.loads(capsys.readouterr().out)
    assert played == json.loads(play_game(seed=3, policy="net", net=quantised).to_json())
    gioul_quantised = fevga.Net.default("gioul").quantised()
    assert main(["hint", "--game", "gioul", "start", "6-5", "--quantised", "--json"]) == 0
    hinted = json.loads(capsys.readouterr().out)
    start = fevga.GioulPosition.initial()
    assert hinted["moves"][0]["win"] == fevga.hint(start, (6, 5), net=gioul_quantised)[0].evaluation.win
    assert main(["play", "--game", "gioul", "--seed", "3", "--policy", "net", "--quantised", "--json"]) == 0
    played = json.loads(capsys.readouterr().out)
    assert played == json.loads(play_game(seed=3, policy="net", net=gioul_quantised, game="gioul").to_json())
    assert main(["rollout", "--game", "gioul", "start", "--quantised", "--games", "36", "--seed", "2", "--workers", "1",
                 "--no-progress", "--json"]) == 0
    rolled = json.loads(capsys.readouterr().out)
    expected = fevga.rollout(fevga.GioulPosition.initial(), games=36, seed=2, workers=1, net=gioul_quantised,
                             progress=False)
    assert rolled["equity"] == expected.equity and rolled["net"] == gioul_quantised.checksum
    assert main(["rollout", "--game", "gioul", "start", "--dice", "6-5", "--candidates", "2", "--quantised",
                 "--games", "36", "--seed", "2", "--workers", "1", "--no-progress", "--json"]) == 0
    ranked = json.loads(capsys.readouterr().out)
    moves = fevga.rollout_moves(fevga.GioulPosition.initial(), "6-5", games=36, seed=2, workers=1, candidates=2,
                                net=gioul_quantised, progress=False)
    assert [m["move"] for m in ranked["moves"]] == [m.move.notation for m in moves]


def test_output_into_a_closed_pipe_is_not_a_traceback() -> None:
    # The reader closes the pipe before the command (still starting Python) writes a byte.
    child = subprocess.Popen([sys.executable, "-m", "fevga", "moves", "start", "5-5", "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()
    stderr = child.stderr.read()
    assert child.wait(timeout=120) == 1
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr


def test_version_and_board_pictures(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    version = run("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"fevga {fevga.__version__}"
    svg_file, png_file = tmp_path / "b.svg", tmp_path / "b.png"
    position = Position.from_counts([4, 2, 3, 3, 0, 0, 3] + [0] * 18, [9, 0, 0, 0, 1, 2, 3] + [0] * 18, 1)
    shown = run("show", position.id, "--svg", str(svg_file), "--png", str(png_file), "--dice", "6-5")
    assert shown.returncode == 0, shown.stderr
    assert f"wrote {svg_file}" in shown.stdout and f"wrote {png_file}" in shown.stdout
    root = ET.fromstring(svg_file.read_text())
    ns = "{http://www.w3.org/2000/svg}"
    points = [e for e in root.iter(f"{ns}polygon") if e.get("class") == "point"]
    assert sorted(int(e.get("data-point", 0)) for e in points) == list(range(1, 25))
    checkers = [e for e in root.iter(f"{ns}circle") if (e.get("class") or "").startswith("checker")]
    assert len(checkers) == 30 - 4 - 9 and root.get("data-position") == position.id
    trays = {e.get("class"): e.get("data-off") for e in root.iter(f"{ns}g") if "tray" in (e.get("class") or "")}
    assert trays == {"tray white": "4", "tray black": "9"}
    assert sorted(e.get("data-value") for e in root.iter(f"{ns}g") if e.get("class") == "die") == ["5", "6"]
    caption = next(e for e in root.iter(f"{ns}text") if e.get("class") == "caption")
    assert caption.text == "White 35 pips, 4 off · Black 32 pips, 9 off · Black to play"
    assert float(caption.get("font-size", 0)) * 480 / float(root.get("viewBox", "0 0 1 1").split()[2]) >= 14
    assert png_file.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    turned = run("show", position.id, "--black")
    assert "(points in Black's own numbering)" in turned.stdout
    bad = run("show", "--dice", "6-5")
    assert bad.returncode == 2 and "--svg FILE" in bad.stderr
