"""Rule options of RULES.md section 9, as one frozen value passed to every rules-aware call."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal

from fevga.errors import InvalidRulesError

Release = Literal["pass", "reach"]
FirstRoll = Literal["fresh", "opening_dice"]
Timing = Literal["each_die", "end_of_turn"]
MustOpen = Literal["fifteen_behind", "no_playable_roll"]

# Bits of the packed flags word the core reads (fevga_core/types.pxd mirrors these).
FLAG_RELEASE_REACH = 1
FLAG_QUARTER_END_OF_TURN = 2
FLAG_BAN_PRIME = 4
FLAG_MUST_OPEN_NO_PLAYABLE = 8
FLAG_OPENING_DICE = 16

_CHOICES: dict[str, tuple[object, ...]] = {
    "release": ("pass", "reach"),
    "first_roll": ("fresh", "opening_dice"),
    "start_quarter_check": ("each_die", "end_of_turn"),
    "ban_prime_before_opponent_mother": (False, True),
    "must_open": ("fifteen_behind", "no_playable_roll"),
}


@dataclass(frozen=True)
class Rules:
    """The variant options of RULES.md section 9; `Rules()` are the default rules.

    >>> Rules(release="reach").release
    'reach'
    """

    release: Release = "pass"
    first_roll: FirstRoll = "fresh"
    start_quarter_check: Timing = "each_die"
    ban_prime_before_opponent_mother: bool = False
    must_open: MustOpen = "fifteen_behind"

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            allowed = _CHOICES[f.name]
            if not any(value is a or (type(value) is type(a) and value == a) for a in allowed):
                raise InvalidRulesError(
                    f"rule option {f.name}={value!r} is not one of {', '.join(map(repr, allowed))}"
                )

    @classmethod
    def strict(cls) -> Rules:
        """The `strict` preset (seeds 002/003): reach releases, no prime before the
        opponent's mother, and never leave the opponent without a playable roll."""
        return cls(release="reach", ban_prime_before_opponent_mother=True, must_open="no_playable_roll")

    @classmethod
    def named(cls, name: str) -> Rules:
        """The preset called `name`: "default" or "strict"."""
        if name == "default":
            return cls()
        if name == "strict":
            return cls.strict()
        raise InvalidRulesError(f"unknown rules preset {name!r}; expected 'default' or 'strict'")

    @property
    def flags(self) -> int:
        """The options packed into the bit word the core reads."""
        return (
            (FLAG_RELEASE_REACH if self.release == "reach" else 0)
            | (FLAG_QUARTER_END_OF_TURN if self.start_quarter_check == "end_of_turn" else 0)
            | (FLAG_BAN_PRIME if self.ban_prime_before_opponent_mother else 0)
            | (FLAG_MUST_OPEN_NO_PLAYABLE if self.must_open == "no_playable_roll" else 0)
            | (FLAG_OPENING_DICE if self.first_roll == "opening_dice" else 0)
        )

    def to_dict(self) -> dict[str, object]:
        """The options as a JSON-ready dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


DEFAULT_RULES = Rules()


def rules_of(rules: object) -> Rules:
    """`rules` itself, or the default rules for None; InvalidRulesError for anything else."""
    if rules is None:
        return DEFAULT_RULES
    if isinstance(rules, Rules):
        return rules
    raise InvalidRulesError(f"rules {rules!r} must be a fevga.Rules (e.g. Rules.strict()) or None")
