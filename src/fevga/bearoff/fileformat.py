"""The bear-off file format: a self-describing header, aligned arrays, atomic writes.

Layout (all integers little-endian)::

    offset  size  field
    0       8     magic  b"FEVGABO\\x00"
    8       4     format version (uint32, currently 1)
    12      4     header length H (uint32): bytes of the JSON header that follows
    16      4     CRC-32 of the JSON header bytes (uint32)
    20      H     JSON header, UTF-8: kind, points, checkers, total, dtype, entries,
                  payload_bytes, payload_crc32, and `sections`: {name: {dtype, shape, offset}}
    ...           zero padding up to a multiple of 64: the payload starts there
    payload       the arrays, each at `offset` (relative to the payload, 64-byte aligned)

Loading reads the whole file into memory (copy-on-load) and checks, in order: size, magic,
version, header CRC, that the file is exactly as long as the header says, the payload CRC
(skipped with `verify=False`), and that every section fits. Writes go to a temporary file in
the target's directory and are moved into place with `os.replace`, so a reader never sees a
half-written file.

Why not memory-map: the arrays reach nogil kernels as raw pointers, and a mapped file that
another process truncates turns every later lookup past the new end into SIGBUS, which no
check at open time can prevent (advisory locks do not stop a truncation). A copy costs one
read of the file (the default 6x15 one-sided table is a few MB) and makes the loaded table
independent of the file.
"""

from __future__ import annotations

import json
import os
import struct
import tempfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from fevga.files import user_file_mode
from fevga.errors import BearoffFileError

MAGIC = b"FEVGABO\x00"
FORMAT_VERSION = 1
ALIGNMENT = 64
_PREFIX = struct.Struct("<8sIII")
_CHUNK = 1 << 24


def _align(size: int) -> int:
    return (size + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


def _crc32(buffer: Any) -> int:
    view = memoryview(buffer).cast("B")
    crc = 0
    for start in range(0, len(view), _CHUNK):
        crc = zlib.crc32(view[start : start + _CHUNK], crc)
    return crc


def write_table(path: str | os.PathLike[str], meta: Mapping[str, Any], arrays: Mapping[str, npt.NDArray[Any]]) -> Path:
    """Write `arrays` with header fields `meta` to `path` atomically; returns the path."""
    target = Path(path)
    sections: dict[str, dict[str, Any]] = {}
    offset = 0
    contiguous: dict[str, npt.NDArray[Any]] = {}
    for name, array in arrays.items():
        array = np.ascontiguousarray(array)
        contiguous[name] = array
        sections[name] = {"dtype": array.dtype.newbyteorder("<").str, "shape": list(array.shape), "offset": offset}
        offset = _align(offset + array.nbytes)
    payload_bytes = offset
    header = dict(meta)
    header.update(sections=sections, payload_bytes=payload_bytes)
    directory = target.parent if str(target.parent) else Path(".")
    directory.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        os.fchmod(fd, user_file_mode())
        with os.fdopen(fd, "w+b") as handle:
            # Reserve the header, write the payload, then fill in the CRCs.
            header["payload_crc32"] = 0
            header_bytes = json.dumps(header, sort_keys=True).encode()
            reserved = _align(_PREFIX.size + len(header_bytes) + 32)
            handle.write(b"\x00" * reserved)
            crc = 0
            position = 0
            for name, array in contiguous.items():
                pad = sections[name]["offset"] - position
                if pad:
                    handle.write(b"\x00" * pad)
                    crc = zlib.crc32(b"\x00" * pad, crc)
                data = array.astype(array.dtype.newbyteorder("<"), copy=False)
                view = data.reshape(-1).view(np.uint8).data
                for start in range(0, len(view), _CHUNK):
                    chunk = view[start : start + _CHUNK]
                    handle.write(chunk)
                    crc = zlib.crc32(chunk, crc)
                position = sections[name]["offset"] + array.nbytes
            pad = payload_bytes - position
            if pad:
                handle.write(b"\x00" * pad)
                crc = zlib.crc32(b"\x00" * pad, crc)
            header["payload_crc32"] = crc
            header_bytes = json.dumps(header, sort_keys=True).encode()
            # JSON allows trailing spaces: pad so the payload starts where it was written.
            header_bytes += b" " * (reserved - _PREFIX.size - len(header_bytes))
            handle.seek(0)
            handle.write(_PREFIX.pack(MAGIC, FORMAT_VERSION, len(header_bytes), zlib.crc32(header_bytes)))
            handle.write(header_bytes)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, target)
    except BaseException:
        try:
            os.unlink(temp_name)
        except FileNotFoundError:
            pass
        raise
    return target


