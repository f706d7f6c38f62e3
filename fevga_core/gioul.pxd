# Gioul (docs/rules.md §11): the game state between decisions and its transitions.

from fevga_core.types cimport PositionC, MoveC, uint8_t, uint64_t
from fevga_core.movegen cimport WorkspaceC

# A Gioul game state (§11.5). `pos` is the board; pos.turn is the side that plays the
# pending decision, or, with no dice pending (count == 0), the side that rolls next.
# The dice still to play are: `count` dice of `die` (1-4), then four of each number
# die+1 .. last (later chain blocks; last == die when there are none); or, when `pair`
# is not 0, the two different dice `die` and `pair` of a non-double (count == 1).
ctypedef struct GioulC:
    PositionC pos
    uint8_t rolls[2]    # own rolls each side has made, counted up to 3 (3: next is roll 4+)
    uint8_t roller      # the side that rolled the pending dice (0 when none are pending)
    uint8_t die
    uint8_t count       # 0: no dice pending, a new roll is due
    uint8_t last
    uint8_t pair

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

cdef class CoreGioul:
    cdef GioulC c
