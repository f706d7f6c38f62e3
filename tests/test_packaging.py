"""The package as a user installs it, hermetically: a wheel built in a clean copy of the tracked
tree, installed with its dependencies from the package index into a fresh virtual environment
that shares nothing with this one (no system site-packages), and used from outside the tree.

`test_wheel_holds_every_tracked_file` is the check against the tree: a sub-package or data file
that the build configuration leaves out fails it, whatever the development install can import.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE_SHIPPED = (".py", ".pxd", ".pyi", "py.typed")  # fevga_core's sources that the wheel carries as files


def _tracked_files() -> list[str]:
    """The tree's files as a fresh clone would have them (tracked or new, minus ignored ones)."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, text=True, check=True, timeout=60).stdout
    return sorted(name for name in listed.split("\0") if name and (ROOT / name).is_file())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built from a clean copy of the tree (no in-place build products, no build/ dir)."""
    work = tmp_path_factory.mktemp("build")
    source = work / "source"
    for name in _tracked_files():
        target = source / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work / "dist"), str(source)],
        capture_output=True, text=True, timeout=1500,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    return next((work / "dist").glob("fevga-*.whl"))


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv (no system site-packages) with the wheel and its dependencies from the index."""
    env = tmp_path_factory.mktemp("install") / "env"
    venv.EnvBuilder(system_site_packages=False, with_pip=True).create(env)
    python = env / "bin" / "python"
    result = subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)],
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return python


def _run(python: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    return subprocess.run([str(python), *args], cwd=cwd, capture_output=True, text=True, timeout=300, env=clean)


def test_wheel_holds_every_tracked_file(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    missing = []
    for name in _tracked_files():
        if name.startswith("src/fevga/"):
            if name[len("src/"):] not in names:
                missing.append(name)
        elif name.startswith("fevga_core/"):
            if name.endswith(CORE_SHIPPED) and name not in names:
                missing.append(name)
            if name.endswith(".pyx"):
                stem = name[: -len(".pyx")]
                if not any(n.startswith(stem + ".") and n.endswith((".so", ".pyd")) for n in names):
                    missing.append(name + " (compiled)")
    assert not missing, f"tracked files the wheel lacks: {missing}"


def test_installed_package_imports_from_site_packages(installed: Path, tmp_path: Path) -> None:
    code = (
        "import fevga, fevga_core.movegen, fevga.bearoff, fevga.cli, fevga.rollout;"
        "print(fevga.__file__); print(fevga_core.movegen.__file__);"
        "print(fevga.perft(fevga.Position.initial(), 3))"
    )
    result = _run(installed, ["-c", code], tmp_path)
    assert result.returncode == 0, result.stderr
    fevga_file, core_file, count = result.stdout.split()
    assert "site-packages" in fevga_file and "site-packages" in core_file
    assert not fevga_file.startswith(str(ROOT)) and not core_file.startswith(str(ROOT))
    assert count == "21893"
    for stub in ("py.typed", "movegen.pyi", "types.pxd"):
        assert (Path(core_file).parent / stub).exists(), stub


def test_installed_command_line(installed: Path, tmp_path: Path) -> None:
    result = _run(installed, ["-m", "fevga", "moves", "start", "6-5"], tmp_path)
    assert result.returncode == 0 and "24/13" in result.stdout, result.stderr


def test_installed_main_job_runs_on_the_shipped_net(installed: Path, tmp_path: Path) -> None:
    """The README's first job (`fevga rollout start`), at a small size, from outside the tree."""
    script = installed.parent / "fevga"
    result = subprocess.run([str(script), "rollout", "start", "--games", "1296", "--seed", "1", "--json",
                             "--no-progress"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["games"] == 1296 and -3 < data["equity"] < 3, data


def test_installed_package_ships_the_nets(installed: Path, tmp_path: Path) -> None:
    """Both games' nets are in the wheel, the same (checksum and manifest) as in the tree."""
    code = (
        "import fevga; net = fevga.Net.default(); e = fevga.evaluate(fevga.Position.initial());"
        "gioul = fevga.Net.default(game='gioul'); g = fevga.evaluate(fevga.GioulPosition.initial());"
        "print(net.checksum, net.provenance['games'], 0 < e.win < 1, gioul.checksum, gioul.game, 0 < g.win < 1,"
        "fevga.net.shipped('gioul').name)"
    )
    result = _run(installed, ["-c", code], tmp_path)
    assert result.returncode == 0, result.stderr
    checksum, games, valid, gioul_checksum, game, gioul_valid, name = result.stdout.split()
    assert checksum == net_checksum("fevga") and int(games) > 0 and valid == "True"
    assert (gioul_checksum, game, gioul_valid, name) == (net_checksum("gioul"), "gioul", "True", "gioul-net-1")


def net_checksum(game: str) -> str:
    import fevga

    return fevga.Net.default(game=game).checksum
