"""The `fevga` command line: one sub-command module per concern, each with `register(subparsers)`.

`python -m fevga` runs the same command. Errors print one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from fevga.errors import FevgaError
from fevga.cli import analyse, bearoff, error_rate, game, match, net, rollout, service
from fevga.version import __version__


MAX_MESSAGE = 2000  # characters of an error line (a message quoting a huge input is cut)
MAX_INT_DIGITS = 30  # digits of an integer option (a seed of 2^64 has 20)


def _integer(text: str) -> int:
    """An integer option: ASCII digits only (int() would also take '١٢' and '1_000')."""
    stripped = text.strip()
    digits = stripped[1:] if stripped[:1] in "+-" else stripped
    if not (digits.isascii() and digits.isdigit()) or len(digits) > MAX_INT_DIGITS:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not an integer (ASCII digits, at most {MAX_INT_DIGITS})")
    return int(stripped)


def _number(text: str) -> float:
    """A real-number option: a finite ASCII decimal."""
    stripped = text.strip()
    try:
        value = float(stripped) if stripped.isascii() and len(stripped) <= 40 else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a finite number")
    return value


class Parser(argparse.ArgumentParser):
    """argparse with fevga's error convention: one line on stderr, exit status 2 (no usage
    block), and integer/real options read from ASCII digits only, within limits."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("type", int, _integer)
        self.register("type", float, _number)

    def error(self, message: str) -> NoReturn:
        _error(f"{message} (see '{self.prog} --help')", self.prog)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command registered."""
    parser = Parser(prog="fevga", description="Analysis engine for Fevga (Greek backgammon).")
    parser.add_argument("--version", action="version", version=f"fevga {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (game, net, bearoff, rollout):
        module.register(subparsers)

    for module in (analyse, error_rate, match, service):
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `fevga` command; returns the process exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or an argument error already printed
        return exc.code if isinstance(exc.code, int) else 2
    if sys.stdout is None:  # started with standard output closed (fevga met >&-)
        return _error("standard output is closed: nothing could be printed")
    try:
        status: int = args.run(args)
        sys.stdout.flush()  # a full disk or closed stdout surfaces here, not after exit
    except FevgaError as exc:
        return _error(str(exc))
    except KeyboardInterrupt:
        print("fevga: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a reader that stopped early (e.g. head)
        _silence_stdout()
        return 1
    except MemoryError as exc:
        return _error(f"out of memory: {exc}" if str(exc) else "out of memory")
    except OSError as exc:  # file system: permissions, a directory given as a file, a full disk, ...
        where = f"{exc.filename}: " if exc.filename else ("standard output: " if _stdout_failed(exc) else "")
        return _error(f"{where}{exc.strerror or exc}")
    except RecursionError:
        return _error("input nested too deeply to process")
    except Exception as exc:  # a bug: still one line, never a traceback
        return _error(f"internal error (please report it): {type(exc).__name__}: {exc}")
    return status


def _error(message: str, prog: str = "fevga") -> int:
    """Print one line on stderr (if there is one); the exit status of every error."""
    text = " ".join(message.split())
    if len(text) > MAX_MESSAGE:
        text = text[: MAX_MESSAGE - 3] + "..."
    if sys.stderr is not None:
        try:
            print(f"{prog}: error: {text}", file=sys.stderr)
        except (OSError, ValueError):  # stderr closed or full: the status still says it
            pass
    return 2


def _stdout_failed(exc: OSError) -> bool:
    """Whether writing stdout failed: then its buffered text is dropped, so that the flush at
    exit does not fail again."""
    try:
        sys.stdout.flush()
    except OSError:
        _silence_stdout()
        return True
    return False


def _silence_stdout() -> None:
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor behind sys.stdout (captured, closed)
        pass
