"""Atomic file writes: a temporary file in the target's folder, fsync'd, then moved into place."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from fevga.errors import InvalidArgumentError


def user_file_mode() -> int:
    """The mode of a new file under the process umask (0o666 & ~umask): mkstemp creates 0o600
    files, and an atomic write must not make a table or checkpoint private by accident."""
    mask = os.umask(0o022)  # reading the umask means setting it: put it straight back
    os.umask(mask)
    return 0o666 & ~mask


def atomic_write(path: str | os.PathLike[str], write: Callable[[BinaryIO], object], what: str = "file") -> Path:
    """Call ``write(handle)`` on a temporary file and move it to `path` only when it succeeded,
    so a reader never sees a half-written file (also on Ctrl-C). The file gets the user's
    umask. An unwritable place raises InvalidArgumentError naming `what` and the path."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InvalidArgumentError(f"cannot write {what} {str(target)!r}: {exc.strerror or exc}") from None
    try:
        os.fchmod(fd, user_file_mode())
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, target)
    except BaseException as exc:
        Path(temp_name).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InvalidArgumentError(f"cannot write {what} {str(target)!r}: {exc.strerror or exc}") from None
        raise
    return target
