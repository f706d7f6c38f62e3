"""Every output goes through one atomic writer (fevga.files): special files are refused and left
alone, symlinks are followed on purpose, missing folders are never created, the output path is
checked before the work starts, and no temporary file survives a failure or a kill -9
(issue 19, "Destructive writes"; issue 14, item 5)."""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from children import slow_writer
import fevga
from fevga import InvalidArgumentError, Net, Position
from fevga.bearoff import OneSidedDB
from fevga.cli import main
from fevga.files import TEMP_SUFFIX, atomic_write, output_path, stale_temporaries
from fevga.game import play_game
from fevga.records import save_record

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _fifo(folder: Path) -> Path:
    path = folder / "pipe"
    os.mkfifo(path)
    return path


def _special_files(folder: Path) -> list[tuple[str, Path, Callable[[os.stat_result], bool]]]:
    """(name, path, still-the-same check) of the special files a writer must refuse: a FIFO,
    a directory, and (as root only: mknod needs it) a character device like /dev/null, made
    in the test folder. Real /dev entries are never touched."""
    specials = [("fifo", _fifo(folder), lambda s: stat.S_ISFIFO(s.st_mode))]
    directory = folder / "dir"
    directory.mkdir()
    specials.append(("directory", directory, lambda s: stat.S_ISDIR(s.st_mode)))
    if IS_ROOT:
        device = folder / "null"
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        specials.append(("device", device, lambda s: stat.S_ISCHR(s.st_mode) and s.st_rdev == os.makedev(1, 3)))
    return specials


def _temporaries(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(TEMP_SUFFIX) or p.name.endswith(".tmp")]


WRITERS: dict[str, Callable[[Path], object]] = {
    "atomic_write": lambda path: atomic_write(path, lambda handle: handle.write(b"data")),
    "Net.save": lambda path: Net.initial(8, seed=1).save(path),
    "OneSidedDB.save": lambda path: OneSidedDB.build(3, 2).save(path),
    "save_record": lambda path: save_record(play_game(seed=1, max_plies=4), path),
    "rollout checkpoint": lambda path: fevga.rollout(Position.initial(), games=36, seed=1, workers=1,
                                                     policy="random", progress=False, checkpoint=path),
}


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_writers_refuse_special_files_and_leave_them_alone(tmp_path: Path, writer: str) -> None:
    for name, path, same in _special_files(tmp_path):
        with pytest.raises(InvalidArgumentError, match="not a regular file") as info:
            WRITERS[writer](path)
        assert str(path) in str(info.value) and ".tmp" not in str(info.value), (name, info.value)
        assert same(os.lstat(path)), f"{writer} changed the {name}"
    assert _temporaries(tmp_path) == []


def test_cli_writers_refuse_special_files_before_the_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "game.json"
    save_record(play_game(seed=2, policy="heuristic"), record)
    commands = {
        "analyse --html": lambda out: ["analyse", str(record), "--evaluator", "heuristic", "--html", str(out)],
        "play --save": lambda out: ["play", "--seed", "1", "--save", str(out)],
        "play-match --save": lambda out: ["play-match", "1", "--seed", "1", "--save", str(out)],
        "bearoff build --out": lambda out: ["bearoff", "build", "one-sided", "--points", "3", "--checkers", "2",
                                            "--out", str(out), "--quiet"],
        "bearoff plot --out": lambda out: ["bearoff", "plot", "0,1", "--out", str(out)],
        "rollout --checkpoint": lambda out: ["rollout", "--games", "36", "--seed", "1", "--policy", "random",
                                             "--workers", "1", "--checkpoint", str(out), "--no-progress"],
    }
    for name, path, same in _special_files(tmp_path):
        for command, argv in commands.items():
            assert main(argv(path)) == 2, (command, name)
            captured = capsys.readouterr()
            assert captured.out == "", (command, name, captured.out)  # refused before any work or output
            assert captured.err.startswith("fevga: error: cannot write") and captured.err.count("\n") == 1
            assert same(os.lstat(path)), (command, name)
    assert _temporaries(tmp_path) == []


