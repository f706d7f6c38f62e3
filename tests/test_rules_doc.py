"""The examples of docs/rules.md, by the IDs and figures the page quotes (so the page
cannot drift from the engine)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fevga import BLACK, WHITE, GioulPosition, Position, Rules

DOC = (Path(__file__).parent.parent / "docs" / "rules.md").read_text(encoding="utf-8")


def notations(position: Position, dice: str, rules: Rules | None = None) -> list[str]:
    return [m.notation for m in position.legal_moves(dice, rules)]


def test_every_quoted_id_parses_as_its_game() -> None:
    ids = set(re.findall(r"`([A-Za-z0-9_-]{16}|[A-Za-z0-9_-]{20})`", DOC))
    assert len(ids) >= 6
    for text in ids:
        (GioulPosition if len(text) == 20 else Position).from_id(text)


def test_release_example() -> None:
    p = Position.from_id("f_4AQAAAAAH__AAA")
    assert notations(p, "2-1") == ["14/11"]
    assert sorted(notations(p, "2-1", Rules(release="reach"))) == ["14/11", "24/23 14/12"]


def test_start_quarter_example() -> None:
    p = Position.from_id("f9VADAD__AAAgAAA")
    default = notations(p, "6-5")
    late = notations(p, "6-5", Rules(start_quarter_check="end_of_turn"))
    assert len(default) == 24 and len(late) == 25 and set(late) - set(default) == {"24/13"}


def test_ban_prime_example() -> None:
    p = Position.from_id("fAAttoAAAAH__AAA")
    default = p.legal_moves("6-6")
    banned = p.legal_moves("6-6", Rules(ban_prime_before_opponent_mother=True))
    assert (len(default), len(banned)) == (155, 134)
    primed = {m.position for m in default if all(m.position.counts(WHITE)[k] for k in range(6, 12))}
    assert len(primed) == 21 and {m.position for m in banned} == {m.position for m in default} - primed
    assert {"24/6 12/6", "24/18(3) 12/6"} <= {m.notation for m in default if m.position in primed}
    assert "12/6 8/2(2) 7/1" in {m.notation for m in banned}


def test_no_playable_roll_example() -> None:
    p = Position.from_id("AA-bbYD__gAAAAAA")
    default = p.legal_moves("1-1")
    kept = p.legal_moves("1-1", Rules(must_open="no_playable_roll"))
    assert (len(default), len(kept)) == (70, 59)
    dropped = {m.notation for m in default} - {m.notation for m in kept}
    assert len(dropped) == 11 and {"8/6 7/5", "9/6 7/6", "10/6"} <= dropped
    for m in default:
        assert (m.notation in dropped) == (not m.position.can_move(BLACK))


def test_example_9_position() -> None:
    p = Position.from_id("cABttsD__gAAAAAA")
    assert not p.can_move(BLACK)
    assert notations(p, "6-5") == ["7/1 7/2", "8/2 8/3", "9/3 9/4", "10/4 10/5", "11/5 11/6"]


def test_gioul_vector_6_ids() -> None:
    p = GioulPosition.from_id("f_4AIAD__AABAAAA4ABH")
    (move,) = p.legal_moves("5-5")
    assert move.notation == "13/3" and move.position.id == "__4AAAj__AABAAAA5VhH"
    assert move.position.pending == (5, 5, 6, 6, 6, 6) and move.position.turn == BLACK


@pytest.mark.parametrize("option", ["release", "first_roll", "start_quarter_check",
                                    "ban_prime_before_opponent_mother", "must_open", "game"])
def test_every_option_has_a_section(option: str) -> None:
    assert f"### `{option}`" in DOC


def test_the_project_points_at_its_own_rules_page() -> None:
    """Users cannot read the brief's RULES.md: every reference goes to docs/rules.md."""
    root = Path(__file__).resolve().parent.parent
    files = [root / "README.md", *(root / "docs").glob("*.md"), *(root / "src").rglob("*.py"),
             *(root / "fevga_core").glob("*.py*")]
    assert len(files) > 40
    offenders = [str(p.relative_to(root)) for p in files if "RULES.md" in p.read_text(encoding="utf-8")]
    assert offenders == []
