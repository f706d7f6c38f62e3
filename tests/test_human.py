"""Playing against the engine in the terminal: piped input, a pseudo-terminal, tmux, and play-match."""

from __future__ import annotations

import io
import json
import os
import re
import select
import signal
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

import fevga
from fevga import BLACK, WHITE, Position, Rules
from dataclasses import replace
from fevga.cli.human import Console, Engine, play_human_game, play_human_match
from fevga.records import GameRecord
from fevga.records import load_record

FEVGA = [sys.executable, "-m", "fevga"]
NET_FILE = Path(fevga.__file__).parent / "data" / "net.npz"  # the shipped Fevga net


class Typist(io.StringIO):
    """A human at the keyboard: reads the board ID and the dice from the last prompt, first
    types an illegal move and `hint`, then a legal move (the last legal one)."""

    def __init__(self, screen: io.StringIO) -> None:
        super().__init__()
        self.screen = screen
        self.typed: list[str] = []
        self.asked: dict[str, int] = {}

    def readline(self, size: int | None = -1) -> str:
        text = self.screen.getvalue()
        position = Position.from_id(re.findall(r"ID (\S{16})", text)[-1])
        dice = tuple(int(d) for d in re.findall(r"(\d)-(\d)> $", text)[-1])
        key = f"{position.id}{dice}"
        self.asked[key] = self.asked.get(key, 0) + 1
        if self.asked[key] == 1:
            answer = "24/1 13/off"  # never legal: nothing on 13 or a 23-pip move
        elif self.asked[key] == 2:
            answer = "hint"
        else:
            answer = position.legal_moves(dice)[-1].notation
        self.typed.append(answer)
        return answer + "\n"


def test_a_whole_game_typed_move_by_move() -> None:
    screen = io.StringIO()
    typist = Typist(screen)
    record = play_human_game("white", seed=3, console=Console(stdin=typist, stdout=screen))
    assert record.final.is_game_over() and not record.truncated
    assert GameRecord.from_json(record.to_json()) == record  # every ply replays legally
    shown = screen.getvalue()
    assert shown.count("illegal: ") == sum(1 for t in typist.typed if t == "24/1 13/off")
    assert "hint (net 1-ply, as fevga hint" in shown and "wins" in shown
    assert record.policies == ("human", "net2")  # the engine that played: the shipped net, 2 plies
    boards = shown.count("White (W): pips")
    assert boards >= len(record.plies)  # the board after every roll


