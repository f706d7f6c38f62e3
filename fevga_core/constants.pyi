"""The core's constants that the Python package shares (defined in types.pxd and game.pxd)."""

NUM_POINTS: int
NUM_CHECKERS: int
POSITION_WIDTH: int
GIOUL_WIDTH: int
NUM_ROLLS: int
FLAG_RELEASE_REACH: int
FLAG_QUARTER_END_OF_TURN: int
FLAG_BAN_PRIME: int
FLAG_MUST_OPEN_NO_PLAYABLE: int
FLAG_OPENING_DICE: int
FLAG_GIOUL: int
FEVGA_FLAGS: int
POLICY_IDS: dict[str, int]
POLICY_CALLBACK: int
