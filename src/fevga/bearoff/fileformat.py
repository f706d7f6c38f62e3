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
the target's directory and are moved into place with `os.replace` (fevga.files.atomic_write),
so a reader never sees a half-written file.

Why not memory-map: the arrays reach nogil kernels as raw pointers, and a mapped file that
another process truncates turns every later lookup past the new end into SIGBUS, which no
check at open time can prevent (advisory locks do not stop a truncation). A copy costs one
read of the file (the default 6x15 one-sided table is a few MB) and makes the loaded table
independent of the file.
"""

from __future__ import annotations

import json
import math
import os
import struct
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from fevga.files import atomic_write
from fevga.inputs import file_path, parse_json, read_opened
from fevga.errors import BearoffFileError, InvalidArgumentError

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
    target = file_path(path, "bear-off table", InvalidArgumentError)
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

    def write(handle: Any) -> None:
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

    atomic_write(target, write, what="bear-off table")
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


MAX_FILE_BYTES = 16 << 30  # a bear-off file is read whole into memory (the two-sided 6x10 table is 2.8 GB)
MAX_HEADER_BYTES = 1 << 20  # its JSON header
MAX_SECTION_DIMS = 4
# Plain little-endian numbers only (write_table stores float64/float32 values and int64/uint16
# indices; which section has which dtype is the table's check): no objects, strings or records.
SECTION_DTYPES = tuple(f"{order}{kind}{size}" for kind in "iuf" for size in (1, 2, 4, 8) for order in "<|"
                       if (order == "|") == (size == 1) and not (kind == "f" and size == 1)) + ("|b1",)


def _read_file(path: Path) -> npt.NDArray[np.uint8]:
    """The whole file, read-only, after checking it is a regular file within MAX_FILE_BYTES."""
    data = read_opened(path, MAX_FILE_BYTES, BearoffFileError, "bear-off file", _read_all)
    data.flags.writeable = False  # tables are values: read-only, as on disk
    return data


def _field(meta: dict[str, Any], key: str, malformed: Any) -> int:
    value = meta.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 63:
        raise malformed(f"field {key!r} is {str(value)[:40]!r}, not a non-negative integer")
    return value


def _section_array(payload: Any, payload_bytes: int, name: str, section: object, where: str) -> npt.NDArray[Any]:
    """The array of one section entry {dtype, shape, offset}, checked field by field."""
    bad = f"bear-off file {where} has a malformed section table: section {str(name)[:40]!r}"
    if not isinstance(section, dict):
        raise BearoffFileError(f"{bad} is {type(section).__name__}, not an object")
    dtype_name, shape, offset = section.get("dtype"), section.get("shape"), section.get("offset")
    if dtype_name not in SECTION_DTYPES:
        raise BearoffFileError(f"{bad} has dtype {str(dtype_name)[:40]!r}, not a plain little-endian number "
                               f"({', '.join(SECTION_DTYPES)})")
    if (not isinstance(shape, list) or len(shape) > MAX_SECTION_DIMS
            or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= payload_bytes for x in shape)):
        raise BearoffFileError(f"{bad} has shape {str(shape)[:60]}: at most {MAX_SECTION_DIMS} sizes, each "
                               f"0..{payload_bytes} (the payload's bytes)")
    if not isinstance(offset, int) or isinstance(offset, bool) or not 0 <= offset <= payload_bytes:
        raise BearoffFileError(f"{bad} has offset {str(offset)[:40]!r}, outside the payload of {payload_bytes} bytes")
    dtype = np.dtype(dtype_name)
    count = math.prod(shape)
    if offset + count * dtype.itemsize > payload_bytes:
        raise BearoffFileError(f"bear-off file {where}: section {name!r} lies outside the payload")
    array = np.frombuffer(payload, dtype=dtype, count=count, offset=offset).reshape(shape)
    return array.astype(dtype.newbyteorder("="), copy=False)


class TableFile:
    """A validated bear-off file read into memory: `meta` (the JSON header) and `arrays`.

    Limits (docs/limits.md): the file at most MAX_FILE_BYTES, the JSON header at most
    MAX_HEADER_BYTES (and fevga.inputs' JSON limits), sections of the dtypes in
    SECTION_DTYPES with at most MAX_SECTION_DIMS dimensions, all inside the payload.
    """

    def __init__(self, path: str | os.PathLike[str], *, verify: bool = True) -> None:
        self.path = file_path(path, "bear-off file", BearoffFileError)
        where = repr(str(self.path))
        self._data = _read_file(self.path)
        size = len(self._data)
        if size < _PREFIX.size:
            raise BearoffFileError(f"bear-off file {where} is truncated: {size} bytes, no header")
        magic, version, header_length, header_crc = _PREFIX.unpack_from(self._data.data, 0)
        if magic != MAGIC:
            raise BearoffFileError(f"{where} is not a fevga bear-off file (magic {magic!r}, expected {MAGIC!r})")
        if version != FORMAT_VERSION:
            raise BearoffFileError(f"{where} has format version {version}; this fevga reads version {FORMAT_VERSION}")
        if header_length > MAX_HEADER_BYTES:
            raise BearoffFileError(f"bear-off file {where} declares a header of {header_length} bytes, over the "
                                   f"limit of {MAX_HEADER_BYTES}")
        if _PREFIX.size + header_length > size:
            raise BearoffFileError(f"bear-off file {where} is truncated inside its header ({size} bytes)")
        header_bytes = self._data[_PREFIX.size : _PREFIX.size + header_length].tobytes()
        if zlib.crc32(header_bytes) != header_crc:
            raise BearoffFileError(f"bear-off file {where} is corrupted: header checksum mismatch")

        def malformed(message: str, line: int | None = None, column: int | None = None) -> BearoffFileError:
            return BearoffFileError(f"bear-off file {where} has a malformed header: {message}")

        meta = parse_json(header_bytes, malformed, "JSON header")
        if not isinstance(meta, dict):
            raise malformed(f"a JSON {type(meta).__name__}, not an object")
        payload_bytes = _field(meta, "payload_bytes", malformed)
        payload_crc = _field(meta, "payload_crc32", malformed)
        sections = meta.get("sections")
        if not isinstance(sections, dict):
            raise malformed(f"field 'sections' is {type(sections).__name__}, not an object of sections")
        payload_start = _align(_PREFIX.size + header_length)
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
        for name, section in sections.items():
            self.arrays[name] = _section_array(payload, payload_bytes, name, section, where)

    def require(self, **expected: Any) -> None:
        """Raise BearoffFileError unless each header field equals the expected value."""
        for key, value in expected.items():
            if value is not None and self.meta.get(key) != value:
                raise BearoffFileError(
                    f"bear-off file {str(self.path)!r} does not match: {key} is {self.meta.get(key)!r}, expected {value!r}"
                )
