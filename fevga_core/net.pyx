# The neural evaluator (design and training recipe: docs/net.md).
#
# Encoding: NET_INPUTS = 2 x NET_SIDE_INPUTS inputs, the side on roll first (base 0), the
# other side second (base NET_SIDE_INPUTS), each side in its OWN numbering, so a position
# and its colour-swapped twin have the same encoding. Per side, with n = checkers on a point:
#   own inputs (this side alone)
#     4 (p - 1) + 0..3   point p = 1..24: n >= 1, n >= 2, n >= 3, (n - 3) / 4 for n > 3
#     96   checkers off / 15
#     97   pips / 360 (the start)
#     98   checkers home (own points 1-6) / 15
#     99   released from the mother rule (a checker on own point 11 or lower, or off)
#     100  longest run of consecutive own points / 6 (primes)
#     101  checkers still in the first half (own points 13-24) / 15
#     102  bear-off allowed (every checker on the board at home)
#   relation inputs (this side against the other)
#     103  trapped checkers: on a point whose six points in front all hold the other side / 15
#     104  blocked steps: sum over checkers of the other side's points among the six in
#          front of it / 90
#     105  escaped checkers: behind none of the other side's checkers (heuristic's sense) / 15
#     106  contact (1 unless both sides are on their own points 1-12: a pure race)
# Network: one hidden layer of `hidden` ReLU units, three sigmoid outputs
#   s0 = P(win), s1 = P(mars | win), s2 = P(mars | lose), all for the side on roll;
#   win = s0, win_mars = s0 s1, lose_mars = (1 - s0) s2: valid probabilities by construction.
# Loss (net_train_step): cross-entropy of s0 to the win target, of s1 to the conditional
# target weighted by the win target, of s2 likewise by the loss target; its gradient with
# respect to the logits is (s0 - t0, t0 s1 - t1, (1 - t0) s2 - t2).

from libc.math cimport log
from libc.string cimport memcpy

import numpy as np

from fevga_core.types cimport (
    PositionC, SideC, GioulC, StateC, uint8_t, uint32_t, NUM_CHECKERS, POSITION_WIDTH,
)
from fevga_core.board cimport (
    position_load, position_load_checked, rows_checked, side_pips, rotate12, longest_run, check_interrupt_every,
    __builtin_ctz,
)

from fevga_core.errors import InvalidArgumentError

