"""`fevga ubgi`: the engine over UBGI v0.2, a UCI-like line protocol on stdin/stdout
(bungogood/bgci, docs/ubgi-v0.2-spec.md; this project's page: docs/ubgi.md).

One command a line in, one or more answer lines out, each flushed. Requests are answered in
order. A ``go`` of milliseconds (at most 2 plies, no rollout) is answered in line; a longer
one is searched in a thread, and meanwhile ``isready`` is answered at once and
``stop``/``quit`` end the search (a stopped search answers ``error bad_state stopped``);
other commands sent during a search wait for its answer. Bad input gets one
``error bad_command|bad_value|bad_state|unsupported <detail>`` line and the engine keeps
serving; end of input is a ``quit``.

>>> out = []
>>> session = Session(out.append)
>>> for line in ("position fevgaid start", "dice 6 5", "go"):
...     _ = session.handle(line)
>>> out[-1]
'bestmove 24/13'
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Callable
from typing import BinaryIO, TextIO

from fevga.version import __version__
from fevga.errors import FevgaError
from fevga.gioul import GioulPosition
from fevga.notation import parse_dice
from fevga.position import COLOR_NAMES, Position
from fevga.service.engine import KEY_NAMES, KEYS, Choice, Engine, Stopped, expand_notation
from fevga.service.gnubgid import gnubg_id, position_from_gnubg_id

__all__ = ["MAX_LINE", "Session", "run"]

MAX_LINE = 8192  # bytes of one command line; a longer line is refused whole
_TOO_LONG = "\x00toolong"  # markers the reader and the search put in the line queue
_DONE = "\x00done"
PROTOCOL = "0.2"


class Session:
    """The protocol state of one controller: the engine's settings, the position and dice.

    `handle(line)` runs one command and writes its answer lines through `write`; it returns
    False once the controller said ``quit``. It never raises on input.
    """

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write
        self.engine = Engine()
        self.position: Position | GioulPosition | None = None
        self.dice: tuple[int, int] | None = None

    # ------------------------------------------------------------------ dispatch

    def handle(self, line: str, stop: threading.Event | None = None) -> bool:
        """Run one command line; False after ``quit``."""
        words = line.split()
        if not words:
            return True
        command, args = words[0], words[1:]
        handler = _COMMANDS.get(command)
        if handler is None:
            self.error("bad_command", f"unknown command {_quote(command)}")
            return True
        try:
            return handler(self, args, stop) is not False
        except Stopped:
            self.error("bad_state", "stopped")
        except FevgaError as exc:
            self.error("bad_value", str(exc))
        except Exception as exc:  # a bug: report it on the protocol and keep serving
            self.error("bad_state", f"internal error {type(exc).__name__}: {exc}")
        return True

    def quick(self) -> bool:
        """Whether a `go` now takes milliseconds (no rollout, at most 2 plies, the filtered search:
        a 3-ply choice takes tens of milliseconds in Fevga, hundreds in Gioul, and searching every
        move at 2 plies up to a second): then it is not worth a search thread."""
        values = self.engine.values
        ply = int(values["engine.ply"])  # type: ignore[call-overload]
        return values["engine.rollouts"] == 0 and (ply == 1 or (ply == 2 and not self.engine.every_move()))

    def error(self, code: str, detail: str) -> None:
        """One spec error line (the detail on one line)."""
        self.write(f"error {code} {' '.join(detail.split())}")

    # ------------------------------------------------------------------ commands

    def cmd_ubgi(self, args: list[str], stop: threading.Event | None) -> None:
        self.write(f"id name fevga {__version__}")
        self.write("id author the fevga developers")
        self.write(f"proto {PROTOCOL}")
        self.cmd_keys([], stop)
        self.write("ubgiok")

    def cmd_isready(self, args: list[str], stop: threading.Event | None) -> None:
        self.write("readyok")

    def cmd_newgame(self, args: list[str], stop: threading.Event | None) -> None:
        self.position, self.dice = None, None

    def cmd_quit(self, args: list[str], stop: threading.Event | None) -> bool:
        return False

    def cmd_stop(self, args: list[str], stop: threading.Event | None) -> None:
        """Nothing is being searched (a search's stop is taken by `run`)."""

    def cmd_keys(self, args: list[str], stop: threading.Event | None) -> None:
        for key in KEYS:
            self.write(key.line())

    def cmd_set(self, args: list[str], stop: threading.Event | None) -> None:
        if len(args) < 2:
            return self.error("bad_command", "expected: set <key> <value>")
        name, value = args[0], " ".join(args[1:])
        if name not in KEY_NAMES:
            return self.error("unsupported", f"key {_quote(name)}")
        try:
            self.engine.set(name, value)
        except FevgaError as exc:
            self.error("bad_value", str(exc))

    def cmd_setoption(self, args: list[str], stop: threading.Event | None) -> None:
        """UBGI v0.1's ``setoption name <key> value <value>`` (spec section 8)."""
        if len(args) < 4 or args[0] != "name" or "value" not in args[2:]:
            return self.error("bad_command", "expected: setoption name <key> value <value>")
        at = args.index("value", 2)
        self.cmd_set([" ".join(args[1:at]), *args[at + 1 :]], stop)

    def cmd_get(self, args: list[str], stop: threading.Event | None) -> None:
        if len(args) != 1:
            return self.error("bad_command", "expected: get <key>")
        if args[0] not in KEY_NAMES:
            return self.error("unsupported", f"key {_quote(args[0])}")
        value = self.engine.get(args[0])
        self.write(f"value {args[0]} {('true' if value else 'false') if isinstance(value, bool) else value}")

    def cmd_position(self, args: list[str], stop: threading.Event | None) -> None:
        self.position, self.dice = None, None  # a refused position leaves none: never a move for an old one
        if len(args) != 2 or args[0] not in ("gnubgid", "fevgaid", "xgid"):
            return self.error("bad_command", "expected: position gnubgid <ID> | position fevgaid <ID>")
        kind, text = args
        gioul = self.engine.variant == "gioul"
        if kind == "xgid":
            return self.error("unsupported", "position xgid")
        if kind == "gnubgid":
            if gioul:
                return self.error("unsupported", "position gnubgid under game.variant gioul: a gnubg ID cannot hold "
                                                 "Gioul's roll counts and pending dice; use position fevgaid")
            position: Position | GioulPosition = position_from_gnubg_id(text)
        elif gioul:
            if len(text) == 16:
                return self.error("bad_state", f"{_quote(text)} is a Fevga ID and game.variant is gioul")
            position = GioulPosition.parse(text)
        else:
            if len(text) == 20:
                return self.error("bad_state", f"{_quote(text)} is a Gioul ID: set game.variant gioul first")
            position = Position.parse(text)
        self.position, self.dice = position, None

    def cmd_dice(self, args: list[str], stop: threading.Event | None) -> None:
        self.dice = None  # refused dice leave none
        if len(args) != 2:
            return self.error("bad_command", "expected: dice <d1> <d2>")
        if not all(a in "123456" and len(a) == 1 for a in args):  # '²'.isdigit() is true, int('²') fails
            return self.error("bad_value", f"dice {' '.join(args)[:40]} must be two numbers 1-6")
        dice = parse_dice((int(args[0]), int(args[1])))
        if isinstance(self.position, GioulPosition) and self.position.pending:
            pending = " ".join(map(str, self.position.pending))
            return self.error("bad_state", f"the position has dice pending ({pending}): go without dice")
        self.dice = dice

    def cmd_go(self, args: list[str], stop: threading.Event | None) -> None:
        what = args[0] if args else "chequer"
        if len(args) > 1 or what not in ("chequer", "cube", "turn"):
            return self.error("bad_command", "expected: go | go chequer | go cube | go turn")
        if what == "cube":
            self.write("info string fevga and gioul are played without a doubling cube")
            self.write("bestcube nodouble")
            return None
        position = self.position
        if position is None:
            return self.error("bad_state", "missing position")
        if position.winner() is not None:
            return self.error("bad_state", f"game over: {COLOR_NAMES[position.winner()]} has won")  # type: ignore[index]
        pending = isinstance(position, GioulPosition) and bool(position.pending)
        if self.dice is None and not pending:
            return self.error("bad_state", "missing dice")
        choice = self.engine.choose(position, None if pending else self.dice, stop)
        self._report(position, choice)
        move = expand_notation(choice.best.notation)
        self.write(f"bestturn cube=nodouble move={move}" if what == "turn" else f"bestmove {move}")
        return None

    # ------------------------------------------------------------------ answers

    def _report(self, position: Position | GioulPosition, choice: Choice) -> None:
        for note in choice.notes:
            self.write(f"info string {note}")
        if isinstance(position, GioulPosition):
            holding = position if position.pending else position.rolled(self.dice)
            roller = holding.roller
            dice = " ".join(map(str, holding.decision_dice))
            self.write(f"info decision player {COLOR_NAMES[position.turn]} "
                       f"roller {COLOR_NAMES[roller if roller is not None else position.turn]} dice {dice}")
        self.write(f"info depth {choice.depth} time_ms {1000 * choice.elapsed:.3f} nodes {len(choice.ranking)} "
                   f"method {choice.method.replace(' ', '_')}")
        for k, r in enumerate(choice.ranking[: int(self.engine.values["engine.multipv"])], 1):  # type: ignore[call-overload]
            fields = [f"info multipv {k}"]
            if r.equity is not None:
                fields.append(f"score {r.equity:+.4f} win {r.win:.4f} winmars {r.win_mars:.4f} "
                              f"losemars {r.lose_mars:.4f}")
            if r.diff is not None:
                fields.append(f"diff {r.diff:+.4f} diffse {r.diff_se:.4f} games {r.games}")
            fields.append(f"pv {expand_notation(r.notation)}")
            self.write(" ".join(fields))
        self.write(_next_line(choice.best.position))


def _next_line(after: Position | GioulPosition) -> str:
    """``info next ...``: the state after the best move, for a controller that does not keep
    the rules itself (the next ``position`` to send)."""
    ids = f"fevgaid {after.id}"
    if isinstance(after, Position):
        ids += f" gnubgid {gnubg_id(after)}"
    winner = after.winner()
    if winner is not None:
        return f"info next {ids} over winner {COLOR_NAMES[winner]} points {after.points()}"
    if after.is_dead():
        return f"info next {ids} over draw"
    if isinstance(after, GioulPosition) and after.pending:
        return f"info next {ids} turn {COLOR_NAMES[after.turn]} pending {' '.join(map(str, after.pending))}"
    return f"info next {ids} turn {COLOR_NAMES[after.turn]} roll"


def _quote(text: str) -> str:
    return text if len(text) <= 40 else text[:40] + "..."


_Handler = Callable[[Session, list[str], "threading.Event | None"], "bool | None"]
_COMMANDS: dict[str, _Handler] = {
    "ubgi": Session.cmd_ubgi,
    "isready": Session.cmd_isready,
    "newgame": Session.cmd_newgame,
    "quit": Session.cmd_quit,
    "stop": Session.cmd_stop,
    "keys": Session.cmd_keys,
    "set": Session.cmd_set,
    "setoption": Session.cmd_setoption,
    "get": Session.cmd_get,
    "position": Session.cmd_position,
    "dice": Session.cmd_dice,
    "go": Session.cmd_go,
}


# ---------------------------------------------------------------------- the stdio loop


def _read_lines(read: Callable[[], bytes], lines: queue.Queue[str | None]) -> None:
    """Reader thread: decoded command lines from `read` (a chunk of bytes, b"" at end of
    input), a marker for a line over MAX_LINE bytes (refused whole), then None at the end."""
    buffer = b""
    skipping = False  # inside a line already refused as too long
    try:
        while True:
            chunk = read()
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                raw, buffer = buffer.split(b"\n", 1)
                if skipping or len(raw) > MAX_LINE:
                    lines.put(_TOO_LONG)
                    skipping = False
                else:
                    lines.put(raw.decode("utf-8", errors="replace").strip())
            if len(buffer) > MAX_LINE:
                skipping, buffer = True, b""
    except (OSError, ValueError):
        pass
    if buffer and not skipping:
        lines.put(buffer.decode("utf-8", errors="replace").strip())
    lines.put(None)


def run(source: BinaryIO | None = None, sink: TextIO | None = None) -> int:
    """Serve one controller on `source` (bytes, default stdin) and `sink` (default stdout)
    until ``quit`` or end of input; the exit status."""
    sink = sink if sink is not None else sys.stdout
    if source is None:
        # os.read on the descriptor, not sys.stdin: a daemon thread blocked inside a buffered
        # reader would hold its lock while the interpreter exits (a fatal error)
        fd = sys.stdin.fileno()

        def read() -> bytes:
            return os.read(fd, 65536)
    else:
        read = source.read1 if hasattr(source, "read1") else source.readline
    lock = threading.Lock()
    closed = threading.Event()  # the controller stopped reading: nothing more can be said

    def write(line: str) -> None:
        with lock:
            if closed.is_set():
                return
            try:
                sink.write(line + "\n")
                sink.flush()
            except (OSError, ValueError):
                closed.set()

    session = Session(write)
    warm = threading.Thread(target=session.engine.warm_up, name="ubgi-warm-up", daemon=True)
    warm.start()  # the net and the bear-off tables load while the controller says hello
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_read_lines, args=(read, lines), daemon=True, name="ubgi-reader").start()
    waiting: list[str | None] = []  # commands sent during a search, run after its answer, in order
    while not closed.is_set():
        line = waiting.pop(0) if waiting else lines.get()
        if line is None or line == "quit":
            return 0
        if line == _TOO_LONG:
            session.error("bad_command", f"line longer than {MAX_LINE} bytes")
            continue
        if line.split()[:1] == ["isready"]:
            warm.join()  # readiness includes the loaded net
        if line.split()[:1] != ["go"]:
            if not session.handle(line):
                return 0
            continue
        warm.join()
        if session.quick():  # milliseconds: answered in line, as fast as the pipe allows
            session.handle(line)
        elif _search(session, line, lines, waiting, write):
            return 0
    return 1


def _search(session: Session, line: str, lines: queue.Queue[str | None], waiting: list[str | None],
            write: Callable[[str], None]) -> bool:
    """Run one go in a thread while answering isready and taking stop/quit; True to quit now.
    Lines that come after commands still waiting are queued behind them, to keep their order.
    The lines already waiting behind this go came during an earlier search: to this one they
    are lines sent during it (an isready behind it is answered at once, a stop stops it)."""
    stop = threading.Event()
    backlog, waiting[:] = waiting[:], []

    def search() -> None:
        try:
            session.handle(line, stop)
        finally:
            lines.put(_DONE)

    threading.Thread(target=search, name="ubgi-search", daemon=True).start()
    quitting = False
    while True:
        try:
            during = backlog.pop(0) if backlog else lines.get()
        except KeyboardInterrupt:  # Ctrl-C reaches this thread only: the search stops too, at once
            stop.set()
            raise
        if during == _DONE:
            return quitting
        if waiting or during is None:
            waiting.append(during)  # end of input: answer everything before it first
        elif during == "isready":
            write("readyok")
        elif during == "stop":
            stop.set()
        elif during == "quit":
            stop.set()
            quitting = True
        else:
            waiting.append(during)
