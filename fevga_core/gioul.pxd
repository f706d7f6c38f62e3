# Gioul (docs/rules.md §11): the game state between decisions and its transitions.

from fevga_core.types cimport PositionC, MoveC, GioulC, uint8_t, uint64_t
from fevga_core.movegen cimport WorkspaceC
from fevga_core.game cimport RngC
from fevga_core.net cimport NetC, NetModel

# GioulC, the Gioul game state, is in types.pxd (the Gioul net's encoding reads it too).

cdef void gioul_initial(GioulC* s, int turn) noexcept nogil
cdef void gioul_begin_roll(GioulC* s, int d1, int d2) noexcept nogil
cdef int gioul_pending_moves(const GioulC* s, MoveC* out, WorkspaceC* ws) noexcept nogil
cdef int gioul_moves(const GioulC* s, int d1, int d2, MoveC* out, WorkspaceC* ws) noexcept nogil
cdef void gioul_apply(GioulC* s, const MoveC* move) noexcept nogil
cdef bint gioul_over(const GioulC* s) noexcept nogil
cdef uint64_t gioul_key(const GioulC* s) noexcept nogil
# A 58-byte Gioul row (layout in gioul.pyx) into a state: trusted, so check it first
# (first_invalid_row, gioul_row_problem).
cdef void _load(GioulC* s, const uint8_t* row) noexcept nogil
cdef void gioul_store(const GioulC* s, uint8_t* row) noexcept nogil

cdef class CoreGioul:
    cdef GioulC c

# Who plays a self-play game: each side's policy id (game.pxd POLICY_*: random, heuristic or
# net) and, for "net", its Gioul net; with `trail` (MAX_TRAIL states) the game's states are
# stored there: the start, then the state after each decision.
ctypedef struct GioulPlayC:
    int policy[2]
    const NetC* net[2]
    GioulC* trail

cdef enum:
    MAX_TRAIL = 8193        # MAX_RECORDED decisions (gioul.pyx) and the start

# A seeded game from the one-die draw (the starter rolls fresh dice) played by `play`;
# returns White's points (+-1, +-2; 0 for a dead position) or 100 past MAX_TRAIL - 1
# decisions; ndecisions = the decisions played.
cdef int gioul_play_trail(GioulC* s, RngC* rng, const GioulPlayC* play, MoveC* moves, WorkspaceC* ws,
                          int* ndecisions) noexcept nogil
cdef int gioul_row_problem(const uint8_t* row) noexcept nogil

# A Gioul net ("gioul-1" encoding, net.pyx) over a float32 parameter vector it keeps alive.
cdef class CoreGioulNet(NetModel):
    pass
