"""Move-choice policies shared by self-play (fevga.game) and rollouts (fevga.rollout).

A policy is a name of a built-in policy, run entirely in the core ("random", "heuristic",
"bearoff", "lookahead", "net": the move whose result the net rates best, "net2": a 2-ply
search over the net with gnubg-style move filtering), or any callable
``policy(position, dice, moves) -> Move`` (the slow path: it runs in Python).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Union

from fevga.errors import IllegalMoveError, InvalidArgumentError
from fevga.position import Move, Position
from fevga.rules import Rules
from fevga_core import constants

PolicyFn = Callable[[Position, tuple[int, int], Sequence[Move]], Move]
Policy = Union[str, PolicyFn]

# Core ids of the built-in policies (defined once, in fevga_core/game.pxd POLICY_*).
POLICY_IDS: dict[str, int] = dict(constants.POLICY_IDS)
CALLBACK_ID = constants.POLICY_CALLBACK
NET_POLICIES = ("net", "net2")  # these play with the neural evaluator (fevga.net)
TABLE_POLICIES = ("bearoff", "lookahead", *NET_POLICIES)  # these consult the bear-off tables
GIOUL_POLICIES = ("random", "heuristic", *NET_POLICIES)  # what the core plays Gioul with (net ones: a Gioul net)
HEURISTIC_SCALE = 100.0  # heuristic units per tanh unit of the static evaluator (docs/rollout.md)


def policy_id(policy: Policy) -> int:
    """The core's id of a policy (callables share one id: they run through Python)."""
    if callable(policy):
        return CALLBACK_ID
    if isinstance(policy, str) and policy in POLICY_IDS:
        return POLICY_IDS[policy]
    raise InvalidArgumentError(f"policy {repr(policy)[:80]} must be one of {sorted(POLICY_IDS)} or a callable")


def policy_pair(policy: Policy | tuple[Policy, Policy]) -> tuple[Policy, Policy]:
    """(white, black) policies of one policy for both sides or of a pair of them."""
    if isinstance(policy, tuple):
        if len(policy) != 2:
            raise InvalidArgumentError(f"policy pair {repr(policy)[:80]} must be (white_policy, black_policy)")
        pair = policy
    else:
        pair = (policy, policy)
    for one in pair:  # each a name or a callable, before anything compares it with a name
        policy_id(one)
    return pair


def uses_net(policies: Sequence[Policy]) -> bool:
    """True when one of the policies plays with the neural evaluator."""
    return any(isinstance(p, str) and p in NET_POLICIES for p in policies)


def policy_name(policy: Policy) -> str:
    """A readable name: the built-in name or the callable's __name__."""
    return policy if isinstance(policy, str) else getattr(policy, "__name__", repr(policy))


def chooser(policies: Sequence[Policy], rules: Rules) -> Callable[[bytes, int, int], int] | None:
    """The core's callback for callable policies (indexed by colour), or None if there are none.

    The callback gets a flat position row and the dice and returns the index of the chosen
    move in the generator's order.
    """
    if not any(callable(p) for p in policies):
        return None

    def choose(row: bytes, d1: int, d2: int) -> int:
        position: Position = Position._from_row(row)
        moves = position.legal_moves((d1, d2), rules)
        chosen = policies[position.turn](position, (d1, d2), moves)  # type: ignore[operator]
        for index, move in enumerate(moves):
            if move.position == getattr(chosen, "position", None):
                return index
        raise IllegalMoveError(f"policy returned {chosen!r}, not one of the legal moves in {position.id}")

    return choose