# The two dense kernels in C, so that `restrict` lets the compiler vectorise them. Sums are
# split into 8 fixed lanes (GCC/Clang vector extensions) added in a fixed order: the same
# result on every run and machine.
cdef extern from *:
    """
    typedef float fevga_v4 __attribute__((vector_size(16)));
    static inline fevga_v4 fevga_load4(const float* p) { fevga_v4 v; __builtin_memcpy(&v, p, 16); return v; }
    static inline float fevga_sum8(fevga_v4 a, fevga_v4 b) {
        return ((a[0] + a[1]) + (a[2] + a[3])) + ((b[0] + b[1]) + (b[2] + b[3]));
    }
    /* acc[j] += sum over k of val[k] * w[idx[k] * h + j], added in k order for each j:
       32 accumulators stay in registers while every row streams past. */
    static inline void fevga_accumulate(float* __restrict acc, const float* __restrict w, const int* idx,
                                        const float* val, int n, int h) {
        int j = 0, k;
        for (; j + 32 <= h; j += 32) {
            fevga_v4 a[8];
            int l;
            for (l = 0; l < 8; l++) a[l] = fevga_load4(acc + j + 4 * l);
            for (k = 0; k < n; k++) {
                const float* r = w + (long)idx[k] * h + j;
                float x = val[k];
                if (x == 1.0f) {
                    for (l = 0; l < 8; l++) a[l] += fevga_load4(r + 4 * l);
                } else {
                    fevga_v4 xv = {x, x, x, x};
                    for (l = 0; l < 8; l++) a[l] += xv * fevga_load4(r + 4 * l);
                }
            }
            for (l = 0; l < 8; l++) __builtin_memcpy(acc + j + 4 * l, &a[l], 16);
        }
        for (; j < h; j++) {
            float s = acc[j];
            for (k = 0; k < n; k++) s += val[k] * w[(long)idx[k] * h + j];
            acc[j] = s;
        }
    }
    static inline void fevga_relu_dot3(float* __restrict a, const float* __restrict w, int h, float* out) {
        fevga_v4 s0a = {0}, s0b = {0}, s1a = {0}, s1b = {0}, s2a = {0}, s2b = {0}, x, y;
        float t0 = 0.0f, t1 = 0.0f, t2 = 0.0f;
        int j;
        for (j = 0; j < h; j++) a[j] = a[j] > 0.0f ? a[j] : 0.0f;
        for (j = 0; j + 8 <= h; j += 8) {
            x = fevga_load4(a + j);
            y = fevga_load4(a + j + 4);
            s0a += fevga_load4(w + j) * x;          s0b += fevga_load4(w + j + 4) * y;
            s1a += fevga_load4(w + h + j) * x;      s1b += fevga_load4(w + h + j + 4) * y;
            s2a += fevga_load4(w + 2 * h + j) * x;  s2b += fevga_load4(w + 2 * h + j + 4) * y;
        }
        for (; j < h; j++) {
            t0 += w[j] * a[j];
            t1 += w[h + j] * a[j];
            t2 += w[2 * h + j] * a[j];
        }
        out[0] = fevga_sum8(s0a, s0b) + t0;
        out[1] = fevga_sum8(s1a, s1b) + t1;
        out[2] = fevga_sum8(s2a, s2b) + t2;
    }
    """
    void fevga_accumulate(float* acc, const float* w, const int* idx, const float* val, int n, int h) noexcept nogil
    void fevga_relu_dot3(float* a, const float* w, int h, float* out) noexcept nogil

SIDE_INPUTS = NET_SIDE_INPUTS
INPUTS = NET_INPUTS
OUTPUTS = NET_OUTPUTS
MAX_HIDDEN = NET_MAX_HIDDEN


GIOUL_SIDE_INPUTS = GIOUL_NET_SIDE_INPUTS
GIOUL_INPUTS = GIOUL_NET_INPUTS


cdef Py_ssize_t net_size(int inputs, int hidden) noexcept nogil:
    return (inputs + 1 + NET_OUTPUTS) * <Py_ssize_t> hidden + NET_OUTPUTS


cdef Py_ssize_t net_param_count(int hidden) noexcept nogil:
    return net_size(NET_INPUTS, hidden)


def param_count(int hidden, int inputs=NET_INPUTS):
    """Length of the flat parameter vector of a net with `hidden` hidden units (over Fevga's inputs by default)."""
    return net_size(inputs, hidden)


cdef inline void _push(EncodingC* enc, int index, float value) noexcept nogil:
    enc.index[enc.n] = index
    enc.value[enc.n] = value
    enc.n += 1


cdef void _encode_points(const SideC* side, int base, EncodingC* enc, int* home, int* back) noexcept nogil:
    """Inputs base + 0..95 (four per point), 96 (off) and 97 (pips) of both games, and the
    checkers home and still in the first half."""
    cdef int p, n, index
    home[0] = 0
    back[0] = 0
    for p in range(1, 25):
        n = side.counts[p]
        if n == 0:
            continue
        index = base + 4 * (p - 1)
        _push(enc, index, 1.0)
        if n >= 2:
            _push(enc, index + 1, 1.0)
        if n >= 3:
            _push(enc, index + 2, 1.0)
        if n > 3:
            _push(enc, index + 3, (n - 3) * 0.25)
        if p <= 6:
            home[0] += n
        elif p >= 13:
            back[0] += n
    if side.counts[0]:
        _push(enc, base + 96, side.counts[0] / 15.0)
    if side.mask:
        _push(enc, base + 97, side_pips(side) / 360.0)


