"""Known perft counts (tests/data/perft.json) for the default and strict rules.

The engine must reproduce every count of the data file, and the counts themselves are pinned
by an independent derivation: REFERENCE_PERFT below was computed by the pure-Python
reference of the rules (tests/reference.py, which shares no code with the engine) through
tests/derive_perft.py, offline, never copied from the engine's output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import derive_perft
import reference
from fevga import BLACK, WHITE, Position, Rules, perft

DATA = json.loads((Path(__file__).parent / "data" / "perft.json").read_text())
RULES = {"default": Rules(), "strict": Rules.strict()}
REFERENCE_RULES = {"default": {}, "strict": Rules.strict().to_dict()}

# Derived by the reference alone, one command per line (run in tests/, `python` being any
# Python 3.10+; no package needs to be installed). The times are wall-clock seconds on the
# project's 2-core machine shared with other builds and tests (load 7-11), per depth as the
# command printed them. --cached sums the same recurrence over reference.legal_results with
# each (position, depth) counted once (moves of one side in its two turns often commute);
# it gives the same counts (START strict depth 4: 877,257 both ways, 86 s against 177 s).
#   nice -n 15 python derive_perft.py START default 4              depth 3: 2 s, depth 4: 68 s
#   nice -n 15 python derive_perft.py START default 5 5 --cached   depth 5: 973 s
#   nice -n 15 python derive_perft.py START strict 4               depth 3: 3 s, depth 4: 177 s
#   nice -n 15 python derive_perft.py START strict 5 5 --cached    depth 5: 982 s
#   nice -n 15 python derive_perft.py MID1 default 2               depth 2: 138 s (strict: 222 s)
#   nice -n 15 python derive_perft.py MID2 default 2               depth 2: 13 s (strict: 25 s)
#   nice -n 15 python derive_perft.py MID3 default 2               depth 2: 67 s (strict: 122 s)
#   nice -n 15 python derive_perft.py RACE default 3               depth 3: 724 s (strict: 1,284 s)
REFERENCE_PERFT: dict[tuple[str, str], list[int]] = {
    ("START", "default"): [22, 479, 21_893, 877_257, 147_721_687],
    ("START", "strict"): [22, 479, 21_893, 877_257, 147_721_517],
    ("MID1", "default"): [1_064, 1_848_024],
    ("MID1", "strict"): [1_064, 1_848_024],
    ("MID2", "default"): [2_344, 133_047],
    ("MID2", "strict"): [2_344, 133_047],
    ("MID3", "default"): [875, 1_146_809],
    ("MID3", "strict"): [875, 1_146_809],
    ("RACE", "default"): [324, 30_379, 10_180_721],
    ("RACE", "strict"): [324, 30_379, 10_180_709],
}


def _entry_id(entry: dict) -> str:
    return f"{entry['position']}-{entry['rules']}"


def _reference_counts(entry: dict) -> list[int]:
    names = [name for name, spec in derive_perft.POSITIONS.items() if spec[0] == entry["position"]]
    assert len(names) == 1, entry["position"]
    return REFERENCE_PERFT[(names[0], entry["rules"])]


@pytest.mark.parametrize("entry", DATA["entries"], ids=_entry_id)
def test_known_perft(entry: dict) -> None:
    position = Position.from_id(entry["position"])
    for depth, expected in enumerate(entry["perft"], 1):
        assert perft(position, depth, RULES[entry["rules"]]) == expected, depth


@pytest.mark.parametrize("entry", DATA["entries"], ids=_entry_id)
def test_known_perft_was_derived_by_the_reference(entry: dict) -> None:
    assert entry["perft"] == _reference_counts(entry)


def test_derivation_positions_are_the_data_positions() -> None:
    assert {spec[0] for spec in derive_perft.POSITIONS.values()} == {e["position"] for e in DATA["entries"]}
    assert set(REFERENCE_PERFT) == {(name, rules) for name in derive_perft.POSITIONS for rules in RULES}
    for position_id, white, black, turn in derive_perft.POSITIONS.values():
        position = Position.from_id(position_id)
        assert (tuple(position.counts(WHITE)), tuple(position.counts(BLACK)), int(position.turn)) == (white, black, turn)


@pytest.mark.parametrize("entry", DATA["entries"], ids=_entry_id)
def test_perft_agrees_with_the_reference(entry: dict) -> None:
    """The live cross-check of the cheap depths (depth 3 from the start: tests/test_reference.py)."""
    position = Position.from_id(entry["position"])
    counts = (position.counts(WHITE), position.counts(BLACK), position.turn)
    checked = 2 if position == Position.initial() else 1
    for depth, expected in enumerate(entry["perft"][:checked], 1):
        assert reference.perft(*counts, depth, REFERENCE_RULES[entry["rules"]]) == expected, depth


def test_cached_derivation_is_the_reference_perft() -> None:
    _, white, black, turn = derive_perft.POSITIONS["MID2"]
    strict = derive_perft.RULES["strict"]
    assert derive_perft.perft_cached(white, black, turn, 1, strict) == reference.perft(white, black, turn, 1, strict)
    _, white, black, turn = derive_perft.POSITIONS["START"]  # transpositions start at depth 3
    default = derive_perft.RULES["default"]
    assert derive_perft.perft_cached(white, black, turn, 3, default) == reference.perft(white, black, turn, 3, default)


def test_perft_of_a_finished_game_is_one_leaf() -> None:
    done = Position.from_counts([15] + [0] * 24, [0] * 24 + [15], BLACK)
    assert perft(done, 3) == 1
