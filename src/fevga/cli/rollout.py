"""`fevga rollout` sub-commands."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `rollout` sub-commands (filled in by the rollout work)."""
