"""Bounded readers of untrusted input: the one layer every file and text format is read through.

Each format (match text, JSON records, net weights, bear-off tables, checkpoints) reads its
bytes with `read_file`, its JSON with `parse_json` and its NumPy archives with `read_npz`,
passing its own error class, so that every failure is that format's `FevgaError` naming the
file, the field and the limit. The limits (docs/limits.md):

* files: a size limit per format, checked on the open file before it is read; only regular
  files are read (a FIFO or device would block or never end);
* JSON: at most `MAX_JSON_DEPTH` nested arrays/objects, integers of at most
  `MAX_JSON_INT_DIGITS` digits, finite numbers only (``NaN``, ``Infinity`` and ``1e999``
  are refused);
* ``.npz`` archives: at most `MAX_NPZ_MEMBERS` members, only the expected names, each
  member's declared uncompressed size and its ``.npy`` header (dtype, shape) checked
  against the expected ones *before* any data is decompressed (no zip bomb), and the data
  read back exactly (CRC checked).
"""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import numpy as np
import numpy.typing as npt

from fevga.errors import FevgaError, InvalidNotationError

MAX_JSON_DEPTH = 32  # nesting of JSON arrays and objects (records nest 5 deep)
MAX_JSON_INT_DIGITS = 40  # digits of a JSON integer (a 128-bit integer has 39)
MAX_NPZ_MEMBERS = 64  # arrays in one .npz archive
MAX_NPY_HEADER = 4096  # bytes of one .npy header

T = TypeVar("T")

ErrorFactory = Callable[[str, "int | None", "int | None"], FevgaError]
"""Makes the format's error from (message, line or None, column or None)."""


def file_path(path: object, what: str, error: Callable[[str], FevgaError]) -> Path:
    """`path` as a Path if it is a file name: a non-empty string or os.PathLike of text without
    NUL, or error(message) naming `what` (every reader and writer takes its path through here)."""
    raw = os.fspath(path) if isinstance(path, (str, os.PathLike)) else path
    if not isinstance(raw, str):
        raise error(f"{what} path {repr(path)[:80]} must be a string or a path")
    if not raw or "\x00" in raw:
        raise error(f"{what} path {raw[:80]!r} is not a file name")
    return Path(raw)


def read_file(path: str | os.PathLike[str], limit: int, error: Callable[[str], FevgaError], what: str) -> bytes:
    """The bytes of a regular file of at most `limit` bytes, or error(message) naming `what`,
    the path and the limit. A FIFO, device or directory is refused without reading it."""
    data = read_opened(path, limit, error, what, lambda handle, size: handle.read(limit + 1))
    if len(data) > limit:
        raise error(f"{what} {str(file_path(path, what, error))!r} grew over the limit of {limit} bytes while being read")
    return data


def read_opened(path: str | os.PathLike[str], limit: int, error: Callable[[str], FevgaError], what: str,
                read: Callable[[BinaryIO, int], T]) -> T:
    """read(the open file, its size) for a regular file of at most `limit` bytes, or
    error(message) naming `what`, the path and the limit: the checks of `read_file`, for a
    reader that wants its own buffer (fevga.bearoff's aligned tables)."""
    name = str(file_path(path, what, error))
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO must not block the open
    except FileNotFoundError:
        raise error(f"cannot read {what} {name!r}: it does not exist") from None
    except OSError as exc:
        raise error(f"cannot read {what} {name!r}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise error(f"{what} {name!r} is {kind}")
        if info.st_size > limit:
            raise error(f"{what} {name!r} is {info.st_size} bytes, over the limit of {limit} bytes")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return read(handle, info.st_size)
    except FevgaError:
        raise  # ours, already naming the file (BearoffFileError and NetFileError are OSErrors too)
    except OSError as exc:
        raise error(f"cannot read {what} {name!r}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in a JSON text (strings skipped)."""
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    return max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0)


class _Refused(ValueError):
    """A value json.loads would take but a fevga file may not hold."""


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_JSON_INT_DIGITS:
        raise _Refused(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_JSON_INT_DIGITS})")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not np.isfinite(value):
        raise _Refused(f"the number {text[:40]} does not fit a float (numbers must be finite)")
    return value


def _constant(text: str) -> Any:
    raise _Refused(f"{text} (numbers must be finite)")


