# Evaluation and move choice over the net, for both games (search.pyx; docs/net.md "Plies").
# StateC: a Fevga PositionC or a Gioul GioulC (state.pxd); values are for the side to decide.

from libc.stdint cimport int8_t
from fevga_core.types cimport PositionC, StateC, MoveC
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
# With `every_move`, a search of two plies or more values every move of the decision it is
# asked about (move list level 0) at 2 plies, not only the move filter's, and a deeper one
# then searches the filter of those 2-ply values (the best FILTER_TOP within FILTER_MARGIN) at
# its full depth; the deeper levels' choices keep the 1-ply filter.
ctypedef struct EvaluatorC:
    const NetC* net
    const QNetC* qnet
    const TablesC* tables
    int flags
    bint every_move

# A finished game's result or a covered race's table value for the side to decide of `s`
# into out (a Gioul state: only with its roll due and both sides' doubles chains, what its
# tables assume); False (out unspecified) for neither.
cdef bint exact_value(const EvaluatorC* ev, const StateC* s, double* out) noexcept nogil

# Value of `s` for its side to decide at 0 ply into out = (win, win_mars, lose_mars):
# exact_value (returns True: exact), else the net.
cdef bint static_value(const EvaluatorC* ev, const StateC* s, double* out) noexcept nogil

# Index of the move (of the n >= 1 legal moves of the decision of `s`) that `plies`-ply
# search rates best for the mover (plies >= 1: 1 = the result's static value, 2 = its 1-ply
# value over the 21 replies for the filtered candidates); out = that move's value for the
# mover. Deeper levels use move lists level + 1 .. of `scratch` (it needs level + plies lists).
cdef int best_move(const EvaluatorC* ev, const StateC* s, const MoveC* moves, int n,
                     int plies, ScratchC* scratch, int level, double* out) except -1 nogil
# best_move, and with `values` (n x 3) and `used` (n) not NULL, every move's value for the
# mover and the plies it used (1, or `plies` for the searched candidates; at level 0 with
# ev.every_move: 2 for every move, `plies` for the candidates searched deeper): THE ranking of a
# decision's moves (hint, batch hints and the analyser's rankings are this).
cdef int rank_moves(const EvaluatorC* ev, const StateC* s, const MoveC* moves, int n, int plies,
                    ScratchC* scratch, int level, double* out, double* values, int8_t* used) except -1 nogil
# Play the decisions left in a Gioul roll (its blocks, dice handed over), each by the 1-ply
# choice of whoever decides (move list `level` of `scratch`); nothing for Fevga.
cdef int finish_roll(const EvaluatorC* ev, StateC* s, ScratchC* scratch, int level) except -1 nogil

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

# `plies`-ply value of `s` for its side to decide into out (0 = static_value); uses move
# lists level .. level + plies - 1 of `scratch`.
cdef int ply_value(const EvaluatorC* ev, const StateC* s, int plies, ScratchC* scratch,
                   int level, double* out) except -1 nogil

cdef inline void flip(const double* theirs, double* mine) noexcept nogil:
    """The other side's view of a value: win and loss swap, and so do the mars terms."""
    cdef double win = theirs[0], win_mars = theirs[1], lose_mars = theirs[2]
    mine[0] = 1.0 - win
    mine[1] = lose_mars
    mine[2] = win_mars
