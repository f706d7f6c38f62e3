# The neural evaluator: Fevga input encoding, forward pass and one SGD step (net.pyx
# documents the encoding; docs/net.md the design and the training recipe).

from libc.math cimport exp

from fevga_core.types cimport PositionC, SideC

cdef enum:
    NET_SIDE_INPUTS = 107       # inputs per side (net.pyx layout)
    NET_INPUTS = 214            # side on roll, then the other side
    NET_OUTPUTS = 3             # P(win), P(win mars | win), P(lose mars | lose) as logits
    NET_MAX_HIDDEN = 512
    NET_MAX_ACTIVE = 214        # an encoding lists at most every input once

# A net over a caller-owned flat float32 parameter vector of length net_param_count(hidden):
#   w1[NET_INPUTS][hidden]  (row i: the weights of input i)   offset 0
#   b1[hidden]                                                 offset NET_INPUTS * hidden
#   w2[NET_OUTPUTS][hidden]                                    offset (NET_INPUTS + 1) * hidden
#   b2[NET_OUTPUTS]                                            offset (NET_INPUTS + 4) * hidden
ctypedef struct NetC:
    int hidden
    float* params

# A sparse input vector: the non-zero inputs as (index, value) pairs.
ctypedef struct EncodingC:
    int n
    int index[NET_MAX_ACTIVE]
    float value[NET_MAX_ACTIVE]

# The Python-side owner of a NetC over a float32 parameter vector it keeps alive.
cdef class CoreNet:
    cdef NetC c
    cdef float[::1] _params

cdef Py_ssize_t net_param_count(int hidden) noexcept nogil

# The counts behind a side's relation inputs (net.pyx: 103-105): checkers trapped behind six
# points of the other side, blocked steps, escaped checkers.
ctypedef struct RelationC:
    int trapped
    int blocked
    int escaped

cdef void relation_counts(const SideC* side, const SideC* other, RelationC* out) noexcept nogil

cdef inline bint position_contact(const PositionC* pos) noexcept nogil:
    """Input 106 of both sides: 0 once both sides are on their own points 1-12 (a pure race)."""
    return (pos.side[0].mask & ~0xFFFu) != 0 or (pos.side[1].mask & ~0xFFFu) != 0

# Encodings: the inputs that depend on one side alone, and those relating it to the other.
cdef void encode_own(const SideC* side, int base, EncodingC* enc) noexcept nogil
cdef void encode_relation(const SideC* side, const SideC* other, bint contact, int base,
                          EncodingC* enc) noexcept nogil
cdef void encode_position(const PositionC* pos, EncodingC* enc) noexcept nogil

# acc[0..hidden) += first-layer contribution of the inputs in `enc`.
cdef void net_accumulate(const NetC* net, const EncodingC* enc, float* acc) noexcept nogil
# The side-on-roll half of a position's first layer (b1 + its own inputs): shared by every
# position with that side on roll and unchanged, such as all the results of one roll.
cdef void net_base(const NetC* net, const SideC* on_roll, float* acc) noexcept nogil
# Probabilities for the side on roll of `pos` (out = win, win_mars, lose_mars), from `base`
# = net_base of pos.side[pos.turn].
cdef void net_finish(const NetC* net, const PositionC* pos, const float* base,
                     double* out) noexcept nogil
cdef void net_evaluate(const NetC* net, const PositionC* pos, double* out) noexcept nogil
# One SGD step on the cross-entropy loss toward target = (win, win_mars, lose_mars); returns the loss.
cdef double net_train_step(NetC* net, const PositionC* pos, const double* target,
                           float rate) noexcept nogil

cdef inline double outputs_equity(const double* out) noexcept nogil:
    """Points expected by the side on roll: win 1, mars 2, no draws in the outputs."""
    return 2.0 * out[0] - 1.0 + out[1] - out[2]


cdef inline double sigmoid(double x) noexcept nogil:
    return 1.0 / (1.0 + exp(-x))


cdef inline void logit_probabilities(const double* logits, double* out) noexcept nogil:
    """The three output logits as (win, win_mars, lose_mars): valid probabilities by construction."""
    cdef double win = sigmoid(logits[0])
    out[0] = win
    out[1] = win * sigmoid(logits[1])
    out[2] = (1.0 - win) * sigmoid(logits[2])
