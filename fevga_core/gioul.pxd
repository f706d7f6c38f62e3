# Gioul (docs/rules.md §11): the game state between decisions and its transitions.

from fevga_core.types cimport PositionC, MoveC, GioulC, uint8_t, uint64_t
from fevga_core.movegen cimport WorkspaceC, ScratchC
from fevga_core.net cimport NetC, NetModel
from fevga_core.search cimport EvaluatorC

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

# A roll is due and every double of both sides is a chain: the states Gioul bear-off tables value.
cdef inline bint gioul_tables_apply(const GioulC* s) noexcept nogil:
    return s.count == 0 and s.rolls[0] >= 3 and s.rolls[1] >= 3

# Judgment over search.pyx's evaluator (ev: a Gioul net, Gioul tables, FLAG_GIOUL; gioul.pyx
# "Judgment" defines the plies). Values are (win, win_mars, lose_mars) for the side to decide.
cdef bint gioul_exact(const EvaluatorC* ev, const GioulC* s, double* out) noexcept nogil
# Index of the move of the pending decision of `s` (moves: its n >= 1 legal moves) that
# `plies`-ply search (1: "net", 2: "net2") rates best for the mover; out = its value for the
# mover. Deeper levels use move lists level + 1 .. level + plies - 1 of `scratch`.
cdef int gioul_choose(const EvaluatorC* ev, const GioulC* s, const MoveC* moves, int n, int plies,
                      ScratchC* scratch, int level, double* out) except -1 nogil
# `plies`-ply value of `s` for its side to decide (0 = gioul_static); move lists level ..
# level + plies - 1 of `scratch`.
cdef int gioul_ply_value(const EvaluatorC* ev, const GioulC* s, int plies, ScratchC* scratch, int level,
                         double* out) except -1 nogil

cdef int gioul_row_problem(const uint8_t* row) noexcept nogil

# A Gioul net ("gioul-1" encoding, net.pyx) over a float32 parameter vector it keeps alive.
cdef class CoreGioulNet(NetModel):
    pass
