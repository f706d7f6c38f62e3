"""Known perft counts (tests/data/perft.json) for the default and strict rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import reference
from fevga import BLACK, WHITE, Position, Rules, perft

DATA = json.loads((Path(__file__).parent / "data" / "perft.json").read_text())
RULES = {"default": Rules(), "strict": Rules.strict()}
REFERENCE_RULES = {"default": {}, "strict": Rules.strict().to_dict()}


@pytest.mark.parametrize("entry", DATA["entries"], ids=lambda e: f"{e['position']}-{e['rules']}")
def test_known_perft(entry: dict) -> None:
    position = Position.from_id(entry["position"])
    for depth, expected in enumerate(entry["perft"], 1):
        assert perft(position, depth, RULES[entry["rules"]]) == expected, depth


@pytest.mark.parametrize("entry", DATA["entries"], ids=lambda e: f"{e['position']}-{e['rules']}")
def test_perft_agrees_with_the_reference(entry: dict) -> None:
    position = Position.from_id(entry["position"])
    counts = (position.counts(WHITE), position.counts(BLACK), position.turn)
    checked = 2 if position == Position.initial() else 1  # depth 3 from the start: tests/test_reference.py
    for depth, expected in enumerate(entry["perft"][:checked], 1):
        assert reference.perft(*counts, depth, REFERENCE_RULES[entry["rules"]]) == expected, depth


def test_perft_of_a_finished_game_is_one_leaf() -> None:
    done = Position.from_counts([15] + [0] * 24, [0] * 24 + [15], BLACK)
    assert perft(done, 3) == 1
