"""What the `fevga` command needs before the package has finished importing: a Ctrl-C that
lands during the imports (a second or more on a loaded machine) ends it as a Ctrl-C later does,
with one line and status 130, instead of a traceback. Only the command is affected: a program
that imports fevga keeps Python's own handling."""

from __future__ import annotations

import os
import sys
from types import TracebackType


def quiet_interrupts() -> None:
    """In the `fevga` command, turn an uncaught KeyboardInterrupt into ``fevga: interrupted``
    and exit status 130 (`fevga.cli.main` answers a later Ctrl-C the same way)."""
    if not sys.argv or os.path.basename(sys.argv[0]) != "fevga":
        return
    previous = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, traceback: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.stderr.write("fevga: interrupted\n")
            sys.stderr.flush()
            os._exit(130)
        previous(kind, value, traceback)

    sys.excepthook = hook