cdef void encode_own(const SideC* side, int base, EncodingC* enc) noexcept nogil:
    cdef int home, back
    _encode_points(side, base, enc, &home, &back)
    if home:
        _push(enc, base + 98, home / 15.0)
    if side.counts[0] or (side.mask & 0x7FF):
        _push(enc, base + 99, 1.0)
    if side.mask:
        _push(enc, base + 100, longest_run(side.mask) / 6.0)
    if back:
        _push(enc, base + 101, back / 15.0)
    if (side.mask >> 6) == 0:
        _push(enc, base + 102, 1.0)


# POP6[w]: points held among a six-point window w (a popcount is a libgcc call on baseline x86-64).
cdef uint8_t POP6[64]
POP6[:] = [bin(w).count("1") for w in range(64)]


cdef void relation_counts(const SideC* side, const SideC* other, RelationC* out) noexcept nogil:
    cdef uint32_t theirs = rotate12(other.mask)     # the other side's points, in this numbering
    cdef uint32_t occupied = side.mask
    cdef int p, n, lowest, front, trapped = 0, blocked = 0, escaped = 0
    lowest = __builtin_ctz(theirs) + 1 if theirs else 25
    while occupied:
        p = __builtin_ctz(occupied) + 1
        occupied &= occupied - 1
        n = side.counts[p]
        # own points p-6 .. p-1 (those that exist) in front of this checker: bits p-7 .. p-2
        front = POP6[((theirs << 6) >> (p - 1)) & 0x3F]
        blocked += n * front
        if p > 6 and front == 6:
            trapped += n
        if p < lowest:
            escaped += n
    out.trapped = trapped
    out.blocked = blocked
    out.escaped = escaped


cdef inline void _push_relation(EncodingC* enc, int first, const RelationC* rel, bint contact) noexcept nogil:
    """The four relation inputs of one side in both games' nets, at first .. first + 3:
    trapped, blocked, escaped (relation_counts) and contact."""
    if rel.trapped:
        _push(enc, first, rel.trapped / 15.0)
    if rel.blocked:
        _push(enc, first + 1, rel.blocked / 90.0)
    if rel.escaped:
        _push(enc, first + 2, rel.escaped / 15.0)
    if contact:
        _push(enc, first + 3, 1.0)


cdef void encode_relation(const SideC* side, const SideC* other, bint contact, int base,
                          EncodingC* enc) noexcept nogil:
    cdef RelationC rel
    relation_counts(side, other, &rel)
    _push_relation(enc, base + 103, &rel, contact)


cdef inline void _encode_rest(const PositionC* pos, EncodingC* enc) noexcept nogil:
    """Everything but the side on roll's own inputs (encode_own at base 0)."""
    cdef const SideC* me = &pos.side[pos.turn]
    cdef const SideC* them = &pos.side[1 - pos.turn]
    cdef bint contact = position_contact(pos)
    encode_own(them, NET_SIDE_INPUTS, enc)
    encode_relation(me, them, contact, 0, enc)
    encode_relation(them, me, contact, NET_SIDE_INPUTS, enc)


cdef void net_accumulate(const NetC* net, const EncodingC* enc, float* acc) noexcept nogil:
    fevga_accumulate(acc, net.params, enc.index, enc.value, enc.n, net.hidden)


cdef inline void _first_layer(const NetC* net, const float* start, const EncodingC* enc, float* acc) noexcept nogil:
    """acc = `start` (the bias row, or a base holding some columns already) plus the columns of `enc`."""
    memcpy(acc, start, net.hidden * sizeof(float))
    net_accumulate(net, enc, acc)


cdef inline const float* _bias(const NetC* net, int inputs) noexcept nogil:
    """The first layer's bias of a net over `inputs` inputs (the row after its weights)."""
    return net.params + <Py_ssize_t> inputs * net.hidden