def _read_all(handle: Any, size: int) -> npt.NDArray[np.uint8]:
    """The first `size` bytes of an open file, in a 64-byte aligned array (copy-on-load)."""
    raw = np.empty(size + ALIGNMENT, dtype=np.uint8)
    start = (-raw.ctypes.data) % ALIGNMENT
    buffer = raw[start : start + size]
    view = buffer.data  # a writable memoryview of the aligned array
    done = 0
    while done < size:
        got = handle.readinto(view[done : done + _CHUNK])
        if not got:
            break  # shrunk while being read: the size checks below report it
        done += got
    return buffer[:done]


class TableFile:
    """A validated bear-off file read into memory: `meta` (the JSON header) and `arrays`."""

    def __init__(self, path: str | os.PathLike[str], *, verify: bool = True) -> None:
        self.path = Path(path)
        try:
            with open(self.path, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size < _PREFIX.size:
                    raise BearoffFileError(f"bear-off file {str(self.path)!r} is truncated: {size} bytes, no header")
                self._data = _read_all(handle, size)
                self._data.flags.writeable = False  # tables are values: read-only, as on disk
                size = len(self._data)
        except FileNotFoundError:
            raise BearoffFileError(f"bear-off file {str(self.path)!r} does not exist") from None
        except IsADirectoryError:
            raise BearoffFileError(f"bear-off file {str(self.path)!r} is a directory") from None
        except BearoffFileError:
            raise
        except OSError as exc:
            raise BearoffFileError(f"bear-off file {str(self.path)!r} cannot be read: {exc.strerror or exc}") from None
        if size < _PREFIX.size:
            raise BearoffFileError(f"bear-off file {str(self.path)!r} is truncated: {size} bytes, no header")
        magic, version, header_length, header_crc = _PREFIX.unpack_from(self._data.data, 0)
        where = repr(str(self.path))
        if magic != MAGIC:
            raise BearoffFileError(f"{where} is not a fevga bear-off file (magic {magic!r}, expected {MAGIC!r})")
        if version != FORMAT_VERSION:
            raise BearoffFileError(f"{where} has format version {version}; this fevga reads version {FORMAT_VERSION}")
        if _PREFIX.size + header_length > size:
            raise BearoffFileError(f"bear-off file {where} is truncated inside its header ({size} bytes)")
        header_bytes = self._data[_PREFIX.size : _PREFIX.size + header_length].tobytes()
        if zlib.crc32(header_bytes) != header_crc:
            raise BearoffFileError(f"bear-off file {where} is corrupted: header checksum mismatch")
        try:
            meta = json.loads(header_bytes)
            payload_start = _align(_PREFIX.size + header_length)
            payload_bytes = int(meta["payload_bytes"])
            payload_crc = int(meta["payload_crc32"])
            sections = meta["sections"]
        except (ValueError, KeyError, TypeError) as exc:
            raise BearoffFileError(f"bear-off file {where} has a malformed header: {exc}") from None
        if size < payload_start + payload_bytes:
            raise BearoffFileError(
                f"bear-off file {where} is truncated: {size} bytes, header promises {payload_start + payload_bytes}"
            )
        if size > payload_start + payload_bytes:
            raise BearoffFileError(f"bear-off file {where} has {size - payload_start - payload_bytes} trailing bytes")
        payload = self._data[payload_start:].data
        if verify and _crc32(payload) != payload_crc:
            raise BearoffFileError(f"bear-off file {where} is corrupted: payload checksum mismatch")
        self.meta: dict[str, Any] = meta
        self.arrays: dict[str, npt.NDArray[Any]] = {}
        try:
            for name, section in sections.items():
                dtype = np.dtype(section["dtype"])
                shape = tuple(int(x) for x in section["shape"])
                count = int(np.prod(shape, dtype=np.int64))
                offset = int(section["offset"])
                if offset < 0 or offset + count * dtype.itemsize > payload_bytes:
                    raise BearoffFileError(f"bear-off file {where}: section {name!r} lies outside the payload")
                array = np.frombuffer(payload, dtype=dtype, count=count, offset=offset).reshape(shape)
                self.arrays[name] = array.astype(dtype.newbyteorder("="), copy=False)
        except (TypeError, ValueError, KeyError) as exc:
            raise BearoffFileError(f"bear-off file {where} has a malformed section table: {exc}") from None

    def require(self, **expected: Any) -> None:
        """Raise BearoffFileError unless each header field equals the expected value."""
        for key, value in expected.items():
            if value is not None and self.meta.get(key) != value:
                raise BearoffFileError(
                    f"bear-off file {str(self.path)!r} does not match: {key} is {self.meta.get(key)!r}, expected {value!r}"
                )
