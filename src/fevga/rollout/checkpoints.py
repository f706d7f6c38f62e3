"""Rollout checkpoints: a job's finished blocks saved atomically, validated on resume."""

from __future__ import annotations

import json
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from fevga.errors import InvalidArgumentError
from fevga.files import atomic_write
from fevga.rollout.jobs import BLOCK_GAMES, Job, Sums, Tally

class _CheckpointFormatError(Exception):
    """A file NumPy can read that is not laid out as a checkpoint (message: what is wrong)."""


_CHECKPOINT_ARRAYS = ("sums", "first", "cross", "lengths")


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
    atomic_write(path, lambda handle: np.savez(handle, **arrays), what="checkpoint")


def load_checkpoint(path: Path, job: Job) -> Tally:
    """The finished blocks saved in `path`; InvalidArgumentError (quoting the path) if the file
    cannot be read, is not a fevga checkpoint, is corrupted, or belongs to another job."""
    name = str(path)
    try:
        meta, order, arrays, prefix = _read_checkpoint(path)
    except _CheckpointFormatError as exc:
        raise InvalidArgumentError(f"checkpoint {name!r} is not a fevga checkpoint: {exc}") from None
    except IsADirectoryError:
        raise InvalidArgumentError(f"checkpoint {name!r} is a directory; give a file path") from None
    except OSError as exc:
        raise InvalidArgumentError(f"cannot read checkpoint {name!r}: {exc.strerror or exc}") from None
    except (ValueError, EOFError, zipfile.BadZipFile, zlib.error):
        raise InvalidArgumentError(
            f"checkpoint {name!r} is not a fevga checkpoint (not a readable .npz archive)") from None
    if meta != job.fingerprint():
        raise InvalidArgumentError(f"checkpoint {name!r} belongs to another job; remove it or change the path")

    def sums_of(parts: list[npt.NDArray[Any]]) -> Sums:
        sums = Sums(job.targets)
        for target, source in zip(sums.arrays(), parts):
            if source.shape != target.shape:
                raise InvalidArgumentError(f"checkpoint {name!r} is corrupted: block arrays of the wrong shape")
            target[:] = source
        return sums

    tally = Tally(job.targets)
    if prefix is not None:  # files written before the running sum have blocks only
        folded, parts = prefix
        tally.prefix = sums_of(parts)
        tally.next = folded
        if not 0 <= folded <= job.blocks or tally.prefix.sums[0, 0] != min(folded * BLOCK_GAMES, job.games):
            raise InvalidArgumentError(f"checkpoint {name!r} is corrupted: its running sum does not hold "
                                       f"blocks 0..{folded - 1}")
    for i, block in enumerate(order):
        sums = sums_of([a[i] for a in arrays])
        if not 0 <= block < job.blocks or tally.has(block) or sums.sums[0, 0] != job.block_range(block)[1]:
            raise InvalidArgumentError(f"checkpoint {name!r} is corrupted: block {block} is out of range, "
                                       "repeated or incomplete")
        tally.add(block, sums)
    return tally


def _read_checkpoint(path: Path) -> tuple[Any, list[int], list[npt.NDArray[Any]],
                                          tuple[int, list[npt.NDArray[Any]]] | None]:
    """(meta, block indices, [sums, first, cross, lengths], (prefix blocks, its arrays) or None)
    of a checkpoint file, unvalidated."""
    data = np.load(path, allow_pickle=False)
    if not isinstance(data, np.lib.npyio.NpzFile):  # a bare .npy array
        raise _CheckpointFormatError("a single NumPy array, not a .npz archive")
    with data:
        missing = [key for key in ("meta", "blocks", *_CHECKPOINT_ARRAYS) if key not in data.files]
        if missing:
            raise _CheckpointFormatError(f"no {', '.join(repr(m) for m in missing)} in the archive")
        try:
            meta = json.loads(data["meta"].tobytes().decode())
        except ValueError:  # JSONDecodeError and UnicodeDecodeError
            raise _CheckpointFormatError("its 'meta' entry is not JSON") from None
        order = [int(b) for b in np.asarray(data["blocks"]).reshape(-1)]
        arrays = [np.asarray(data[key]) for key in _CHECKPOINT_ARRAYS]
        prefix = None
        if "prefix" in data.files:
            keys = [f"prefix_{key}" for key in _CHECKPOINT_ARRAYS]
            if any(key not in data.files for key in keys) or np.asarray(data["prefix"]).shape != (1,):
                raise _CheckpointFormatError("its running-sum entries are incomplete")
            prefix = (int(data["prefix"][0]), [np.asarray(data[key]) for key in keys])
    if any(a.ndim == 0 or a.shape[0] != len(order) for a in arrays):
        raise _CheckpointFormatError("its block arrays and block list differ in length")
    return meta, order, arrays, prefix


def checkpoint_exists(path: Path) -> bool:
    """Whether there is something at `path` to resume (InvalidArgumentError if it cannot be looked at)."""
    try:
        path.stat()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise InvalidArgumentError(f"cannot read checkpoint {str(path)!r}: {exc.strerror or exc}") from None
    return True


def checkpoint_master(path: Path) -> tuple[int, int | str] | None:
    """The master key and seed recorded in an existing checkpoint (lets seed=None resume and
    report the seed that reproduces the run)."""
    try:
        master = int(_read_checkpoint(path)[0]["master"])
    except Exception:  # unreadable or foreign: _load_checkpoint reports it with the path
        return None
    seed: int | str = f"master key {master}"  # a checkpoint written before seeds were kept
    try:
        with np.load(path, allow_pickle=False) as data:
            if "seed" in data.files:
                stored = json.loads(data["seed"].tobytes().decode())
                if isinstance(stored, (int, str)) and not isinstance(stored, bool):
                    seed = stored
    except Exception:
        pass
    return master, seed
