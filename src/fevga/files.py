"""Output files: checked before the work starts, written atomically, never over a special file.

Every file fevga writes (reports, records, nets, bear-off tables, checkpoints, plots) goes
through `atomic_write`:

* the output path must be absent or a regular file. A symlink is followed on purpose to its
  final target (as a shell's ``>`` would), and that target must be absent or a regular file:
  a directory, FIFO, device or socket is refused and left as it is, never replaced;
* the folder that receives the file must exist: missing folders are never created (the
  cache folder, which fevga owns, is the one exception, made by its caller);
* the data goes to a temporary file beside the target, ``.NAME.PID-TOKEN.fevga-tmp``, is
  fsync'd and moved over the target with `os.replace`, so a reader sees the old file or the
  whole new one. Any failure (a full disk, a write error, Ctrl-C, an exception in the
  caller's writer) removes the temporary file;
* a temporary file left by a process that died without cleaning up (kill -9, a power cut)
  carries that process's id in its name: the next write to the same target removes it once
  no process of that id is running.

`output_path(path, what)` runs the checks without writing anything: commands call it before
long work, so that a bad ``--out`` fails at once instead of after the work.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from fevga.errors import FevgaError, InvalidArgumentError
from fevga.inputs import file_path

TEMP_SUFFIX = ".fevga-tmp"
_TEMP_TAIL = re.compile(r"(\d+)-[0-9a-f]{8}" + re.escape(TEMP_SUFFIX))
_NAME_KEEP = 160  # characters of the target's name kept in its temporary file's name (NAME_MAX is 255)


def user_file_mode() -> int:
    """The mode of a new file under the process umask (0o666 & ~umask): an atomic write must
    not make a table or checkpoint private (or public) by accident."""
    mask = os.umask(0o022)  # reading the umask means setting it: put it straight back
    os.umask(mask)
    return 0o666 & ~mask


def _kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _refused(what: str, path: object, reason: str) -> InvalidArgumentError:
    return InvalidArgumentError(f"cannot write {what} {str(path)!r}: {reason}")


def _os_reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def output_path(path: str | os.PathLike[str], what: str = "file") -> Path:
    """The file that writing `path` creates or replaces (a symlink's final target), once
    checked: absent or a regular file, writable, in an existing folder. InvalidArgumentError
    names `what`, the path and the reason otherwise; nothing is written."""
    target = file_path(path, what, InvalidArgumentError)
    raw = str(target)
    info = _lstat(target, what, raw)
    via = ""
    if info is not None and stat.S_ISLNK(info.st_mode):
        target = Path(os.path.realpath(target))
        info = _lstat(target, what, raw)
        if info is not None and stat.S_ISLNK(info.st_mode):
            raise _refused(what, raw, "its symlinks form a loop")
        via = f" (the target of the symlink, {str(target)!r})"
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise _refused(what, raw, f"it is {_kind(info.st_mode)}{via}, not a regular file; give a file path")
    folder = target.parent
    try:
        folder_info = os.stat(folder)
    except FileNotFoundError:
        raise _refused(what, raw, f"its folder {str(folder)!r} does not exist (fevga does not create folders)") from None
    except OSError as exc:
        raise _refused(what, raw, f"its folder {str(folder)!r}: {_os_reason(exc)}") from None
    if not stat.S_ISDIR(folder_info.st_mode):
        raise _refused(what, raw, f"{str(folder)!r} is {_kind(folder_info.st_mode)}, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _refused(what, raw, f"its folder {str(folder)!r} is not writable (permission denied)")
    if info is not None and not os.access(target, os.W_OK):
        raise _refused(what, raw, f"the file{via} is read-only")
    return target


def _lstat(target: Path, what: str, raw: str) -> os.stat_result | None:
    try:
        return os.lstat(target)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise _refused(what, raw, "a folder on its path is a file") from None
    except OSError as exc:
        raise _refused(what, raw, _os_reason(exc)) from None


def _temp_prefix(target: Path) -> str:
    return f".{target.name[:_NAME_KEEP]}."


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return pid > 0  # someone else's process (or an id the system cannot hold): leave its file
    return True


def stale_temporaries(target: str | os.PathLike[str]) -> list[Path]:
    """The temporary files of writes to `target` whose process is gone (left by kill -9)."""
    place = Path(target)
    prefix = _temp_prefix(place)
    found = []
    try:
        entries = list(os.scandir(place.parent))
    except OSError:
        return []
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        match = _TEMP_TAIL.fullmatch(entry.name[len(prefix):])
        if match and not _process_alive(int(match.group(1))) and entry.is_file(follow_symlinks=False):
            found.append(place.parent / entry.name)
    return found


def atomic_write(path: str | os.PathLike[str], write: Callable[[BinaryIO], object], what: str = "file") -> Path:
    """Call ``write(handle)`` on a temporary file beside `path` and move it over `path` only
    when it succeeded (see the module docstring: the checks of `output_path`, the cleanup of
    temporary files). Returns `path`. An unwritable place raises InvalidArgumentError naming
    `what` and the path; an exception from `write` propagates after the cleanup."""
    target = output_path(path, what)
    for stale in stale_temporaries(target):
        try:
            stale.unlink()
        except OSError:
            pass
    temp = target.with_name(f"{_temp_prefix(target)}{os.getpid()}-{secrets.token_hex(4)}{TEMP_SUFFIX}")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, user_file_mode())
    except OSError as exc:
        raise _refused(what, path, _os_reason(exc)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        if output_path(path, what) != target:  # the path changed under us: write nowhere unexpected
            raise _refused(what, path, "it was replaced by another file while being written")
        os.replace(temp, target)
    except BaseException as exc:
        try:
            os.unlink(temp)
        except OSError:
            pass
        if isinstance(exc, OSError) and not isinstance(exc, FevgaError):
            reason = "no space left on the device" if exc.errno == errno.ENOSPC else _os_reason(exc)
            raise _refused(what, path, reason) from None
        raise
    _sync_folder(target.parent)
    return Path(path)


def _sync_folder(folder: Path) -> None:
    """Make the rename durable (best effort: not every file system can fsync a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def output_folder(path: str | os.PathLike[str], what: str = "folder") -> Path:
    """A folder to write into: an existing folder, or a new one made here (its parent must
    exist: missing parents are not created). InvalidArgumentError when `path` is a file or
    cannot be made."""
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise InvalidArgumentError(f"{what} {path!r} must be a folder path")
    folder = Path(path)
    try:
        info = os.stat(folder)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise InvalidArgumentError(f"cannot use {what} {str(folder)!r}: {_os_reason(exc)}") from None
    if info is not None:
        if not stat.S_ISDIR(info.st_mode):
            kind = "a file" if stat.S_ISREG(info.st_mode) else _kind(info.st_mode)
            raise InvalidArgumentError(f"{what} {str(folder)!r} is {kind}, not a folder")
        return folder
    try:
        folder.mkdir()
    except FileNotFoundError:
        raise InvalidArgumentError(f"cannot make {what} {str(folder)!r}: its parent folder does not exist "
                                   "(fevga does not create missing parents)") from None
    except OSError as exc:
        raise InvalidArgumentError(f"cannot make {what} {str(folder)!r}: {_os_reason(exc)}") from None
    return folder