cdef void _outputs(const NetC* net, int inputs, float* acc, double* logits) noexcept nogil:
    """ReLU in place over acc, then the three output logits (a net over `inputs` inputs)."""
    cdef int k, h = net.hidden
    cdef const float* b2 = net.params + <Py_ssize_t> (inputs + 4) * h
    cdef float dots[NET_OUTPUTS]
    fevga_relu_dot3(acc, net.params + <Py_ssize_t> (inputs + 1) * h, h, dots)
    for k in range(NET_OUTPUTS):
        logits[k] = b2[k] + dots[k]


cdef inline void _forward_from(const NetC* net, int inputs, const float* base, const EncodingC* enc,
                               double* out) noexcept nogil:
    """The outputs of a first layer holding `base` plus the columns of `enc` (both games)."""
    cdef float acc[NET_MAX_HIDDEN]
    cdef double logits[NET_OUTPUTS]
    _first_layer(net, base, enc, acc)
    _outputs(net, inputs, acc, logits)
    logit_probabilities(logits, out)


cdef void net_forward(const NetC* net, int inputs, const EncodingC* enc, double* out) noexcept nogil:
    _forward_from(net, inputs, _bias(net, inputs), enc, out)


cdef inline double _xlogy(double x, double y) noexcept nogil:
    """x log y, 0 when x == 0 (y clamped away from 0)."""
    if x <= 0.0:
        return 0.0
    return x * log(y if y > 1e-12 else 1e-12)


cdef double net_train_step(NetC* net, const PositionC* pos, const double* target,
                           float rate) noexcept nogil:
    cdef EncodingC enc
    encode_inputs(pos, &enc)
    return net_sgd_step(net, NET_INPUTS, &enc, target, rate)


cdef double net_sgd_step(NetC* net, int inputs, const EncodingC* enc, const double* target,
                         float rate) noexcept nogil:
    cdef int j, k, h = net.hidden
    cdef float* b1 = net.params + <Py_ssize_t> inputs * h
    cdef float* w2 = net.params + <Py_ssize_t> (inputs + 1) * h
    cdef float* b2 = net.params + <Py_ssize_t> (inputs + 4) * h
    cdef float* row
    cdef float acc[NET_MAX_HIDDEN]
    cdef float grad[NET_MAX_HIDDEN]
    cdef double logits[NET_OUTPUTS]
    cdef double s[NET_OUTPUTS]
    cdef float g[NET_OUTPUTS]
    cdef double t0 = target[0], t1 = target[1], t2 = target[2], loss
    cdef float x
    memcpy(acc, b1, h * sizeof(float))
    net_accumulate(net, enc, acc)
    _outputs(net, inputs, acc, logits)
    for k in range(NET_OUTPUTS):
        s[k] = sigmoid(logits[k])
    loss = -(_xlogy(t0, s[0]) + _xlogy(1.0 - t0, 1.0 - s[0])
             + _xlogy(t1, s[1]) + _xlogy(t0 - t1, 1.0 - s[1])
             + _xlogy(t2, s[2]) + _xlogy(1.0 - t0 - t2, 1.0 - s[2]))
    g[0] = <float> (s[0] - t0)
    g[1] = <float> (t0 * s[1] - t1)
    g[2] = <float> ((1.0 - t0) * s[2] - t2)
    for j in range(h):
        if acc[j] > 0.0:
            grad[j] = g[0] * w2[j] + g[1] * w2[h + j] + g[2] * w2[2 * h + j]
        else:
            grad[j] = 0.0
    for k in range(NET_OUTPUTS):
        b2[k] -= rate * g[k]
        for j in range(h):
            w2[k * h + j] -= rate * g[k] * acc[j]
    for j in range(h):
        grad[j] *= rate
        b1[j] -= grad[j]
    for k in range(enc.n):
        row = net.params + <Py_ssize_t> enc.index[k] * h
        x = enc.value[k]
        for j in range(h):
            row[j] -= x * grad[j]
    return loss


