"""The package as a user installs it: a wheel built from this tree, installed into a fresh
virtual environment and used from outside the source tree."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv (sharing this interpreter's site-packages for numpy & co) with the wheel installed."""
    work = tmp_path_factory.mktemp("install")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q", "-w", str(work / "dist"), str(ROOT)],
        capture_output=True, text=True, timeout=900,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(work / "env")
    python = work / "env" / "bin" / "python"
    wheel = next((work / "dist").glob("fevga-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
                   check=True, capture_output=True, timeout=300)
    return python


def test_installed_package_imports_from_site_packages(installed: Path, tmp_path: Path) -> None:
    code = (
        "import fevga, fevga_core.movegen, fevga.bearoff, fevga.cli;"
        "print(fevga.__file__); print(fevga_core.movegen.__file__);"
        "print(fevga.perft(fevga.Position.initial(), 3))"
    )
    result = subprocess.run([str(installed), "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    fevga_file, core_file, count = result.stdout.split()
    assert "site-packages" in fevga_file and "site-packages" in core_file
    assert not fevga_file.startswith(str(ROOT))
    assert count == "21893"
    for stub in ("py.typed", "movegen.pyi", "types.pxd"):
        assert (Path(core_file).parent / stub).exists(), stub


def test_installed_command_line(installed: Path, tmp_path: Path) -> None:
    result = subprocess.run([str(installed), "-m", "fevga", "moves", "start", "6-5"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "24/13" in result.stdout, result.stderr


def test_installed_package_ships_the_net(installed: Path, tmp_path: Path) -> None:
    code = (
        "import fevga; net = fevga.Net.default(); e = fevga.evaluate(fevga.Position.initial());"
        "print(net.checksum, net.provenance['games'], 0 < e.win < 1)"
    )
    result = subprocess.run([str(installed), "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    checksum, games, valid = result.stdout.split()
    assert checksum == fevga_net_checksum() and int(games) > 0 and valid == "True"


def fevga_net_checksum() -> str:
    import fevga

    return fevga.Net.default().checksum
