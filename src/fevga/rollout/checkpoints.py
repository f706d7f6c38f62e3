"""Rollout checkpoints: a job's finished blocks saved atomically, validated on resume.

A checkpoint is a NumPy .npz archive: ``meta`` (the job's fingerprint, JSON), ``seed``
(JSON), ``blocks`` and ``prefix`` (block numbers), the block sums (``sums``, ``first``,
``cross``, ``lengths`` and their ``prefix_`` running totals) and ``sha256``, the content
checksum of everything else (`content_digest`). On resume the archive is read within the
limits below (fevga.inputs.read_npz: sizes are checked before anything is decompressed),
the checksum is verified (files written before it existed have none and still load), and
every sum must be finite and agree with its game counts. Any failure is a CheckpointError
naming the file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from fevga.errors import CheckpointError, FevgaError, InvalidArgumentError
from fevga.files import atomic_write
from fevga.inputs import ArraySpec, parse_json, read_file, read_npz
from fevga.rollout.jobs import BLOCK_GAMES, Job, Sums, Tally

MAX_FILE_BYTES = 1 << 30  # a checkpoint file
MAX_ARRAY_VALUES = 1 << 27  # values in one of its arrays (1 GiB of float64)
MAX_JSON_BYTES = 1 << 24  # its meta and seed entries

_CHECKPOINT_ARRAYS = ("sums", "first", "cross", "lengths")
_F64, _I64, _U8 = np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.uint8)
_SPECS: dict[str, ArraySpec] = {
    "meta": ((_U8,), MAX_JSON_BYTES), "seed": ((_U8,), MAX_JSON_BYTES), "sha256": ((_U8,), 64),
    "blocks": ((_I64,), MAX_ARRAY_VALUES), "prefix": ((_I64,), 1),
    # an empty list of blocks ahead is saved as float64 zeros whatever the array
    **{name: ((_F64, _I64), MAX_ARRAY_VALUES) for name in _CHECKPOINT_ARRAYS},
    **{f"prefix_{name}": ((_F64, _I64), MAX_ARRAY_VALUES) for name in _CHECKPOINT_ARRAYS},
}


def content_digest(arrays: dict[str, npt.NDArray[Any]]) -> str:
    """SHA-256 over every array but "sha256": names in sorted order, each with its dtype,
    shape and bytes, so that any edit of a value, a shape or an entry changes it."""
    digest = hashlib.sha256(b"fevga-rollout-checkpoint-1")
    for name in sorted(arrays):
        if name == "sha256":
            continue
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}|{array.dtype.str}|{array.shape}|".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def save_checkpoint(path: Path, job: Job, tally: Tally) -> None:
    """Write a job's finished blocks atomically (temporary file + os.replace): the running sum
    of blocks 0..next-1 ("prefix" arrays) and each block finished ahead of it."""
    if tally.start != 0:
        raise InvalidArgumentError("only a whole job (blocks from 0) can be checkpointed")
    order = sorted(tally.ahead)
    arrays: dict[str, Any] = {
        "meta": np.frombuffer(json.dumps(job.fingerprint()).encode(), dtype=np.uint8),
        "blocks": np.asarray(order, dtype=np.int64),
        "seed": np.frombuffer(json.dumps(job.seed).encode(), dtype=np.uint8),
        "prefix": np.asarray([tally.next], dtype=np.int64),
    }
    for i, name in enumerate(_CHECKPOINT_ARRAYS):
        shape = tally.prefix.arrays()[i].shape
        arrays[name] = np.stack([tally.ahead[b].arrays()[i] for b in order]) if order else np.zeros((0, *shape))
        arrays[f"prefix_{name}"] = tally.prefix.arrays()[i]
    arrays["sha256"] = np.frombuffer(content_digest(arrays).encode(), dtype=np.uint8)
    atomic_write(path, lambda handle: np.savez(handle, **arrays), what="checkpoint")


def load_checkpoint(path: Path, job: Job) -> Tally:
    """The finished blocks saved in `path`; CheckpointError (quoting the path) if the file
    cannot be read, is not a fevga checkpoint, is corrupted, or belongs to another job."""
    name = str(path)
    meta, order, arrays, prefix = _read_checkpoint(path)
    if meta != job.fingerprint():
        raise CheckpointError(f"checkpoint {name!r} belongs to another job; remove it or change the path")

    def sums_of(parts: list[npt.NDArray[Any]]) -> Sums:
        sums = Sums(job.targets)
        for target, source in zip(sums.arrays(), parts):
            if source.shape != target.shape:
                raise CheckpointError(f"checkpoint {name!r} is corrupted: block arrays of the wrong shape")
            target[:] = source
        _check_sums(sums, name)
        return sums

    tally = Tally(job.targets)
    if prefix is not None:  # files written before the running sum have blocks only
        folded, parts = prefix
        tally.prefix = sums_of(parts)
        tally.next = folded
        if not 0 <= folded <= job.blocks or tally.prefix.sums[0, 0] != min(folded * BLOCK_GAMES, job.games):
            raise CheckpointError(f"checkpoint {name!r} is corrupted: its running sum does not hold "
                                  f"blocks 0..{folded - 1}")
    for i, block in enumerate(order):
        sums = sums_of([a[i] for a in arrays])
        if not 0 <= block < job.blocks or tally.has(block) or sums.sums[0, 0] != job.block_range(block)[1]:
            raise CheckpointError(f"checkpoint {name!r} is corrupted: block {block} is out of range, "
                                  "repeated or incomplete")
        tally.add(block, sums)
    return tally


def _check_sums(sums: Sums, name: str) -> None:
    """Every sum finite, and the counts consistent with the games: what any run writes."""
    if not all(np.all(np.isfinite(a)) for a in sums.arrays()):
        raise CheckpointError(f"checkpoint {name!r} is corrupted: its sums are not all finite")
    games = sums.sums[:, 0]
    if (np.any(games < 0) or np.any(games != np.round(games)) or np.any(sums.lengths < 0)
            or np.any(sums.lengths.sum(axis=1) != games) or np.any(sums.first[:, :, 0].sum(axis=1) != games)):
        raise CheckpointError(f"checkpoint {name!r} is corrupted: its game counts disagree")


def _archive(path: Path) -> dict[str, npt.NDArray[Any]]:
    """The arrays of a checkpoint file, read within the limits, its checksum verified."""
    name = str(path)

    def unreadable(message: str) -> CheckpointError:
        return CheckpointError(message if name in message else f"checkpoint {name!r}: {message}")

    data = read_file(path, MAX_FILE_BYTES, unreadable, "checkpoint")
    archive = read_npz(data, _SPECS, ("meta", "blocks", *_CHECKPOINT_ARRAYS), lambda m: _refused(name, m), "archive",
                       max_total=MAX_FILE_BYTES)
    if "sha256" in archive:
        stored = archive["sha256"].tobytes().decode("ascii", "replace")
        if stored != content_digest(archive):
            raise CheckpointError(f"checkpoint {name!r} is corrupted: its content checksum does not match "
                                  "(the file was edited or damaged)")
    return archive


def _refused(name: str, message: str) -> CheckpointError:
    return CheckpointError(f"checkpoint {name!r} is not a fevga checkpoint: {message}")


def _json_entry(archive: dict[str, npt.NDArray[Any]], key: str, name: str) -> Any:
    def bad_json(message: str, line: int | None, column: int | None) -> FevgaError:
        return _refused(name, f"its {key!r} entry: {message}")

    return parse_json(archive[key].tobytes(), bad_json, "JSON")


def _read_checkpoint(path: Path) -> tuple[Any, list[int], list[npt.NDArray[Any]],
                                          tuple[int, list[npt.NDArray[Any]]] | None]:
    """(meta, block indices, [sums, first, cross, lengths], (prefix blocks, its arrays) or None)
    of a checkpoint file, not yet matched to a job."""
    name = str(path)
    archive = _archive(path)
    meta = _json_entry(archive, "meta", name)
    order = [int(b) for b in archive["blocks"].reshape(-1)]
    arrays = [archive[key] for key in _CHECKPOINT_ARRAYS]
    prefix = None
    if "prefix" in archive:
        keys = [f"prefix_{key}" for key in _CHECKPOINT_ARRAYS]
        if any(key not in archive for key in keys) or archive["prefix"].shape != (1,):
            raise _refused(name, "its running-sum entries are incomplete")
        prefix = (int(archive["prefix"][0]), [archive[key] for key in keys])
    if any(a.ndim == 0 or a.shape[0] != len(order) for a in arrays):
        raise _refused(name, "its block arrays and block list differ in length")
    return meta, order, arrays, prefix


def checkpoint_exists(path: Path) -> bool:
    """Whether there is something at `path` to resume (CheckpointError if it cannot be looked at)."""
    try:
        path.stat()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise CheckpointError(f"cannot read checkpoint {str(path)!r}: {exc.strerror or exc}") from None
    return True


def checkpoint_master(path: Path) -> tuple[int, int | str] | None:
    """The master key and seed recorded in an existing checkpoint (lets seed=None resume and
    report the seed that reproduces the run); None when the file is unreadable or foreign
    (load_checkpoint then reports it with the path)."""
    try:
        archive = _archive(path)
        master = int(_json_entry(archive, "meta", str(path))["master"])
        stored = _json_entry(archive, "seed", str(path)) if "seed" in archive else None
    except (FevgaError, KeyError, TypeError, ValueError):
        return None
    if isinstance(stored, (int, str)) and not isinstance(stored, bool):
        return master, stored
    return master, f"master key {master}"  # a checkpoint written before seeds were kept