# ---------------------------------------------------------------------------------------
# The Gioul encoding ("gioul-1", docs/net.md "Gioul net"): GIOUL_NET_INPUTS inputs for the
# side to decide (pos.turn: it plays the pending dice or rolls next) then the other side,
# each in its own numbering (colour symmetric, as Fevga's), then the pending dice.
# Per side (base 0 or GIOUL_NET_SIDE_INPUTS), n = checkers on a point:
#     4 (p - 1) + 0..3   point p = 1..24, as Fevga's
#     96   checkers off / 15              97   pips / 360
#     98   checkers home / 15             99   longest run of own points / 6 (primes anywhere)
#     100  checkers in the first half / 15
#     101  bear-off allowed
#     102  trapped / 15    103  blocked steps / 90    104  escaped / 15    (Fevga's 103-105)
#     105  contact
#     106  chains armed: 3 rolls made, so every double it rolls from now on is a chain
#     107  rolls made / 3 (0, 1/3, 2/3, 1: the count the rules keep)
# Pending dice (all held by the side to decide), at GIOUL_NET_DICE:
#     +0..5  dice of number 1..6 still to play (this block, later chain blocks, a pair) / 4
#     +6     their pips / 84 (a whole 1-1 chain: 4 x (1 + ... + 6))
#     +7     handed over: the other side rolled them
#     +8     a chain: later blocks follow this one


cdef void _gioul_side_own(const SideC* side, int base, EncodingC* enc) noexcept nogil:
    """The inputs of one side that depend on its own checkers alone (points, off, pips,
    prime, home, back, bear-off allowed): the shareable prefix of its encoding."""
    cdef int home, back
    _encode_points(side, base, enc, &home, &back)
    if side.mask:
        _push(enc, base + 99, longest_run(side.mask) / 6.0)
    if home:
        _push(enc, base + 98, home / 15.0)
    if back:
        _push(enc, base + 100, back / 15.0)
    if (side.mask >> 6) == 0:
        _push(enc, base + 101, 1.0)


cdef void _gioul_side_rest(const SideC* side, const SideC* other, bint contact, int rolls, int base,
                           EncodingC* enc) noexcept nogil:
    """The rest of one side's inputs: against the other side, and its roll count."""
    cdef RelationC rel
    relation_counts(side, other, &rel)
    _push_relation(enc, base + 102, &rel, contact)
    if rolls >= 3:
        _push(enc, base + 106, 1.0)
    if rolls:
        _push(enc, base + 107, rolls / 3.0)


cdef void _encode_gioul_rest(const GioulC* s, EncodingC* enc) noexcept nogil:
    """Every input but the side to decide's own prefix (_gioul_side_own at base 0), in order."""
    cdef int me = s.pos.turn, d, pips = 0
    cdef bint contact = position_contact(&s.pos)
    cdef float dice[6]
    _gioul_side_rest(&s.pos.side[me], &s.pos.side[1 - me], contact, s.rolls[me], 0, enc)
    _gioul_side_own(&s.pos.side[1 - me], GIOUL_NET_SIDE_INPUTS, enc)
    _gioul_side_rest(&s.pos.side[1 - me], &s.pos.side[me], contact, s.rolls[1 - me], GIOUL_NET_SIDE_INPUTS, enc)
    if not s.count:
        return
    for d in range(6):
        dice[d] = 0.0
    if s.pair:
        dice[s.die - 1] = 1.0
        dice[s.pair - 1] = 1.0
    else:
        dice[s.die - 1] = s.count
        for d in range(s.die + 1, s.last + 1):
            dice[d - 1] = 4.0
    for d in range(6):
        if dice[d] != 0.0:
            _push(enc, GIOUL_NET_DICE + d, dice[d] / 4.0)
            pips += <int> dice[d] * (d + 1)
    _push(enc, GIOUL_NET_DICE + 6, pips / 84.0)
    if s.roller != me:
        _push(enc, GIOUL_NET_DICE + 7, 1.0)
    if s.last > s.die:
        _push(enc, GIOUL_NET_DICE + 8, 1.0)


