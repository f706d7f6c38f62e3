"""Playing against the engine in the terminal: piped input, a pseudo-terminal, tmux, and play-match."""

from __future__ import annotations

import io
import json
import os
import re
import select
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

from fevga import Position
from fevga.cli.human import Console, play_human_game, play_human_match
from fevga.game import GameRecord
from fevga.records import load_record

FEVGA = [sys.executable, "-m", "fevga"]


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
    assert "hint (heuristic 2-ply" in shown and "wins" in shown
    assert record.policies[0] == "human" and record.policies[1].startswith("heuristic")
    boards = shown.count("White (W): pips")
    assert boards >= len(record.plies)  # the board after every roll


def test_piped_input_and_end_of_input(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    run = subprocess.run(FEVGA + ["play", "--human", "white", "--seed", "5", "--save", str(save)],
                         input="help\nmoves\n24/1\nboard\n", capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "commands:" in out and "legal moves:" in out and "illegal: " in out
    assert "Game stopped." in out and "24/1\n" in out  # piped commands are echoed
    record = load_record(save).games[0]
    assert record.truncated and record.plies  # the engine's and forced moves so far


def test_illegal_moves_say_why() -> None:
    screen = io.StringIO()
    answers = io.StringIO("24/20\n24/10\n13/10\n24/18/12\nquit\n")
    play_human_game("white", seed=5, console=Console(stdin=answers, stdout=screen))
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


def test_in_a_pseudo_terminal() -> None:
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child: fevga on a real terminal
        os.execv(sys.executable, FEVGA + ["play", "--human", "white", "--seed", "5"])
    try:
        first = _read_until(fd, r"white \d-\d> $")
        assert "You (white) rolled" in first
        os.write(fd, b"moves\n")
        listed = _read_until(fd, r"legal moves: .*\n.*> $")
        assert "legal moves:" in listed
        os.write(fd, b"quit\n")
        rest = _read_until(fd, r"Game stopped")
        assert "Game stopped" in rest
    finally:
        os.close(fd)
        os.waitpid(pid, 0)


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
        assert "hint (heuristic" in wait_for(r"hint \(heuristic[\s\S]*>")
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
