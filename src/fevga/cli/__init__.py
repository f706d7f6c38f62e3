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

    parser = argparse.ArgumentParser(prog="fevga", description="Analysis engine for Fevga (Greek backgammon).")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (game, net, bearoff, rollout):
        module.register(subparsers)
    from fevga.cli import analyse, match  # records, analysis and matches

    for module in (analyse, match):
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `fevga` command; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.run(args)
    except FevgaError as exc:
        print(f"fevga: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fevga: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a reader that stopped early (e.g. head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status
