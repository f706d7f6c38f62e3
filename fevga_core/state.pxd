# A game state of either game and its transitions (state.pyx): Fevga's is a PositionC (one
# decision a roll), Gioul's a GioulC (types.pxd: the board plus the dice still to play). The
# search, the playouts and the batch kernels are written once over StateC with these hooks,
# specialised at compile time (`if StateC is PositionC`).

from fevga_core.types cimport PositionC, MoveC, GioulC, StateC, uint8_t, uint64_t
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

# Gioul rows (layout in state.pyx): load and store are trusted, so check a row first
# (gioul_row_problem: 0, a board problem 1-4 of board.row_problem, or a GIOUL_* code).
cdef void gioul_load(GioulC* s, const uint8_t* row) noexcept nogil
cdef void gioul_store(const GioulC* s, uint8_t* row) noexcept nogil
cdef int gioul_row_problem(const uint8_t* row) noexcept nogil
# What is wrong with a Gioul row whose gioul_row_problem() is `code` (a message fragment).
cdef str gioul_row_text(const uint8_t* row, int code)
cdef enum:
    GIOUL_BAD_ROLLS = 5         # a roll count field above 3
    GIOUL_STRAY_FIELDS = 6      # roller / die / last / pair set without pending dice
    GIOUL_BAD_ROLLER = 7
    GIOUL_BAD_DICE = 8          # die, count, last, pair are not the rest of a roll
    GIOUL_NO_ROLL = 9           # the roller has made no roll
    GIOUL_EARLY_CHAIN = 10      # a chain pending before the roller's fourth roll
    GIOUL_FINISHED = 11         # pending dice in a finished game
    GIOUL_UNPLAYABLE = 12       # the side on turn cannot start the pending dice

# What generate_batch calls after pair i's `count` moves are generated (into `moves`, in
# generator order) and stored at flat rows first .. first + count - 1, GIL released: `pos`
# is the board they are played on, `state` the Gioul state whose decision they play (NULL
# for Fevga). A subclass overrides moves_made (search.pyx's rank_batch ranks the moves there).
cdef class BatchHook:
    cdef int moves_made(self, Py_ssize_t pair, const PositionC* pos, const GioulC* state, const MoveC* moves,
                        int count, Py_ssize_t first) except -1 nogil

# Perft of either game (docs/rules.md "Perft"): the leaves of the decision tree below `s` to
# `depth`, over move lists moves .. moves + (depth - 1) * MAX_MOVES; -1 with an exception set
# (Ctrl-C, checked every PERFT_SIGNAL_INTERVAL generator calls, or a generator overflow).
ctypedef struct PerftC:
    int flags
    WorkspaceC* ws
    unsigned long long calls    # generator calls so far
cdef enum:
    PERFT_SIGNAL_INTERVAL = 1 << 14
cdef long long perft(const StateC* s, int depth, PerftC* run, MoveC* moves) except -1 nogil

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
