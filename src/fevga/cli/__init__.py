"""The `fevga` command line: one sub-command module per concern, each with `register(subparsers)`.

`python -m fevga` runs the same command. Errors print one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from fevga.errors import FevgaError


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command registered."""
    from fevga.cli import bearoff, game, net, rollout

    from fevga import __version__

    parser = argparse.ArgumentParser(prog="fevga", description="Analysis engine for Fevga (Greek backgammon).")
    parser.add_argument("--version", action="version", version=f"fevga {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (game, net, bearoff, rollout):
        module.register(subparsers)
    from fevga.cli import analyse, match, service  # records, analysis and matches; the engine as a service

    for module in (analyse, match, service):
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `fevga` command; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
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
    return status


def _error(message: str) -> int:
    """Print one line on stderr; the exit status of every error."""
    print(f"fevga: error: {' '.join(message.split())}", file=sys.stderr)
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