def test_a_symlink_is_followed_to_its_target(tmp_path: Path) -> None:
    target = tmp_path / "real.mat"
    target.write_text("old")
    link = tmp_path / "link.mat"
    link.symlink_to(target)
    save_record(play_game(seed=1, max_plies=4), link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "point match" in target.read_text()
    dangling = tmp_path / "dangling.npz"
    dangling.symlink_to(tmp_path / "new.npz")
    Net.initial(8).save(dangling)
    assert dangling.is_symlink() and Net.load(tmp_path / "new.npz").hidden == 8
    to_fifo = tmp_path / "to_fifo"
    to_fifo.symlink_to(_fifo(tmp_path))
    with pytest.raises(InvalidArgumentError, match="FIFO .*the target of the symlink"):
        atomic_write(to_fifo, lambda handle: handle.write(b"x"))
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop")
    with pytest.raises(InvalidArgumentError, match="loop"):
        atomic_write(loop, lambda handle: handle.write(b"x"))
    assert _temporaries(tmp_path) == []


def test_missing_folders_are_never_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing" / "dir" / "x.mat"
    with pytest.raises(InvalidArgumentError, match="does not exist .*does not create"):
        save_record(play_game(seed=1, max_plies=2), missing)
    assert main(["play", "--seed", "1", "--save", str(missing)]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["bearoff", "build", "one-sided", "--checkers", "2", "--out", str(missing), "--quiet"]) == 2
    capsys.readouterr()
    assert not (tmp_path / "missing").exists()
    file = tmp_path / "file"
    file.write_text("x")
    with pytest.raises(InvalidArgumentError, match="a folder on its path is a file"):
        output_path(file / "x.mat")


def test_train_needs_a_folder_not_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "passwd"
    file.write_text("root:x:0:0\n")
    assert main(["train", str(file), "--games", "2", "--check-games", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "training folder" in err and "is a file, not a folder" in err and "File exists" not in err
    assert file.read_text() == "root:x:0:0\n"
    assert main(["train", str(tmp_path / "a" / "b"), "--games", "2", "--check-games", "2", "--no-progress"]) == 2
    assert "parent folder does not exist" in capsys.readouterr().err
    assert not (tmp_path / "a").exists()


def test_bearoff_build_into_a_directory_names_it_not_a_temporary_file(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bearoff", "build", "two-sided", "--checkers", "2", "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"'{tmp_path}': it is a directory" in err and ".tmp" not in err


class _Boom(Exception):
    pass


@pytest.mark.parametrize("failure", [_Boom("writer bug"), KeyboardInterrupt(), OSError(errno.ENOSPC, "No space")])
def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path, failure: BaseException) -> None:
    target = tmp_path / "table.fbo"
    target.write_bytes(b"old contents")

    def write(handle: object) -> None:
        handle.write(b"partial")  # type: ignore[attr-defined]
        raise failure

    expected: type[BaseException] = InvalidArgumentError if isinstance(failure, OSError) else type(failure)
    with pytest.raises(expected) as info:
        atomic_write(target, write, what="bear-off table")
    if isinstance(failure, OSError):
        assert "no space left on the device" in str(info.value)
    assert target.read_bytes() == b"old contents"
    assert _temporaries(tmp_path) == []


def test_plot_is_written_atomically(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "race.png"
    png.write_bytes(b"previous image")
    assert main(["bearoff", "plot", "0,1,2", "--out", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _temporaries(tmp_path) == []
    capsys.readouterr()


_SLOW_WRITER = slow_writer(1_000_000)


def test_a_killed_writers_temporary_file_is_removed_by_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "two-sided.fbo"
    child = subprocess.Popen([sys.executable, "-c", _SLOW_WRITER, str(target)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "writing"
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=60)
    left = _temporaries(tmp_path)
    assert len(left) == 1 and f".{child.pid}-" in left[0].name  # kill -9 leaves it, named by its process
    assert stale_temporaries(target) == left
    OneSidedDB.build(3, 2).save(target)  # the next write to that target cleans it up
    assert _temporaries(tmp_path) == [] and target.stat().st_size > 0


def test_a_live_writers_temporary_file_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "x.json"
    mine = tmp_path / f".x.json.{os.getpid()}-0123abcd{TEMP_SUFFIX}"
    mine.write_bytes(b"in progress")
    parent = tmp_path / f".x.json.{os.getppid()}-0123abcd{TEMP_SUFFIX}"
    parent.write_bytes(b"in progress")
    atomic_write(target, lambda handle: handle.write(b"{}"))
    assert mine.exists() and parent.exists()  # their processes are alive: not stale


def test_rollout_checkpoint_path_is_checked_before_any_game(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="does not exist"):  # at once: a billion games never start
        fevga.rollout(Position.initial(), games=10**9, seed=1, workers=1, progress=False,
                      checkpoint=tmp_path / "no" / "ck.npz")
    assert not (tmp_path / "no").exists() and _temporaries(tmp_path) == []
