# A game state of either game and its transitions (state.pyx): Fevga's is a PositionC (one
# decision a roll), Gioul's a GioulC (types.pxd: the board plus the dice still to play). The
# search, the playouts and the batch kernels are written once over StateC with these hooks,
# specialised at compile time (`if StateC is PositionC`).

from fevga_core.types cimport PositionC, MoveC, GioulC, StateC, uint64_t
from fevga_core.board cimport position_winner
from fevga_core.movegen cimport WorkspaceC, apply_move

# Gioul (docs/rules.md §11.4-11.5).
cdef void gioul_initial(GioulC* s, int turn) noexcept nogil
cdef void gioul_begin_roll(GioulC* s, int d1, int d2) noexcept nogil
cdef int gioul_pending_moves(const GioulC* s, MoveC* out, WorkspaceC* ws) noexcept nogil
cdef int gioul_moves(const GioulC* s, int d1, int d2, MoveC* out, WorkspaceC* ws) noexcept nogil
cdef void gioul_apply(GioulC* s, const MoveC* move) noexcept nogil
cdef uint64_t gioul_key(const GioulC* s) noexcept nogil
# Can `color` play at least one die of the pending decision?
cdef bint gioul_can_start(const GioulC* s, int color) noexcept nogil

cdef inline bint gioul_over(const GioulC* s) noexcept nogil:
    return position_winner(&s.pos) >= 0

# A roll is due and every double of both sides is a chain: the states Gioul bear-off tables value.
cdef inline bint gioul_tables_apply(const GioulC* s) noexcept nogil:
    return s.count == 0 and s.rolls[0] >= 3 and s.rolls[1] >= 3

# Either game.
cdef inline const PositionC* state_board(const StateC* s) noexcept nogil:
    if StateC is PositionC:
        return s
    else:
        return &s.pos

cdef inline void state_apply(StateC* s, const MoveC* move) noexcept nogil:
    """Play `move` (one of the state's legal moves)."""
    if StateC is PositionC:
        apply_move(s, move)
    else:
        gioul_apply(s, move)
