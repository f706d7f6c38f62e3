# The neural evaluator: Fevga input encoding, forward pass and one SGD step (net.pyx
# documents the encoding; docs/net.md the design and the training recipe).

from libc.math cimport exp

from fevga_core.types cimport PositionC, SideC, GioulC, StateC, uint8_t

cdef enum:
    NET_SIDE_INPUTS = 107       # inputs per side (net.pyx layout)
    NET_INPUTS = 214            # side on roll, then the other side
    NET_OUTPUTS = 3             # P(win), P(win mars | win), P(lose mars | lose) as logits
    NET_MAX_HIDDEN = 512
    NET_MAX_ACTIVE = 214        # an encoding lists at most every input once (Gioul: at most 153 active)
    GIOUL_NET_SIDE_INPUTS = 108 # the Gioul encoding ("gioul-1", net.pyx): inputs per side
    GIOUL_NET_DICE = 216        # then the pending dice's 9 inputs
    GIOUL_NET_INPUTS = 225

# A net over a caller-owned flat float32 parameter vector of length net_param_count(hidden):
#   w1[NET_INPUTS][hidden]  (row i: the weights of input i)   offset 0
#   b1[hidden]                                                 offset NET_INPUTS * hidden
#   w2[NET_OUTPUTS][hidden]                                    offset (NET_INPUTS + 1) * hidden
#   b2[NET_OUTPUTS]                                            offset (NET_INPUTS + 4) * hidden
ctypedef struct NetC:
    int hidden
    float* params

# The Python entry points' loops over rows for either game and evaluator: `value` / `step`
# evaluate or train one row (a Fevga position row, a Gioul state row) that the caller has
# checked; `model` is the evaluator `value` expects (a NetC, qnet's QNetC).
ctypedef void (*RowValueF)(const void* model, const uint8_t* row, double* out) noexcept nogil
ctypedef double (*RowStepF)(NetC* net, const uint8_t* row, const double* target, float rate) noexcept nogil

# The Python-side owner of a NetC over a float32 parameter vector it keeps alive, with the
# row functions of its game: CoreNet (Fevga position rows, this module) and CoreGioulNet
# (Gioul state rows, gioul.pyx), two types so the core refuses one where the other is due.
cdef class NetModel:
    cdef NetC c
    cdef float[::1] _params
    cdef RowValueF value
    cdef RowStepF step

cdef class CoreNet(NetModel):
    pass

# Bind `model` to `params` (InvalidArgumentError unless they fit `hidden` units over `inputs`).
cdef int model_bind(NetModel model, float[::1] params, int hidden, int inputs, RowValueF value,
                    RowStepF step) except -1
# InvalidArgumentError unless `net` holds its parameters (made by its constructor, not __new__).
cdef int net_checked(NetModel net) except -1

# A sparse input vector: the non-zero inputs as (index, value) pairs.
ctypedef struct EncodingC:
    int n
    int index[NET_MAX_ACTIVE]
    float value[NET_MAX_ACTIVE]


cdef Py_ssize_t net_param_count(int hidden) noexcept nogil
# Parameters of a net of `hidden` units over `inputs` inputs (the layout above with NET_INPUTS -> inputs).
cdef Py_ssize_t net_size(int inputs, int hidden) noexcept nogil
# InvalidArgumentError unless targets (n, 3) are valid probabilities and rate a positive step.
cdef int check_targets(const double[:, ::1] targets, Py_ssize_t n, float rate) except -1

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

# acc[0..hidden) += first-layer contribution of the inputs in `enc`.
cdef void net_accumulate(const NetC* net, const EncodingC* enc, float* acc) noexcept nogil
# Both games (StateC: a Fevga position or a Gioul state; the side to move is the side on roll,
# in Gioul the side to decide). encode_inputs: all of the net's inputs. net_base: the side to
# move's half of the first layer (b1 + its own inputs), shared by every state where that side,
# unchanged, moves: all the results of one roll (Gioul: of one decision that leaves it to the
# opponent). net_finish: the outputs for the side to move (out = win, win_mars, lose_mars) from
# `base` = net_base of the same side; net_evaluate: the same from scratch.
cdef void encode_inputs(const StateC* s, EncodingC* enc) noexcept nogil
cdef void net_base(const NetC* net, const StateC* s, float* acc) noexcept nogil
cdef void net_finish(const NetC* net, const StateC* s, const float* base, double* out) noexcept nogil
cdef void net_evaluate(const NetC* net, const StateC* s, double* out) noexcept nogil
# One SGD step on the cross-entropy loss toward target = (win, win_mars, lose_mars); returns the loss.
cdef double net_train_step(NetC* net, const PositionC* pos, const double* target,
                           float rate) noexcept nogil
# The network itself for any encoding: a net over `inputs` inputs, from an encoding.
cdef void net_forward(const NetC* net, int inputs, const EncodingC* enc, double* out) noexcept nogil
cdef double net_sgd_step(NetC* net, int inputs, const EncodingC* enc, const double* target,
                         float rate) noexcept nogil
cdef object net_evaluate_loop(const void* model, const uint8_t[:, ::1] rows, RowValueF value)
cdef double net_train_loop(NetC* net, const uint8_t[:, ::1] rows, const double[:, ::1] targets, float rate,
                           RowStepF step) except? -1.0
cdef object encoding_dense(const EncodingC* enc, int inputs)

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
