"""The game and its rule options (docs/rules.md), as one frozen value passed to every
rules-aware call.

`game` selects Fevga (the default) or its sister game Gioul. The other five fields are
Fevga's variant options; Gioul has no mother rule and no prime rule, so only
`first_roll` applies to it and the others must keep their default values.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal

from fevga.errors import InvalidRulesError

Release = Literal["pass", "reach"]
FirstRoll = Literal["fresh", "opening_dice"]
Timing = Literal["each_die", "end_of_turn"]
MustOpen = Literal["fifteen_behind", "no_playable_roll"]
Game = Literal["fevga", "gioul"]

# Bits of the packed flags word the core reads (defined once, in fevga_core/types.pxd).
from fevga_core.constants import FLAG_BAN_PRIME as FLAG_BAN_PRIME
from fevga_core.constants import FLAG_GIOUL as FLAG_GIOUL
from fevga_core.constants import FLAG_MUST_OPEN_NO_PLAYABLE as FLAG_MUST_OPEN_NO_PLAYABLE
from fevga_core.constants import FLAG_OPENING_DICE as FLAG_OPENING_DICE
from fevga_core.constants import FLAG_QUARTER_END_OF_TURN as FLAG_QUARTER_END_OF_TURN
from fevga_core.constants import FLAG_RELEASE_REACH as FLAG_RELEASE_REACH

# Options that only Fevga has (Gioul has no mother rule and no six-prime rule).
FEVGA_ONLY = ("release", "start_quarter_check", "ban_prime_before_opponent_mother", "must_open")

_CHOICES: dict[str, tuple[object, ...]] = {
    "game": ("fevga", "gioul"),
    "release": ("pass", "reach"),
    "first_roll": ("fresh", "opening_dice"),
    "start_quarter_check": ("each_die", "end_of_turn"),
    "ban_prime_before_opponent_mother": (False, True),
    "must_open": ("fifteen_behind", "no_playable_roll"),
}


@dataclass(frozen=True)
class Rules:
    """The game and its variant options (docs/rules.md); `Rules()` are Fevga's default rules.

    >>> Rules(release="reach").release
    'reach'
    >>> Rules.gioul() == Rules(game="gioul")
    True
    """

    release: Release = "pass"
    first_roll: FirstRoll = "fresh"
    start_quarter_check: Timing = "each_die"
    ban_prime_before_opponent_mother: bool = False
    must_open: MustOpen = "fifteen_behind"
    game: Game = "fevga"

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            allowed = _CHOICES[f.name]
            if not any(value is a or (type(value) is type(a) and value == a) for a in allowed):
                raise InvalidRulesError(
                    f"rule option {f.name}={value!r} is not one of {', '.join(map(repr, allowed))}"
                )
        if self.game == "gioul":
            for name in FEVGA_ONLY:
                if getattr(self, name) != _DEFAULTS[name]:
                    raise InvalidRulesError(
                        f"rule option {name}={getattr(self, name)!r} is a Fevga option; Gioul has no mother "
                        "rule and no prime rule, so only first_roll applies to it (docs/rules.md, Gioul)"
                    )

    @classmethod
    def strict(cls) -> Rules:
        """The `strict` preset (seeds 002/003): reach releases, no prime before the
        opponent's mother, and never leave the opponent without a playable roll."""
        return cls(release="reach", ban_prime_before_opponent_mother=True, must_open="no_playable_roll")

    @classmethod
    def gioul(cls, first_roll: FirstRoll = "fresh") -> Rules:
        """The rules of Gioul, Fevga's sister game (docs/rules.md, Gioul)."""
        return cls(game="gioul", first_roll=first_roll)

    @classmethod
    def named(cls, name: str) -> Rules:
        """The preset called `name`: "default", "strict" or "gioul"."""
        if name == "default":
            return cls()
        if name == "strict":
            return cls.strict()
        if name == "gioul":
            return cls.gioul()
        raise InvalidRulesError(f"unknown rules preset {name!r}; expected 'default', 'strict' or 'gioul'")

    @property
    def flags(self) -> int:
        """The options packed into the bit word the core reads."""
        return (
            (FLAG_RELEASE_REACH if self.release == "reach" else 0)
            | (FLAG_QUARTER_END_OF_TURN if self.start_quarter_check == "end_of_turn" else 0)
            | (FLAG_BAN_PRIME if self.ban_prime_before_opponent_mother else 0)
            | (FLAG_MUST_OPEN_NO_PLAYABLE if self.must_open == "no_playable_roll" else 0)
            | (FLAG_OPENING_DICE if self.first_roll == "opening_dice" else 0)
            | (FLAG_GIOUL if self.game == "gioul" else 0)
        )

    def to_dict(self) -> dict[str, object]:
        """The options as a JSON-ready dict: Fevga's five options, or for Gioul its game and
        its one option; ``Rules(**r.to_dict()) == r``."""
        if self.game == "gioul":
            return {"game": "gioul", "first_roll": self.first_roll}
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "game"}


_DEFAULTS: dict[str, object] = {f.name: f.default for f in fields(Rules)}
DEFAULT_RULES = Rules()
GIOUL_RULES = Rules.gioul()


def rules_of(rules: object, game: Game = "fevga") -> Rules:
    """`rules` itself, or the default rules of `game` for None; InvalidRulesError for
    anything else, and for the rules of the other game."""
    if rules is None:
        return DEFAULT_RULES if game == "fevga" else GIOUL_RULES
    if isinstance(rules, Rules):
        if rules.game != game:
            hint = "fevga.GioulPosition (--game gioul)" if rules.game == "gioul" else "fevga.Position"
            raise InvalidRulesError(f"rules {rules!r} are the rules of {rules.game.capitalize()}; use them with {hint}")
        return rules
    raise InvalidRulesError(f"rules {rules!r} must be a fevga.Rules (e.g. Rules.strict()) or None")
