# Seeded randomness, move-choice policies and the game loop.

from fevga_core.types cimport PositionC, MoveC, uint8_t, uint32_t, uint64_t, int32_t
from fevga_core.movegen cimport WorkspaceC

# xoshiro256** state (Blackman & Vigna); seeded through splitmix64 (rng_seed).
ctypedef struct RngC:
    uint64_t s[4]

cdef enum:
    POLICY_RANDOM = 0       # every distinct legal move equally likely
    POLICY_HEURISTIC = 1    # greedy: the move with the best heuristic_eval (first on ties)
    POLICY_CALLBACK = 2     # a Python callable chooses (slow path, takes the GIL)
    POLICY_BEAROFF = 3      # table-optimal in covered races, else heuristic (rollout.pyx)
    POLICY_LOOKAHEAD = 4    # 1-ply expectimax over the rollout evaluator (rollout.pyx)

cdef enum:
    OUTCOME_DRAW = -1       # a dead position (RULES.md §8)

# One ply of a game record: who moved, the dice, and the chosen move's steps.
ctypedef struct PlyC:
    uint8_t turn
    uint8_t dice[2]
    uint8_t nsteps
    uint8_t steps[4][2]

# Result of one game: winner (0/1) or OUTCOME_DRAW, points (0, 1 or 2), plies played.
ctypedef struct GameResultC:
    int winner
    int points
    int plies

cdef void rng_seed(RngC* rng, uint64_t seed) noexcept nogil
cdef uint64_t rng_next(RngC* rng) noexcept nogil
cdef uint32_t rng_below(RngC* rng, uint32_t n) noexcept nogil
cdef uint64_t game_seed(uint64_t master, uint64_t index) noexcept nogil
cdef void roll_dice(RngC* rng, int* d1, int* d2) noexcept nogil
cdef double heuristic_eval(const PositionC* pos, int color) noexcept nogil
cdef int choose_move(const PositionC* pos, const MoveC* moves, int n, int policy, RngC* rng) noexcept nogil