# ---------------------------------------------------------------------------------------
# Either game's state (types.pxd StateC: a Fevga PositionC or a Gioul GioulC), one function
# each, specialised at compile time: the inputs of the side to move (Gioul: to decide), split
# into its own checkers' part (shared by all the results of a roll or decision that leave that
# side to move) and the rest.

cdef inline int _state_inputs(const StateC* s) noexcept nogil:
    if StateC is PositionC:
        return NET_INPUTS
    else:
        return GIOUL_NET_INPUTS


cdef inline void _encode_mover(const StateC* s, EncodingC* enc) noexcept nogil:
    """The side to move's inputs that depend on its own checkers alone."""
    if StateC is PositionC:
        encode_own(&s.side[s.turn], 0, enc)
    else:
        _gioul_side_own(&s.pos.side[s.pos.turn], 0, enc)


cdef inline void _encode_others(const StateC* s, EncodingC* enc) noexcept nogil:
    """Every other input, in order after _encode_mover's."""
    if StateC is PositionC:
        _encode_rest(s, enc)
    else:
        _encode_gioul_rest(s, enc)


cdef void encode_inputs(const StateC* s, EncodingC* enc) noexcept nogil:
    enc.n = 0
    _encode_mover(s, enc)
    _encode_others(s, enc)


cdef void net_base(const NetC* net, const StateC* s, float* acc) noexcept nogil:
    cdef EncodingC enc
    enc.n = 0
    _encode_mover(s, &enc)
    _first_layer(net, _bias(net, _state_inputs(s)), &enc, acc)


cdef void net_finish(const NetC* net, const StateC* s, const float* base, double* out) noexcept nogil:
    cdef EncodingC enc
    enc.n = 0
    _encode_others(s, &enc)
    _forward_from(net, _state_inputs(s), base, &enc, out)


cdef void net_evaluate(const NetC* net, const StateC* s, double* out) noexcept nogil:
    cdef EncodingC enc
    encode_inputs(s, &enc)
    net_forward(net, _state_inputs(s), &enc, out)


# ---------------------------------------------------------------------------------------
# Checks shared by the nets of both games (CoreNet here, CoreGioulNet in gioul.pyx).

cdef int model_bind(NetModel model, float[::1] params, int hidden, int inputs, RowValueF value,
                    RowStepF step) except -1:
    if not 1 <= hidden <= NET_MAX_HIDDEN or params.shape[0] != net_size(inputs, hidden):
        raise InvalidArgumentError(f"parameter vector of length {params.shape[0]} does not fit {hidden} hidden units "
                                   f"(1..{NET_MAX_HIDDEN})")
    if not np.all(np.isfinite(np.asarray(params))):
        raise InvalidArgumentError("the parameter vector holds non-finite values (NaN or infinity)")
    model.c.hidden = hidden
    model.c.params = &params[0]
    model._params = params
    model.value = value
    model.step = step
    return 0


cdef int check_targets(const double[:, ::1] targets, Py_ssize_t n, float rate) except -1:
    """InvalidArgumentError unless targets is (n, 3) of valid probabilities and rate a step."""
    if targets.shape[0] != n or targets.shape[1] != NET_OUTPUTS:
        raise InvalidArgumentError(f"targets of shape {tuple(targets.shape)[:2]} must be ({n}, {NET_OUTPUTS})")
    t = np.asarray(targets)
    tol = 1e-9     # lambda-returns mix probabilities in floating point: allow rounding
    if n and not (np.all(np.isfinite(t)) and np.all((t[:, 0] >= -tol) & (t[:, 0] <= 1 + tol) & (t[:, 1] >= -tol)
                                                  & (t[:, 2] >= -tol) & (t[:, 1] <= t[:, 0] + tol)
                                                  & (t[:, 2] <= 1 - t[:, 0] + tol))):
        raise InvalidArgumentError("targets must be probabilities (win, win_mars <= win, lose_mars <= 1 - win)")
    if not (rate > 0.0 and rate < 1e3):
        raise InvalidArgumentError(f"rate {rate} must be a positive finite step")
    return 0


