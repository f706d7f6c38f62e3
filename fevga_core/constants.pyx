# The core's constants that the Python package shares, exported once: types.pxd and game.pxd
# define them, fevga imports them from here (no Python copies that could drift).

from fevga_core cimport types, game

NUM_POINTS = types.NUM_POINTS            # points of the board, each side's own 1..24
NUM_CHECKERS = types.NUM_CHECKERS        # checkers of a side
POSITION_WIDTH = types.POSITION_WIDTH    # bytes of a position row (board.pyx draws the layout)
GIOUL_WIDTH = types.GIOUL_WIDTH          # bytes of a Gioul state row (state.pyx draws the layout)
NUM_ROLLS = types.NUM_ROLLS              # distinct rolls (fevga_core.board.ROLLS)

# Bits of the rule flags word every core entry point takes (fevga.rules.Rules.flags packs it).
FLAG_RELEASE_REACH = types.FLAG_RELEASE_REACH
FLAG_QUARTER_END_OF_TURN = types.FLAG_QUARTER_END_OF_TURN
FLAG_BAN_PRIME = types.FLAG_BAN_PRIME
FLAG_MUST_OPEN_NO_PLAYABLE = types.FLAG_MUST_OPEN_NO_PLAYABLE
FLAG_OPENING_DICE = types.FLAG_OPENING_DICE
FLAG_GIOUL = types.FLAG_GIOUL
FEVGA_FLAGS = types.FEVGA_FLAGS          # every bit a Fevga position's rules may set

# Ids of the core's move-choice policies (game.pxd POLICY_*): the built-in ones by name, and
# the id under which a Python callable chooses.
POLICY_IDS = {
    "random": game.POLICY_RANDOM,
    "heuristic": game.POLICY_HEURISTIC,
    "bearoff": game.POLICY_BEAROFF,
    "lookahead": game.POLICY_LOOKAHEAD,
    "net": game.POLICY_NET,
    "net2": game.POLICY_NET2,
}
POLICY_CALLBACK = game.POLICY_CALLBACK