def test_piped_input_and_end_of_input(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    run = subprocess.run(FEVGA + ["play", "--human", "white", "--seed", "5", "--save", str(save)],
                         input="help\nmoves\n24/1\nboard\n", capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "commands:" in out and "legal moves:" in out and "illegal: " in out
    assert "End of input: the game is stopped unfinished." in out and "24/1\n" in out  # piped commands are echoed
    assert "the input ended before the game did" in run.stderr and str(save) in run.stderr
    record = load_record(save).games[0]
    assert record.truncated and record.plies  # the engine's and forced moves so far
    assert record.policies == ("human", "net2")


def test_illegal_moves_say_why() -> None:
    screen = io.StringIO()
    answers = io.StringIO("24/20\n24/10\n13/10\n24/18/12\nquit\n")
    play_human_game("white", seed=5, console=Console(stdin=answers, stdout=screen), engine=Engine("heuristic"))
    shown = screen.getvalue()
    reasons = re.findall(r"illegal: (.*)", shown)
    assert len(reasons) == 4 and all("legal: " in r or "cannot read" in r for r in reasons), reasons
    assert any("pips" in r for r in reasons)
    assert any("no checker on point 13" in r for r in reasons)


def _read_until(fd: int, pattern: str, timeout: float = 60.0) -> str:
    seen = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if re.search(pattern, seen.decode(errors="replace")):
                break
    return seen.decode(errors="replace")


def _exit_status(pid: int, timeout: float = 60.0) -> int:
    """The wait status of child `pid` once it exits; killed (and the test failed) if it has
    not exited within `timeout` seconds, so a child that hangs costs a minute, not the run."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail(f"the child did not exit within {timeout:g} s; killed")


def test_in_a_pseudo_terminal() -> None:
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child: fevga on a real terminal
        os.execv(sys.executable, FEVGA + ["play", "--human", "white", "--seed", "5"])
    try:
        first = _read_until(fd, r"white \d-\d> $")
        assert "You (white, your own numbering) rolled" in first
        os.write(fd, b"moves\n")
        listed = _read_until(fd, r"legal moves: .*\n.*> $")
        assert "legal moves:" in listed
        os.write(fd, b"quit\n")
        rest = _read_until(fd, r"Game stopped")
        assert "Game stopped (quit)" in rest
    finally:
        os.close(fd)
        _exit_status(pid)


def test_under_tmux() -> None:
    tmux = shutil.which("tmux")
    if tmux is None:
        return  # the pseudo-terminal test above covers a real terminal
    session = f"fevga-test-{uuid.uuid4().hex[:8]}"
    command = " ".join(FEVGA + ["play", "--human", "white", "--seed", "5"])
    subprocess.run([tmux, "new-session", "-d", "-s", session, "-x", "120", "-y", "50", command], check=True)
    # Keep the pane readable after fevga exits (else the session closes with it).
    subprocess.run([tmux, "set-option", "-w", "-t", session, "remain-on-exit", "on"], check=True)
    try:
        def pane() -> str:
            return subprocess.run([tmux, "capture-pane", "-p", "-t", session], capture_output=True,
                                  text=True).stdout

        def wait_for(pattern: str) -> str:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                text = pane()
                if re.search(pattern, text):
                    return text
                time.sleep(0.2)
            raise AssertionError(f"{pattern!r} never appeared:\n{pane()}")

        wait_for(r"white \d-\d>")
        subprocess.run([tmux, "send-keys", "-t", session, "hint", "Enter"], check=True)
        assert "hint (net 1-ply" in wait_for(r"hint \(net[\s\S]*>")
        subprocess.run([tmux, "send-keys", "-t", session, "24/2", "Enter"], check=True)
        assert "illegal: " in wait_for(r"illegal: ")
        subprocess.run([tmux, "send-keys", "-t", session, "quit", "Enter"], check=True)
        wait_for(r"Game stopped")
    finally:
        subprocess.run([tmux, "kill-session", "-t", session], capture_output=True)


def test_human_match_and_engine_match(tmp_path: Path) -> None:
    screen = io.StringIO()
    match = play_human_match(1, "black", seed=7, console=Console(stdin=Typist(screen), stdout=screen))
    assert match.winner is not None and match.players == ("fevga", "You")
    assert "wins the match" in screen.getvalue()
    save = tmp_path / "m.mat"
    run = subprocess.run(FEVGA + ["play-match", "3", "--seed", "4", "--save", str(save)], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    record = load_record(save)
    assert max(record.score) >= 3 and f"final score {record.score[0]}-{record.score[1]}" in run.stdout


def test_met_command() -> None:
    run = subprocess.run(FEVGA + ["met", "--length", "5"], capture_output=True, text=True, check=True)
    rows = [line for line in run.stdout.splitlines() if re.match(r"^\s+\d+ ", line)]
    assert len(rows) == 5 and " 50.0" in rows[0]
    data = subprocess.run(FEVGA + ["met", "--length", "3", "--json", "--odds", "0.4,0.15,0.35,0.1,0"],
                          capture_output=True, text=True, check=True).stdout
    assert abs(json.loads(data)["starter"][0][0] - 0.55) < 1e-12
    bad = subprocess.run(FEVGA + ["met", "--odds", "0.5,0.5"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


# ---------------------------------------------------------------------------------------
# The engine, the hints and the options (issue 14, items 1-4)


def test_engine_policies_play_as_the_core_policies_do() -> None:
    """The engine of a human game is the named core policy: replaying self-play records of
    net2, net and heuristic, it chooses every recorded move (so a record's name is the truth)."""
    from fevga.cli.human import Engine
    from fevga.game import play_game

    for policy in ("net2", "net", "heuristic"):
        record = play_game(seed=11, policy=policy, max_plies=40)
        engine = Engine(policy)
        for ply, before in zip(record.plies, record.positions()):
            moves = before.legal_moves(ply.dice)
            if len(moves) > 1:
                assert engine.choose(before, moves, ply.dice, record.rules).steps == ply.steps, (policy, before.id)
    gioul = play_game(game="gioul", seed=5, policy="heuristic")
    engine = Engine("heuristic", "gioul")
    for decision, before in zip(gioul.decisions, gioul.positions()):
        moves = before.legal_moves(decision.roll)
        chosen = engine.choose(before, moves, decision.roll, gioul.rules)
        assert chosen.position == next(m for m in moves if m.steps == decision.steps).position


def _session_text(answers: str, human: str = "white", seed: int = 5, **kwargs: object) -> tuple[str, object]:
    screen = io.StringIO()
    record = play_human_game(human, seed=seed, console=Console(stdin=io.StringIO(answers), stdout=screen),
                             **kwargs)  # type: ignore[arg-type]
    return screen.getvalue(), record


def test_hint_equals_fevga_hint() -> None:
    shown, _ = _session_text("hint\nquit\n")
    position = re.findall(r"ID (\S{16})", shown)[-1]
    dice = re.findall(r"white (\d-\d)> hint", shown)[0]
    table = shown.split("hint (net 1-ply, as fevga hint), equity for white:\n", 1)[1].splitlines()
    ours = [line for line in table[:6] if not line.startswith("  ...")]
    ours = ours[:next((i for i, line in enumerate(ours) if not line.startswith("  ")), len(ours))]
    cli = subprocess.run(FEVGA + ["hint", position, dice], capture_output=True, text=True, check=True).stdout
    assert len(ours) >= 2 and cli.splitlines()[1:len(ours) + 1] == ours  # the same header and rows


def test_engine_options_work_or_are_refused(tmp_path: Path) -> None:
    save = tmp_path / "g.json"
    run = subprocess.run(FEVGA + ["play", "--human", "white", "--black", "heuristic", "--seed", "5", "--save",
                                  str(save)], input="quit\n", capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "against heuristic" in run.stdout
    assert json.loads(save.read_text())["policies"] == ["human", "heuristic"]
    run = subprocess.run(FEVGA + ["play", "--human", "black", "--policy", "net", "--seed", "5", "--save", str(save)],
                         input="quit\n", capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and json.loads(save.read_text())["policies"] == ["net", "human"]
    for bad, words in ((["--white", "net"], "you play white"), (["--policy", "lookahead"], "cannot play a human"),
                       (["--json"], "--save FILE.json"), (["--game", "gioul", "--policy", "lookahead"], "cannot play a human at gioul"),
                       (["--game", "gioul", "--net", str(NET_FILE)], "a Fevga net"),
                       (["--game", "gioul", "--save", str(tmp_path / "none" / "g.mat")], "folder")):
        refused = subprocess.run(FEVGA + ["play", "--human", "white", *bad], input="quit\n", capture_output=True,
                                 text=True, timeout=120)
        assert refused.returncode == 2 and words in refused.stderr and refused.stderr.count("\n") == 1, bad
    refused = subprocess.run(FEVGA + ["play", "--tutor"], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "--human" in refused.stderr


def test_black_sees_its_own_numbering() -> None:
    shown, record = _session_text("board\nquit\n", human="black", seed=2)
    assert "The board is drawn in Black's own numbering" in shown
    board = shown.split("(points in Black's own numbering)\n", 1)[1].splitlines()
    labels, cells = board[0].split(), board[1].split()
    assert labels[:3] == ["13", "14", "15"] and "B15" in cells[-1] or "B14" in cells[-1]  # Black's 24: top right
    assert board[4].split()[0] == "12" and "W15" in board[3].split()[0] + board[3]  # White's start is Black's 12
    assert isinstance(record, GameRecord)


def test_undo_takes_back_the_last_move_and_replays_the_same_dice() -> None:
    screen = io.StringIO()

    class Once(io.StringIO):
        """Plays the first legal move, undoes it once, then plays the last legal move; then quits."""

        step = 0

        def readline(self, size: int | None = -1) -> str:
            text = screen.getvalue()
            position = Position.from_id(re.findall(r"ID (\S{16})", text)[-1])
            dice = tuple(int(d) for d in re.findall(r"(\d)-(\d)> $", text)[-1])
            Once.step += 1
            moves = position.legal_moves(dice)
            answer = {1: moves[0].notation, 2: "undo", 3: moves[-1].notation}.get(Once.step, "quit")
            if Once.step == 2 and "(the only legal move)" in text.rsplit("ID", 2)[-1]:
                answer = "undo"
            return answer + "\n"

    record = play_human_game("white", seed=3, console=Console(stdin=Once(), stdout=screen))
    shown = screen.getvalue()
    assert "Undone: your " in shown and "; the same dice again." in shown
    rolls = re.findall(r"white (\d-\d)> ", shown)
    assert rolls[0] == rolls[2]  # after undo the same roll is played again
    assert isinstance(record, GameRecord) and record.truncated
    first = next(p for p in record.plies if p.turn == WHITE and len(
        record.positions()[record.plies.index(p)].legal_moves(p.dice)) > 1)
    before = record.positions()[record.plies.index(first)]
    assert first.steps == before.legal_moves(first.dice)[-1].steps  # the move played after the undo


def test_resign_is_accepted_or_refused_as_it_should() -> None:
    from fevga.records import game_from_json, read_match, write_match

    # White (you) is far ahead: a point is more than the engine expects to win, it accepts.
    ahead = Position.from_counts([0] + [3] * 5 + [0] * 19, [0] * 24 + [15], WHITE)
    shown, record = _session_text("resign\n", start=ahead, seed=5)
    assert isinstance(record, GameRecord) and record.resigned and record.winner == BLACK and record.points == 1
    assert "You resigned: fevga wins 1 point." in shown
    assert game_from_json(record.to_json()) == record
    text = write_match(record)
    assert "Black wins 1 point (resigned)" in text
    assert read_match(text).games[0] == replace(record, seed="", policies=("White", "Black"))
    # White has nothing off and all its checkers far away, Black is bearing off: a mars is likely,
    # so a single point is refused and a mars accepted.
    white = [0] * 24 + [15]
    black = [3, 4, 4, 4, 0, 0] + [0] * 19
    start = Position.from_counts(white, black, WHITE)
    shown, record = _session_text("resign\nresign mars\n", start=start, seed=1)
    assert "fevga refuses 1 point" in shown
    assert isinstance(record, GameRecord) and record.resigned and record.points == 2 and record.winner == BLACK


def test_tutor_warns_before_a_bad_move() -> None:
    from fevga.analysis import hint

    screen = io.StringIO()
    state = {"worst": "", "at": ""}

    class Pupil(io.StringIO):
        """Types the hint's worst move, says no to the tutor, types it again and says yes; then quits."""

        def readline(self, size: int | None = -1) -> str:
            text = screen.getvalue()
            if text.endswith("Play it anyway? [y/N] "):
                return "n\n" if text.count("tutor: ") == 1 else "y\n"
            if state["worst"] and text.count("tutor: ") >= 2:
                return "quit\n"
            position = Position.from_id(re.findall(r"ID (\S{16})", text)[-1])
            dice = tuple(int(d) for d in re.findall(r"(\d)-(\d)> $", text)[-1])
            ranking = hint(position, dice)
            if ranking[-1].loss < 0.04:
                return ranking[0].move.notation + "\n"  # nothing bad to play on this roll
            state["worst"] = ranking[-1].move.notation
            state["at"] = position.id
            return state["worst"] + "\n"

    record = play_human_game("white", seed=8, console=Console(stdin=Pupil(), stdout=screen), tutor="doubtful")
    shown = screen.getvalue()
    assert shown.count("tutor: ") == 2 and re.search(r"tutor: .* is (doubtful|bad|very bad): it gives up", shown)
    assert isinstance(record, GameRecord)
    before = record.positions()
    warned = [(p, before[i]) for i, p in enumerate(record.plies) if before[i].id == state["at"]]
    assert len(warned) == 1  # the move confirmed after the second warning was played there
    ply, position = warned[0]
    assert position.parse_move(state["worst"], ply.dice).position == position.legal_moves(ply.dice)[
        [m.steps for m in position.legal_moves(ply.dice)].index(ply.steps)].position


def test_gioul_hint_piped_on_stdin_shows_the_nets_equities() -> None:
    from fevga.gioul import GioulPosition

    run = subprocess.run(FEVGA + ["play", "--human", "white", "--game", "gioul", "--seed", "3"], input="hint\nquit\n",
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    shown = run.stdout
    assert "against net2; hints: Gioul net 1-ply, as fevga hint" in shown
    state = GioulPosition.from_id(re.findall(r"ID (\S{20})", shown.split("> hint")[0])[-1])
    rolled = re.findall(r"rolled (\d)-(\d)", shown.split("> hint")[0])[-1]
    best = fevga.hint(state, None if state.pending else (int(rolled[0]), int(rolled[1])))[0]
    table = shown.split("hint (Gioul net 1-ply, as fevga hint), equity for white:", 1)[1]
    assert f"1 {best.move.notation:<28}   1 {best.equity:+8.4f}" in table


@pytest.mark.parametrize("flag", ["--hint-every-move", None, "--no-hint-every-move"])
def test_hints_searching_every_move_are_fevga_hint_every_move(flag: str | None) -> None:
    """--hint-plies 2 --hint-every-move, or nothing in Gioul (its default search): the hints are
    fevga.hint(..., 2, every_move=True)'s and say so; --no-hint-every-move: the move filter's;
    the flag needs --hint-plies 2 and a human side."""
    from fevga.gioul import GioulPosition

    every_move = flag != "--no-hint-every-move"
    argv = ["play", "--human", "white", "--game", "gioul", "--seed", "3", "--hint-plies", "2", *([flag] if flag else [])]
    run = subprocess.run(FEVGA + argv, input="hint\nquit\n", capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    shown = run.stdout
    name = f"Gioul net 2-ply{' every move' if every_move else ''}, as fevga hint"
    assert f"hints: {name}" in shown
    state = GioulPosition.from_id(re.findall(r"ID (\S{20})", shown.split("> hint")[0])[-1])
    rolled = re.findall(r"rolled (\d)-(\d)", shown.split("> hint")[0])[-1]
    hinted = fevga.hint(state, None if state.pending else (int(rolled[0]), int(rolled[1])), 2, every_move=every_move)
    table = shown.split(f"hint ({name}), equity for white:", 1)[1]
    rows = [f"{k} {h.move.notation:<28} {h.plies:>3} {h.equity:+8.4f}" for k, h in enumerate(hinted[:5], 1)]
    assert len(hinted) >= 5 and all(row in table for row in rows), table
    assert [h.plies for h in hinted[:5]].count(2) == (5 if every_move else 4)  # filtered: not the 5th
    if flag != "--hint-every-move":
        return  # the refusals, once
    for argv, message in ((["--human", "white", "--hint-every-move"], "add --hint-plies 2"),
                          (["--hint-plies", "2", "--hint-every-move"], "add --human white|black")):
        refused = subprocess.run(FEVGA + ["play", *argv], input="quit\n", capture_output=True, text=True, timeout=120)
        assert refused.returncode == 2 and message in refused.stderr, refused.stderr


def test_gioul_against_the_gioul_net_with_hints_and_the_tutor(tmp_path: Path) -> None:
    from fevga.analyser import ApiEvaluator, analyse
    from fevga.gioul import GioulPosition
    from fevga.records import GioulGameRecord

    screen = io.StringIO()
    hinted: list[tuple[GioulPosition, tuple[int, int] | None, str]] = []

    class GioulTypist(io.StringIO):
        """Asks for a hint at each decision, then plays the last legal move (confirming the tutor)."""

        def readline(self, size: int | None = -1) -> str:
            text = screen.getvalue()
            if text.endswith("Play it anyway? [y/N] "):
                return "y\n"
            state = GioulPosition.from_id(re.findall(r"ID (\S{20})", text)[-1])
            rolled = re.findall(r"rolled (\d)-(\d)", text)
            dice = (int(rolled[-1][0]), int(rolled[-1][1])) if state.pending == () and rolled else None
            after = text.rsplit("ID", 1)[-1]
            if "hint (" not in after:
                return "hint\n"
            if len(hinted) < 3 and not any(h[0] == state and h[1] == dice for h in hinted):
                hinted.append((state, dice, after.split("hint (", 1)[1]))
            return state.legal_moves(dice)[-1].notation + "\n"

    record = play_human_game("white", seed=4, rules=Rules.gioul(), tutor="doubtful",
                             console=Console(stdin=GioulTypist(), stdout=screen))
    shown = screen.getvalue()
    assert "against net2; hints: Gioul net 1-ply, as fevga hint" in shown
    assert "hint (Gioul net 1-ply, as fevga hint), equity for white:" in shown
    assert re.search(r"tutor: .* is (doubtful|bad|very bad): it gives up", shown)
    assert len(hinted) == 3
    for state, dice, table in hinted:  # the hint shows fevga.hint's equities (the shipped Gioul net)
        best = fevga.hint(state, dice)[0]
        assert f"1 {best.move.notation:<28}   1 {best.equity:+8.4f}" in table
    assert isinstance(record, GioulGameRecord) and record.final.is_game_over() and not record.truncated
    assert record.policies == ("human", "net2")
    assert GioulGameRecord.from_json(record.to_json()) == replace(record, decisions=record.decisions)
    white, black = analyse(record, evaluator=ApiEvaluator(2, every_move=False)).players
    assert black.total_loss == 0.0 and black.decisions > 0  # net2 plays the move filter's 2-ply best
    save = tmp_path / "gioul.json"
    run = subprocess.run(FEVGA + ["play", "--human", "black", "--game", "gioul", "--seed", "4", "--save", str(save)],
                         input="quit\n", capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    saved = GioulGameRecord.from_json(save.read_text())
    assert saved.truncated and saved.policies == ("net2", "human") and "saved" in run.stdout
    text = tmp_path / "gioul.txt"  # the text match format, as for Fevga
    run = subprocess.run(FEVGA + ["play", "--human", "black", "--game", "gioul", "--seed", "4", "--save", str(text)],
                         input="quit\n", capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    (loaded,) = load_record(text).games
    assert loaded.truncated and (loaded.decisions, loaded.final) == (saved.decisions, saved.final)


def test_ctrl_c_saves_the_game_so_far(tmp_path: Path) -> None:
    import pty

    save = tmp_path / "interrupted.json"
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.executable, FEVGA + ["play", "--human", "white", "--seed", "5", "--save", str(save)])
    try:
        shown = _read_until(fd, r"white \d-\d> $")
        assert re.search(r"white \d-\d> $", shown), f"no prompt within 60 s: {shown[-500:]!r}"
        # The prompt is written just before the child blocks in its read: a SIGINT landing
        # between the two is only acted on when the read returns (CPython checks signals on
        # EINTR), so, as a user would, press Ctrl-C again if nothing happens (seen about once
        # in 15 runs with other runs beside it).
        rest = ""
        for _ in range(3):
            os.kill(pid, signal.SIGINT)
            rest += _read_until(fd, r"saved ", timeout=5.0)
            if "saved " in rest:
                break
        assert "Game stopped (Ctrl-C)" in rest, f"after SIGINT: {rest!r}"
    finally:
        status = _exit_status(pid)
        os.close(fd)
    assert os.WEXITSTATUS(status) == 130
    record = load_record(save).games[0]
    assert record.truncated and record.policies == ("human", "net2")
