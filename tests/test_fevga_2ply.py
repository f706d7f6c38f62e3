"""benchmarks/fevga_2ply.py (docs/error_rate.md, "Where net 3's 2-ply loss lies", "Net 3
distilled from its own 2-ply values" and "The yardstick's player"): the documented gap table and
paired difference, distillation data that depend on the seed and chunk alone, hold 2-ply targets
and leave out what the bear-off tables value, and the yardstick's rollouts of the two picks."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import fevga
from fevga import Net
from fevga.error_rate import Corpus
from fevga.batch import evaluate as evaluate_rows, from_array
from fevga.net import net_of

SCRIPT = Path(__file__).parents[1] / "benchmarks" / "fevga_2ply.py"
JUDGED = Path(__file__).parents[1] / "benchmarks" / "error_rate" / "judged-se01-net-3.json"


@pytest.fixture(scope="module")
def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fevga_2ply", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fevga_2ply"] = module  # the distil command's worker processes find its functions by name
    spec.loader.exec_module(module)
    return module


def test_the_gap_table_is_the_documented_one(script: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    script.gaps()
    out = capsys.readouterr().out
    assert "net 3 2-ply: 225 of 500 decisions lose equity, 0.0088 a decision" in out
    assert ("pick the same move in 342 of 500 decisions, which hold 0.0054 of each one's loss a decision "
            "(1-ply: 0.0109)") in out and "would still lose 49% of 1 ply's" in out
    for row in ("| 0.0-0.01 | 56 | 0.0016 | 0.0139 |", "| 0.01-0.03 | 89 | 0.0030 | 0.0169 |",
                "| 0.03-0.1 | 70 | 0.0032 | 0.0231 |", "| 0.1-inf | 10 | 0.0010 | 0.0497 |"):
        assert row in out


def test_paired_differences_on_the_judged_truth(script: ModuleType) -> None:
    mean, half, differ = script.paired(JUDGED, "net 3 2-ply", "net 3 1-ply")
    assert (round(mean, 5), round(half, 5), differ) == (-0.00215, 0.00177, 147)
    assert script.paired(JUDGED, "net 3 1-ply", "net 3 1-ply") == (0.0, 0.0, 0)


def test_a_chunk_depends_on_its_seed_and_number_alone_and_holds_2_ply_targets(script: ModuleType,
                                                                             tmp_path: Path) -> None:
    def made(name: str, number: int) -> tuple[int, dict[str, np.ndarray]]:
        (tmp_path / name / "data").mkdir(parents=True, exist_ok=True)
        count = script.chunk(tmp_path / name, number, 11, 2)
        return count, dict(np.load(script.chunk_path(tmp_path / name, number, 11, 2)))

    (count, a), (again, b) = made("a", 3), made("b", 3)
    assert count == again == len(a["rows"]) > 50
    assert np.array_equal(a["rows"], b["rows"]) and np.array_equal(a["targets"], b["targets"])
    assert not np.array_equal(made("c", 4)[1]["rows"][:20], a["rows"][:20])
    positions = from_array(a["rows"])
    for k in range(0, len(positions), 17):
        e = fevga.evaluate(positions[k], 1)
        assert tuple(a["targets"][k]) == (e.win, e.win_mars, e.lose_mars)
    net = net_of(None, "fevga")
    assert np.array_equal(net._core.evaluate_rows(a["rows"]), evaluate_rows(a["rows"]))  # no table-valued rows
    assert script.chunk(tmp_path / "a", 3, 11, 2) == count  # an existing chunk is kept, not made again


def test_distil_refuses_too_few_games_for_a_held_out_chunk(script: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="at least 951, for a held-out chunk"):
        script.distil(tmp_path, 900, 1, 0.01, 1, 1)
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("policy, figures", [
    ("net", {"gain": 0.0021, "half": 0.0018, "truth": 0.0021, "paired": -0.0001, "paired_half": 0.0004, "decisions": 158}),
    ("net2", {"gain": 0.0017, "half": 0.0017, "truth": 0.0021, "paired": -0.0004, "paired_half": 0.0009, "decisions": 158}),
])
def test_the_documented_yardsticks(script: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   policy: str, figures: dict[str, float]) -> None:
    def no_rollout(*args: object, **kwargs: object) -> None:
        raise AssertionError("the committed yardstick lacks a decision")

    monkeypatch.setattr(fevga, "rollout_moves", no_rollout)
    copy = tmp_path / "yardstick.json"  # never the committed file, were anything written
    copy.write_bytes((JUDGED.parent / f"yardstick-{policy}-2592.json").read_bytes())
    got = script.yardstick(copy, policy, 2592, 7, 2)
    assert {k: round(v, 4) for k, v in got.items()} == figures


def test_yardstick_rolls_out_the_two_picks_where_they_differ_and_resumes(script: ModuleType, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    judged = json.loads(JUDGED.read_text())
    judged["decisions"] = judged["decisions"][:12]
    differ = [d for d in judged["decisions"] if d["picks"]["net 3 1-ply"] != d["picks"]["net 3 2-ply"]]
    assert len(differ) >= 2
    (tmp_path / "judged.json").write_text(json.dumps(judged))
    monkeypatch.setattr(script, "JUDGED", tmp_path / "judged.json")
    out = tmp_path / "net.json"
    first = script.yardstick(out, "net", 72, 7, 1, limit=1)
    assert first["decisions"] == len(json.loads(out.read_text())["decisions"]) == 1
    figures = script.yardstick(out, "net", 72, 7, 1)  # resumes after the first
    done = json.loads(out.read_text())
    assert figures["decisions"] == len(differ) == len(done["decisions"])
    corpus = Corpus.load(script.CORPUS)
    one = differ[0]
    decision = corpus.decisions[one["index"]]
    ranked = fevga.rollout_moves(decision.position, decision.dice, 72, np.random.SeedSequence(7, spawn_key=(one["index"],)),
                                 1, "net", truncate=True, net=Net.load(script.NET_2).quantised(),
                                 moves=[one["picks"]["net 3 1-ply"], one["picks"]["net 3 2-ply"]], progress=False)
    diff = {m.move.notation: m.diff for m in ranked}
    assert done["decisions"][str(one["index"])]["gain"] == diff[one["picks"]["net 3 2-ply"]] - diff[one["picks"]["net 3 1-ply"]]
    assert figures["gain"] == pytest.approx(sum(d["gain"] for d in done["decisions"].values()) / len(corpus.decisions))
    truth = sum({m["move"]: m["diff"] for m in d["moves"]}[d["picks"]["net 3 2-ply"]]
                - {m["move"]: m["diff"] for m in d["moves"]}[d["picks"]["net 3 1-ply"]] for d in differ)
    assert figures["truth"] == pytest.approx(truth / len(corpus.decisions))
    assert figures["paired"] == pytest.approx(figures["gain"] - figures["truth"])
    assert f"{len(differ)} of the {len(differ)} decisions where" in capsys.readouterr().out

    def no_rollout(*args: object, **kwargs: object) -> None:
        raise AssertionError("a finished decision was rolled out again")

    monkeypatch.setattr(fevga, "rollout_moves", no_rollout)
    assert script.yardstick(out, "net", 72, 7, 1) == figures  # resumed: nothing left to roll out
    with pytest.raises(SystemExit, match="another yardstick's numbers"):
        script.yardstick(out, "net2", 72, 7, 1)