# ---------------------------------------------------------------------------------------
# Python entry points: each checks its arguments (rows, shapes, values) before the nogil loop.

cdef int net_checked(NetModel net) except -1:
    if net.c.params == NULL:
        raise InvalidArgumentError(f"{type(net).__name__} has no parameters: make it with its constructor")
    return 0


cdef class NetModel:
    """The network over one game's encoding and a float32 parameter vector it keeps alive."""

    def __init__(self, *args):
        raise TypeError("NetModel is the base of CoreNet (Fevga) and CoreGioulNet (Gioul): make one of those")

    @property
    def hidden(self):
        """Hidden units."""
        return self.c.hidden

    def _check_rows(self, rows):
        raise NotImplementedError

    def evaluate_rows(self, const uint8_t[:, ::1] rows not None):
        """(n, 3) float64: win, win_mars, lose_mars for the side on roll (to decide) of each valid row."""
        net_checked(self)
        self._check_rows(rows)
        return net_evaluate_loop(&self.c, rows, self.value)

    def train_rows(self, const uint8_t[:, ::1] rows not None, const double[:, ::1] targets not None,
                   float rate):
        """One SGD pass over the rows in order toward targets (n, 3); returns the mean loss."""
        net_checked(self)
        self._check_rows(rows)
        return net_train_loop(&self.c, rows, targets, rate, self.step)


cdef class CoreNet(NetModel):
    """A Fevga net over a float32 parameter vector it keeps alive (fevga.net.Net wraps it)."""

    def __init__(self, float[::1] params not None, int hidden):
        model_bind(self, params, hidden, NET_INPUTS, _position_value, _position_step)

    def _check_rows(self, const uint8_t[:, ::1] rows not None):
        rows_checked(rows)


cdef void _position_value(const void* net, const uint8_t* row, double* out) noexcept nogil:
    cdef PositionC pos
    position_load(&pos, row)
    net_evaluate(<const NetC*> net, &pos, out)


cdef double _position_step(NetC* net, const uint8_t* row, const double* target, float rate) noexcept nogil:
    cdef PositionC pos
    position_load(&pos, row)
    return net_train_step(net, &pos, target, rate)


cdef object net_evaluate_loop(const void* model, const uint8_t[:, ::1] rows, RowValueF value):
    """(n, 3) float64: `value` of each row (checked by the caller), GIL released, Ctrl-C answered."""
    cdef Py_ssize_t i, n = rows.shape[0]
    out = np.empty((n, NET_OUTPUTS), dtype=np.float64)
    cdef double[:, ::1] view = out
    with nogil:
        for i in range(n):
            check_interrupt_every(i, 65536)
            value(model, &rows[i, 0], &view[i, 0])
    return out


cdef double net_train_loop(NetC* net, const uint8_t[:, ::1] rows, const double[:, ::1] targets, float rate,
                           RowStepF step) except? -1.0:
    """One SGD pass of `step` over the rows (checked by the caller) in order toward targets
    (checked here); returns the mean loss."""
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef double total = 0.0
    check_targets(targets, n, rate)
    with nogil:
        for i in range(n):
            check_interrupt_every(i, 65536)
            total += step(net, &rows[i, 0], &targets[i, 0], rate)
    return total / n if n else 0.0


cdef object encoding_dense(const EncodingC* enc, int inputs):
    """The dense float32 input vector of a sparse encoding."""
    cdef int k
    out = np.zeros(inputs, dtype=np.float32)
    cdef float[::1] view = out
    for k in range(enc.n):
        view[enc.index[k]] += enc.value[k]
    return out


def encode_row(row):
    """The dense float32 input vector of one valid row (documentation and tests)."""
    cdef PositionC pos
    cdef EncodingC enc
    position_load_checked(&pos, row)
    encode_inputs(&pos, &enc)
    return encoding_dense(&enc, NET_INPUTS)
