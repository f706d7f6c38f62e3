# Evaluation and move choice over the net (search.pyx; docs/net.md "Plies").

from fevga_core.types cimport PositionC, MoveC
from fevga_core.movegen cimport ScratchC
from fevga_core.net cimport NetC
from fevga_core.qnet cimport QNetC
from fevga_core.race cimport TablesC

cdef enum:
    MAX_PLIES = 3           # deepest evaluate(); a move choice searches one ply more
    SIGNAL_INTERVAL = 1 << 14   # generator calls of a search between two Ctrl-C checks
    FILTER_TOP = 6          # candidates a deeper search keeps (within FILTER_MARGIN of the best)

# What an evaluation consults: the net, the bear-off tables that override it, the rules.
# With `qnet` (not NULL) the net is evaluated in its quantised tables (qnet.pxd), the results
# of a roll incrementally from the parent's accumulator; `net` is then the float net it came from.
ctypedef struct EvaluatorC:
    const NetC* net
    const QNetC* qnet
    const TablesC* tables
    int flags

# A finished game's result or a covered race's table value for the side on roll of `pos` into
# out; False (out unspecified) for neither.
cdef bint exact_value(const EvaluatorC* ev, const PositionC* pos, double* out) noexcept nogil

# Value of `pos` for its side on roll at 0 ply into out = (win, win_mars, lose_mars):
# final for a finished game, the tables for a covered race (returns True: exact), else the net.
cdef bint static_value(const EvaluatorC* ev, const PositionC* pos, double* out) noexcept nogil

# Index of the move that `plies`-ply search rates best for the mover (plies >= 1: 1 = the
# result's static value, 2 = its 1-ply value over the 21 replies for the filtered
# candidates); out = that move's result for the mover. Deeper levels use move lists
# level + 1 .. of `scratch` (it needs level + plies lists).
cdef int choose_move_net(const EvaluatorC* ev, const PositionC* pos, const MoveC* moves, int n,
                         int plies, ScratchC* scratch, int level, double* out) except -1 nogil

# The move filter of a deeper search: the up to FILTER_TOP indices of the highest of the n
# equities within FILTER_MARGIN of the best, best first (earlier index first on ties) into
# keep; returns how many.
cdef int filter_moves(const double* equities, int n, int* keep) noexcept nogil

# THE loop over the 21 rolls of an expectation (the net's plies below; rollout.pyx's
# expectimax, luck of both games and lookahead policy): out[0..width), width <= 3, = sum over
# the rolls r of ROLL_WEIGHT[r] * value_r, where roll_value(ctx, pos, r, moves, n, scratch,
# level, value_r) makes value_r (width doubles) of the roll's n legal moves, generated into
# move list `level` of `scratch` (deeper lists are the callee's). With FLAG_GIOUL in `flags`
# the moves are those of the roll's first Gioul decision (a pair larger die first, as
# gioul_begin_roll orders it; a double's first block of four). With `dead_is_draw`, returns
# 1 (out unspecified) when `pos` is dead, no side can ever move: a draw; else (and always
# without it: every roll's pass is valued) 0. Ctrl-C is checked every SIGNAL_INTERVAL
# generator calls counted in scratch.calls.
ctypedef int (*RollValueFn)(const void* ctx, const PositionC* pos, int roll, const MoveC* moves, int n,
                            ScratchC* scratch, int level, double* value) except -1 nogil
cdef int roll_expectation(const PositionC* pos, int flags, bint dead_is_draw, ScratchC* scratch, int level,
                          int width, RollValueFn roll_value, const void* ctx, double* out) except -1 nogil
# The luck's values (both games, rollouts and analysis): roll_expectation of one value per roll
# (every roll's pass valued), each roll's value kept in values[21] and their mean in mean[0].
cdef int luck_values(const PositionC* pos, int flags, ScratchC* scratch, int level, RollValueFn roll_value,
                     const void* ctx, double* values, double* mean) except -1 nogil

# `plies`-ply value of `pos` for its side on roll into out (0 = static_value); uses move
# lists level .. level + plies - 1 of `scratch`.
cdef int ply_value(const EvaluatorC* ev, const PositionC* pos, int plies, ScratchC* scratch,
                   int level, double* out) except -1 nogil

cdef inline void flip(const double* theirs, double* mine) noexcept nogil:
    """The other side's view of a value: win and loss swap, and so do the mars terms."""
    cdef double win = theirs[0], win_mars = theirs[1], lose_mars = theirs[2]
    mine[0] = 1.0 - win
    mine[1] = lose_mars
    mine[2] = win_mars
