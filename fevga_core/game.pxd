# Seeded randomness and move-choice policies (the game loop itself is in rollout.pyx).

from fevga_core.types cimport PositionC, MoveC, uint8_t, uint32_t, uint64_t, int32_t

# xoshiro256** state (Blackman & Vigna); seeded through splitmix64 (rng_seed).
ctypedef struct RngC:
    uint64_t s[4]

cdef enum:
    POLICY_RANDOM = 0       # every distinct legal move equally likely
    POLICY_HEURISTIC = 1    # greedy: the move with the best heuristic_eval (first on ties)
    POLICY_CALLBACK = 2     # a Python callable chooses (slow path, takes the GIL)
    POLICY_BEAROFF = 3      # table-optimal in covered races, else heuristic (rollout.pyx)
    POLICY_LOOKAHEAD = 4    # 1-ply expectimax over the rollout evaluator (rollout.pyx)
    POLICY_NET = 5          # the result the net rates best (search.pyx best_move, 1 ply)
    POLICY_NET2 = 6         # 2-ply search over the net with move filtering

cdef void rng_seed(RngC* rng, uint64_t seed) noexcept nogil
cdef uint64_t rng_next(RngC* rng) noexcept nogil
cdef uint32_t rng_below(RngC* rng, uint32_t n) noexcept nogil
cdef uint64_t game_seed(uint64_t master, uint64_t index) noexcept nogil
cdef void roll_dice(RngC* rng, int* d1, int* d2) noexcept nogil
cdef double heuristic_eval(const PositionC* pos, int color) noexcept nogil
cdef int opening_draw(RngC* rng, int* white_die, int* black_die) noexcept nogil
cdef int choose_move(const PositionC* pos, const MoveC* moves, int n, int policy, RngC* rng) noexcept nogil