def parse_json(text: str | bytes, error: ErrorFactory, what: str = "JSON") -> Any:
    """The value of a JSON text within the limits above, or error(message, line, column)."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise error(f"{what} is not UTF-8 text (byte {exc.start})", None, None) from None
    if not isinstance(text, str):
        raise error(f"{what} must be text, not {type(text).__name__}", None, None)
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise error(f"{what} nests {depth} levels deep (at most {MAX_JSON_DEPTH})", None, None)
    try:
        return json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise error(f"invalid {what}: {exc.msg}", exc.lineno, exc.colno) from None
    except _Refused as exc:
        raise error(f"{what} holds {exc}", None, None) from None
    except (ValueError, RecursionError, OverflowError) as exc:
        raise error(f"invalid {what}: {exc}", None, None) from None


# ---------------------------------------------------------------------------------------
# .npz archives

ArraySpec = tuple[tuple[np.dtype[Any], ...], int]
"""(allowed dtypes, most elements) of one array of an archive."""


def read_npz(data: bytes, arrays: Mapping[str, ArraySpec], required: tuple[str, ...],
             error: Callable[[str], FevgaError], what: str, *, max_total: int) -> dict[str, npt.NDArray[Any]]:
    """The arrays of a NumPy .npz archive held in `data`, each checked against `arrays`
    (its dtypes and element limit) before it is decompressed; `required` names must all be
    present and no other name may be, and the members' declared sizes may not add up to more
    than `max_total` bytes (the format's file limit: what an uncompressed file could hold), so
    that many members each within its own limit are no zip bomb either. error(message) names
    `what`, the array and the limit."""
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 65557))
    if not data.startswith(b"PK") or end < 0 or end + 22 > len(data):
        raise error(f"{what}: not a .npz archive")
    members = struct.unpack_from("<H", data, end + 10)[0]
    if members > MAX_NPZ_MEMBERS:
        raise error(f"{what}: {members} arrays, over the limit of {MAX_NPZ_MEMBERS}")
    out: dict[str, npt.NDArray[Any]] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_NPZ_MEMBERS:
                raise error(f"{what}: {len(infos)} arrays, over the limit of {MAX_NPZ_MEMBERS}")
            names = [info.filename.removesuffix(".npy") for info in infos]
            missing = [name for name in required if name not in names]
            if missing:  # first: a foreign archive is told by what it lacks
                raise error(f"{what}: no {', '.join(map(repr, missing))} array{'s' if len(missing) > 1 else ''}")
            if len(set(names)) != len(names):
                raise error(f"{what}: a repeated array")
            for info, name in zip(infos, names):  # every declared size, before anything is decompressed
                if name not in arrays:
                    raise error(f"{what}: unexpected array {info.filename[:80]!r}")
                dtypes, limit = arrays[name]
                largest = max(d.itemsize for d in dtypes) * limit + MAX_NPY_HEADER
                if info.file_size > largest:
                    raise error(f"{what}: array {name!r} declares {info.file_size} bytes, over the limit of "
                                f"{largest} bytes")
            declared = sum(info.file_size for info in infos)
            if declared > max_total:
                raise error(f"{what}: its arrays declare {declared} bytes in all, over the limit of {max_total} bytes")
            for info, name in zip(infos, names):
                dtypes, limit = arrays[name]
                with archive.open(info) as member:
                    out[name] = _read_npy(member, name, dtypes, limit, error, what)
    except FevgaError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, ValueError, OSError, KeyError,
            NotImplementedError, RuntimeError, struct.error) as exc:
        raise error(f"{what}: not a readable .npz archive ({type(exc).__name__}: {str(exc)[:120]})") from None
    return out


def _read_npy(member: Any, name: str, dtypes: tuple[np.dtype[Any], ...], limit: int,
              error: Callable[[str], FevgaError], what: str) -> npt.NDArray[Any]:
    """One .npy member: its header checked (dtype, shape, size) before its data is read."""
    try:  # NumPy's header parser can raise nearly anything on garbage (SyntaxError, TokenError, ...)
        version = np.lib.format.read_magic(member)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(member, max_header_size=MAX_NPY_HEADER)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(member, max_header_size=MAX_NPY_HEADER)
        else:
            raise error(f"{what}: array {name!r} has .npy version {version}")
    except FevgaError:
        raise
    except Exception as exc:
        raise error(f"{what}: array {name!r} has no readable .npy header ({type(exc).__name__})") from None
    if dtype not in dtypes or dtype.hasobject:
        raise error(f"{what}: array {name!r} has dtype {dtype}, expected {' or '.join(map(str, dtypes))}")
    count = 1
    for size in shape:
        if not isinstance(size, int) or size < 0:
            raise error(f"{what}: array {name!r} has shape {shape}")
        count *= size
        if count > limit:
            raise error(f"{what}: array {name!r} of shape {shape} holds over {limit} values (its limit)")
    nbytes = count * dtype.itemsize
    raw = member.read(nbytes)
    if len(raw) != nbytes or member.read(1):
        raise error(f"{what}: array {name!r} holds {len(raw)} data bytes, its header says {nbytes}")
    array = np.frombuffer(raw, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    return np.array(array, dtype=dtype.newbyteorder("="))


def position_json(text: str) -> Any:
    """The JSON value of a position's JSON form (InvalidNotationError past the limits)."""
    def refused(message: str, line: int | None, column: int | None) -> FevgaError:
        where = f" (line {line}, column {column})" if line is not None else ""
        return InvalidNotationError(f"position {message}{where}")

    return parse_json(text, refused, "JSON")
