"""benchmarks/strength.py, the README's strength tables: each game's ladder has its rungs, a
shipped net meets its own game's predecessor, and a tiny run prints one valid row a rung."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from fevga.net import net_of

SCRIPT = Path(__file__).parents[1] / "benchmarks" / "strength.py"


@pytest.fixture(scope="module")
def ladder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("strength_ladder", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_shipped_net_meets_the_predecessor_of_its_own_game(ladder: ModuleType) -> None:
    before = ladder.predecessor("fevga")
    assert before is not None and before.game == "fevga" and before.checksum != net_of(None, "fevga").checksum
    assert ladder.predecessor("gioul") is None  # the shipped Gioul net is the first (benchmarks/nets keeps it too)


@pytest.mark.parametrize("game", ["fevga", "gioul"])
def test_a_tiny_ladder_prints_one_valid_row_a_rung(ladder: ModuleType, game: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert ladder.main(["--game", game, "--games", "4", "--net2-games", "2", "--seed", "5", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    expected = [f"{a} vs {b}" for a, b in ladder.RUNGS[game]] + (["net vs net"] if game == "fevga" else [])
    assert [r["pairing"].split(" (")[0] + (" vs net" if "(" in r["pairing"] else "") for r in rows] == expected
    for row in rows:
        assert row["game"] == game and row["games"] >= 2 and -3.0 <= row["ppg"] <= 3.0
        assert 0.0 <= row["win_rate"] <= 1.0
