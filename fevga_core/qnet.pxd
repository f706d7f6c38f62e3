# The quantised, incremental evaluator: the float net (net.pxd) in integers, for fast play
# (qnet.pyx documents the tables, the scales and the bounds; docs/net.md "Quantised inference").

from libc.stdint cimport int16_t
from fevga_core.types cimport PositionC, SideC, MoveC, StateC, uint8_t, int32_t, int64_t
from fevga_core.net cimport NET_MAX_HIDDEN, NetModel, CoreNet
from fevga_core.gioul cimport CoreGioulNet

cdef enum:
    QNET_LANES = 128            # hidden units are padded to a multiple of this (kernel blocks)
    QNET_MAX_LANES = NET_MAX_HIDDEN
    QNET_MAX_ROWS = 96          # table rows one update adds or subtracts (qnet.pyx: at most 72)

# A quantised net over tables it does not own (QuantisedNet keeps them alive):
#   bias[lanes]                 round(S1 b1), int16
#   rows[rows][lanes]           the first-layer tables, int16 at scale S1 = 2^s1 (qnet.pyx;
#                               Fevga's rows, or Gioul's: Fevga's layout and the Gioul rows after it)
#   w2[3][lanes]                round(S2 w2), int16 at scale S2 = 2^s2
#   b2[3]                       the output biases (float, as in the float net)
ctypedef struct QNetC:
    int hidden                  # hidden units of the float net
    int lanes                   # hidden rounded up to QNET_LANES (padding lanes are 0)
    int s1
    int s2
    const int16_t* bias
    const int16_t* rows
    const int16_t* w2
    double b2[3]

# The features behind a side's own rows beyond its point counts (qnet.pyx own_features).
ctypedef struct OwnC:
    int off
    int run
    bint released
    bint bear

# The accumulator shared by the results of one position's moves (every result has the
# opponent on roll, with its checkers unchanged): bias + the opponent's own rows as side on
# roll + the mover's own rows before the move, as the other side + the contact row of the
# board before the move. A result's accumulator is this one plus the rows of the points,
# features and contact its move changes, and its relation rows (and, in Gioul, the result's
# roll counts and pending dice). `parent` is the board of the position.
ctypedef struct QParentC:
    PositionC parent
    OwnC before                 # the mover's own features before its move
    bint contact                # the board's contact input (a result's unless its move ends contact)
    uint8_t front[32]           # the opponent's points as the mover's relation inputs read them (x86-64:
    int front_limit             # qnet.pyx fevga_q_front)
    int16_t acc[QNET_MAX_LANES]

# Probabilities (win, win_mars, lose_mars) for the side on roll (Gioul: to decide) of `s`,
# with the tables of s's game.
cdef void qnet_evaluate(const QNetC* q, const StateC* s, double* out) noexcept nogil
# Prepare `shared` for the results of the moves of `parent`; then qnet_result gives the
# probabilities for the side on roll of `child`, the result of `move` when the opponent
# decides it, the same numbers as qnet_evaluate of that result, bit for bit.
cdef void qnet_parent(const QNetC* q, const StateC* parent, QParentC* shared) noexcept nogil
cdef void qnet_result(const QNetC* q, const QParentC* shared, const MoveC* move, const StateC* child,
                      double* out) noexcept nogil

# A Fevga net in int16 tables: a CoreNet (its float net, `c`, stays bound: hidden, the
# source), so every entry point that takes a Fevga net takes it; those that evaluate read
# net_quantised() and evaluate with `q` instead. Training it is refused (a snapshot).
cdef class QuantisedNet(CoreNet):
    cdef QNetC q
    cdef object _tables     # (bias, rows, w2): the int16 arrays q points into

# The same for a Gioul net: a CoreGioulNet, taken wherever a Gioul net is.
cdef class QuantisedGioulNet(CoreGioulNet):
    cdef QNetC q
    cdef object _tables

# The quantised tables of `net` when it is a QuantisedNet or QuantisedGioulNet, else NULL
# (a float net, None).
cdef const QNetC* net_quantised(NetModel net) noexcept
