# The quantised, incremental evaluator (docs/net.md "Quantised inference"). The float net
# (net.pyx) stays the training and reference path; this is the same function in integers.
#
# First layer as tables. The float net's pre-activation h = b1 + sum_i x_i W1[i] is linear in
# its inputs, and most of its inputs are linear in the counts: a point holding n checkers
# sets n >= 1, n >= 2, n >= 3, (n - 3) / 4 and adds n p / 360 to the pips, n / 15 to home
# (p <= 6) or back (p >= 13). So each (side, point, n) has ONE weight row, the sum of all
# those inputs' columns times their values, and h is a sum of rows over the active features:
#
#   row                 rows per side (b = 0 side on roll, inputs 0-106; b = 1 the other)
#   POINT(b, p, n)      24 x 16    point p = 1..24 holding n = 0..15 (n = 0: the zero row)
#   OFF(b, k)           16         k checkers off: k / 15 x input 96
#   RUN(b, r)           25         longest run r: r / 6 x input 100
#   RELEASED(b), BEAR(b) 1 each    inputs 99 and 102 (0 or 1)
#   TRAPPED(b, k)       16         k / 15 x input 103 (relation inputs: both sides' checkers)
#   BLOCKED(b, k)       91         k / 90 x input 104
#   ESCAPED(b, k)       16         k / 15 x input 105
#   CONTACT             1 (shared) inputs 106 + 213 (both sides' contact input)
#
# A Gioul net ("gioul-1", net.pyx) has the same rows at the same places, each the sum of
# its own inputs' columns (points fold pips 97, home 98 and first half 100; RUN is input 99,
# BEAR 101, the relations 102-104, CONTACT 105 + 213), RELEASED left zero and never added
# (no mother rule), and rows of its own after them:
#   ROLLS(b, r)         4 per side  r rolls made: (r >= 3) x input 106 + r / 3 x input 107
#   DICE(d, c)          6 x 5       c dice of number d pending: c / 4 x input 216 + d - 1,
#                                   plus their pips, c d / 84 x input 222
#   HANDED, CHAIN       1 each      inputs 223 and 224
#
# Each row is computed in float64 from the float32 weights and rounded once to int16 at
# scale S1 = 2^s1, the biases b1 likewise. A position's accumulator is the bias plus the sum
# of its rows (at most 45: 2 x (15 points + 4) + 2 x 3 relations + contact; a Gioul state's
# at most 51: 2 x (15 + 3) + 6 + 1, 2 roll counts, 6 dice rows, hand-over; an incremental
# update at most 72), added in
# wrapping 16-bit arithmetic. accumulator_bounds() bounds every lane's true sum over every
# position (each side's checkers placed on points 1-24 and off to the extreme, each other
# feature at its extreme level or absent), and s1 is chosen so that the bound lies inside
# int16: the wrapped sum then IS the true sum, whatever the order of additions (raw or
# incremental, any SIMD width, any thread). Activations are max(accumulator, 0), at most
# 32767. The output layer: dot_k = sum_j a_j w2q[k][j], w2q = round(S2 w2) int16, S2 = 2^s2,
# by pmaddwd-style products into int32 partial sums of at most 16 products each (s2 is chosen
# so that 16 x the largest activation x the largest |w2q| stays below 2^31), the partial sums
# added in int64: exact. Then logit_k = b2[k] + dot_k / (S1 S2) in float64 (no fused
# multiply-adds: setup.py) and the float net's sigmoids (net.pxd logit_probabilities).
#
# Scales (QuantisedNet.__init__): s1 = the largest of 11, 10, ..., 0 for which every entry
# and the accumulator bound fit int16; s2 = the largest of 14, 13, ..., 0 for which every
# w2q fits int16 and the partial-sum bound holds. The shipped net gets s1 = 9, s2 = 12. The
# error against the float net comes from rounding alone; docs/net.md "Quantised inference"
# gives the measured bound.
#
# Incremental evaluation: every result of one position's roll has the opponent on roll with
# its checkers unchanged, so qnet_parent sums the bias, the opponent's own rows (b = 0) and
# the mover's own rows before the move (b = 1) once; a result adds the rows of what its move
# changed (points its steps touched, off, run, released, bear-off) minus the old ones, and
# its relation rows (Gioul: and its roll-count and pending-dice rows). The result is the
# same integer accumulator as a fresh evaluation. (A Gioul result that leaves the mover to
# decide, a chain's next block, is evaluated afresh: search.pyx.)
#
# SIMD: the accumulator update is written once with GCC/Clang vector extensions (16 x int16
# lanes); the output layer with SSE2 / AVX2 intrinsics on x86-64 and vector extensions
# elsewhere. On x86-64 setup.py defines FEVGA_SIMD_DISPATCH: the kernels are compiled for the
# x86-64 baseline (SSE2) and with target("avx2"), and fevga_q_select() picks one at import by
# the CPU (__builtin_cpu_supports), so one wheel runs on any x86-64 machine (qnet.SIMD names
# the path). On aarch64 the same code compiles to NEON; elsewhere to what the target has.
# FEVGA_SIMD=generic builds that portable path on x86-64 too, to check it where CI runs.
# The relation inputs of a position (trapped, blocked, escaped: net.pyx relation_counts) are
# counted by an SSE2 kernel over the 24 points on x86-64 (fevga_q_relation), by
# relation_counts itself elsewhere and in the generic build: the same integers.
# Results are integers until the logits: identical on every path (tests/test_qnet.py).
#
# At play (docs/net.md "Quantised inference"): QuantisedNet is a CoreNet, so the entry points
# that take a Fevga net take it; search.pyx's EvaluatorC and rollout.pyx's JobC carry its
# tables (net_quantised) and value a roll's results from qnet_parent / qnet_result.

from libc.stdint cimport int16_t, uint32_t
from libc.string cimport memcpy, memset

import numpy as np
cimport numpy as cnp

from fevga_core.types cimport (
    PositionC, SideC, MoveC, GioulC, StateC, uint8_t, int32_t, int64_t, NUM_CHECKERS, NUM_SLOTS, POSITION_WIDTH,
)
from fevga_core.board cimport (
    position_load, rows_checked, fevga_flags_checked, longest_run, check_interrupt_every, moves_checked, dice_shape_checked, rotate12, __builtin_ctz,
)
from fevga_core.movegen cimport ScratchC, scratch_new, scratch_free, generate_moves, apply_move
from fevga_core.net cimport (
    NetModel, CoreNet, NET_INPUTS, NET_SIDE_INPUTS, NET_OUTPUTS, GIOUL_NET_INPUTS, GIOUL_NET_SIDE_INPUTS,
    GIOUL_NET_DICE, RelationC, relation_counts, position_contact, logit_probabilities, net_evaluate_loop,
    net_checked,
)
from fevga_core.gioul cimport CoreGioulNet, gioul_rows_checked
from fevga_core.state cimport gioul_load, state_board

from fevga_core.errors import InvalidArgumentError, InvalidDiceError

cnp.import_array()

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    typedef uint16_t fevga_q16 __attribute__((vector_size(32)));   /* 16 accumulator lanes, wrapping */
    #define FEVGA_Q_INLINE static inline __attribute__((always_inline))

    /* dst[0..lanes) = src + the rows add[0..na) - the rows sub[0..ns), in wrapping 16-bit
       arithmetic (exact: qnet.pyx bounds every true sum inside int16), `block` lanes
       (a multiple of 16 dividing lanes) held in registers while the rows stream past. */
    FEVGA_Q_INLINE void fevga_q_update_body(int16_t* dst, const int16_t* src, const int16_t* const* add, int na,
                                            const int16_t* const* sub, int ns, int lanes, const int block) {
        fevga_q16 a[8], v;
        int j, k, l;
        for (j = 0; j < lanes; j += block) {
            for (l = 0; l < block / 16; l++) memcpy(&a[l], src + j + 16 * l, 32);
            for (k = 0; k < na; k++) {
                const int16_t* r = add[k] + j;
                for (l = 0; l < block / 16; l++) { memcpy(&v, r + 16 * l, 32); a[l] += v; }
            }
            for (k = 0; k < ns; k++) {
                const int16_t* r = sub[k] + j;
                for (l = 0; l < block / 16; l++) { memcpy(&v, r + 16 * l, 32); a[l] -= v; }
            }
            for (l = 0; l < block / 16; l++) memcpy(dst + j + 16 * l, &a[l], 32);
        }
    }

    /* dots[k] = sum_j max(acc[j], 0) * w2[k * lanes + j], k = 0, 1, 2, exact: every int32
       partial sum adds 16 products at most (the scale of w2 keeps that below 2^31), and the
       partial sums are added in int64. x86 multiplies with pmaddwd (SSE2, AVX2), other
       targets widen to 32 bits. */
    #if defined(__x86_64__) && !defined(FEVGA_SIMD_GENERIC)
    #include <immintrin.h>
    static void fevga_q_output_sse2(const int16_t* acc, const int16_t* w2, int lanes, int64_t* dots) {
        const __m128i zero = _mm_setzero_si128();
        int32_t part[4];
        int j, l, k, i;
        for (k = 0; k < 3; k++) {
            const int16_t* w = w2 + k * lanes;
            int64_t total = 0;
            for (j = 0; j < lanes; j += 32) {          /* 4 madds: 4 int32 lanes of 8 products */
                __m128i sum = zero;
                for (l = j; l < j + 32; l += 8) {
                    __m128i a = _mm_max_epi16(_mm_loadu_si128((const __m128i*) (acc + l)), zero);
                    sum = _mm_add_epi32(sum, _mm_madd_epi16(a, _mm_loadu_si128((const __m128i*) (w + l))));
                }
                _mm_storeu_si128((__m128i*) part, sum);
                for (i = 0; i < 4; i++) total += part[i];
            }
            dots[k] = total;
        }
    }
    #define fevga_q_output_base fevga_q_output_sse2
    #else
    typedef int16_t fevga_q8h __attribute__((vector_size(16)));
    typedef int32_t fevga_q8i __attribute__((vector_size(32)));
    static void fevga_q_output_generic(const int16_t* acc, const int16_t* w2, int lanes, int64_t* dots) {
        const fevga_q8i zero = {0, 0, 0, 0, 0, 0, 0, 0};
        fevga_q8h h;
        fevga_q8i a, w, sum;
        int j, l, k, i;
        for (k = 0; k < 3; k++) {
            int64_t total = 0;
            for (j = 0; j < lanes; j += 128) {         /* 16 steps: 8 int32 lanes of 16 products */
                sum = zero;
                for (l = j; l < j + 128; l += 8) {
                    memcpy(&h, acc + l, 16);
                    a = __builtin_convertvector(h, fevga_q8i);
                    a &= (a > zero);
                    memcpy(&h, w2 + k * lanes + l, 16);
                    w = __builtin_convertvector(h, fevga_q8i);
                    sum += a * w;
                }
                for (i = 0; i < 8; i++) total += sum[i];
            }
            dots[k] = total;
        }
    }
    #define fevga_q_output_base fevga_q_output_generic
    #endif

    static void fevga_q_update_base(int16_t* dst, const int16_t* src, const int16_t* const* add, int na,
                                    const int16_t* const* sub, int ns, int lanes) {
        fevga_q_update_body(dst, src, add, na, sub, ns, lanes, 64);    /* 8 SSE2 registers */
    }
    #if defined(FEVGA_SIMD_DISPATCH) && defined(__x86_64__)
    __attribute__((target("avx2")))
    static void fevga_q_update_avx2(int16_t* dst, const int16_t* src, const int16_t* const* add, int na,
                                    const int16_t* const* sub, int ns, int lanes) {
        if (lanes % 128 == 0)
            fevga_q_update_body(dst, src, add, na, sub, ns, lanes, 128);   /* 8 AVX2 registers */
        else
            fevga_q_update_body(dst, src, add, na, sub, ns, lanes, 64);
    }
    __attribute__((target("avx2")))
    static inline int64_t fevga_q_sum8_avx2(__m256i s) {     /* 8 int32 lanes added in int64 */
        __m256i wide = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(s)),
                                        _mm256_cvtepi32_epi64(_mm256_extracti128_si256(s, 1)));
        __m128i half = _mm_add_epi64(_mm256_castsi256_si128(wide), _mm256_extracti128_si256(wide, 1));
        return _mm_cvtsi128_si64(half) + _mm_extract_epi64(half, 1);
    }
    __attribute__((target("avx2")))
    static void fevga_q_output_avx2(const int16_t* acc, const int16_t* w2, int lanes, int64_t* dots) {
        /* the three outputs in one pass: each activation block loaded and clipped once */
        const __m256i zero = _mm256_setzero_si256();
        int j, l;
        dots[0] = dots[1] = dots[2] = 0;
        for (j = 0; j < lanes; j += 128) {             /* 8 madds: 8 int32 lanes of 16 products */
            __m256i s0 = zero, s1 = zero, s2 = zero;
            for (l = j; l < j + 128; l += 16) {
                __m256i a = _mm256_max_epi16(_mm256_loadu_si256((const __m256i*) (acc + l)), zero);
                s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(a, _mm256_loadu_si256((const __m256i*) (w2 + l))));
                s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(a, _mm256_loadu_si256((const __m256i*) (w2 + lanes + l))));
                s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(a, _mm256_loadu_si256((const __m256i*) (w2 + 2 * lanes + l))));
            }
            dots[0] += fevga_q_sum8_avx2(s0);
            dots[1] += fevga_q_sum8_avx2(s1);
            dots[2] += fevga_q_sum8_avx2(s2);
        }
    }
    #endif

    /* Bit p - 1 set for each of the 24 points p whose count (counts[p], p = 1..24) is not 0. */
    static inline uint32_t fevga_q_points_mask(const uint8_t* counts) {
    #if defined(__x86_64__) && !defined(FEVGA_SIMD_GENERIC)
        const __m128i zero = _mm_setzero_si128();
        uint32_t empty = (uint32_t) _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*) (counts + 1)), zero))
                         | (uint32_t) _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadl_epi64((const __m128i*) (counts + 17)), zero)) << 16;
        return ~empty & 0xFFFFFFu;
    #else
        uint32_t mask = 0;
        int p;
        for (p = 1; p <= 24; p++) mask |= (uint32_t) (counts[p] != 0) << (p - 1);
        return mask;
    #endif
    }

    /* net.pyx relation_counts for all 24 points at once (SSE2): the trapped, blocked and escaped
       checkers of the side whose point counts are counts[1..24] against the other side's points
       `theirs` (its mask in this side's numbering). Lane i is own point i + 1; front[i] = the other
       side's points among own points i - 5 .. i (the six in front of point i + 1), from a byte
       array of its points with six zeros below point 1. Integer counts: the same numbers. */
    #if defined(__x86_64__) && !defined(FEVGA_SIMD_GENERIC)
    #define FEVGA_Q_RELATION_SIMD 1
    static inline void fevga_q_relation(const uint8_t* counts, uint32_t theirs, int* trapped, int* blocked,
                                        int* escaped) {
        const __m128i zero = _mm_setzero_si128();
        const __m128i bits = _mm_set_epi8(-128, 64, 32, 16, 8, 4, 2, 1, -128, 64, 32, 16, 8, 4, 2, 1);
        const __m128i one = _mm_set1_epi8(1), six = _mm_set1_epi8(6);
        uint8_t points[48];
        __m128i x, t_lo, t_hi, f_lo = zero, f_hi = zero, n_lo, n_hi, b, s, limit;
        int k;
        x = _mm_cvtsi32_si128((int) theirs);
        x = _mm_unpacklo_epi8(x, x);
        x = _mm_unpacklo_epi16(x, x);
        t_lo = _mm_unpacklo_epi32(x, x);                    /* lanes 0-7: byte 0 of theirs, 8-15: byte 1 */
        t_hi = _mm_unpackhi_epi32(x, x);                    /* byte 2, then byte 3 (0) */
        t_lo = _mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(t_lo, bits), bits), one);
        t_hi = _mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(t_hi, bits), bits), one);
        _mm_storeu_si128((__m128i*) points, zero);          /* points[6 + i]: the other side on own point i + 1 */
        _mm_storeu_si128((__m128i*) (points + 6), t_lo);
        _mm_storeu_si128((__m128i*) (points + 22), t_hi);
        for (k = 1; k <= 6; k++) {
            f_lo = _mm_add_epi8(f_lo, _mm_loadu_si128((const __m128i*) (points + 6 - k)));
            f_hi = _mm_add_epi8(f_hi, _mm_loadu_si128((const __m128i*) (points + 22 - k)));
        }
        n_lo = _mm_loadu_si128((const __m128i*) (counts + 1));       /* points 1-16 */
        n_hi = _mm_loadl_epi64((const __m128i*) (counts + 17));      /* points 17-24 */
        b = _mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi8(n_lo, zero), _mm_unpacklo_epi8(f_lo, zero)),
                          _mm_madd_epi16(_mm_unpackhi_epi8(n_lo, zero), _mm_unpackhi_epi8(f_lo, zero)));
        b = _mm_add_epi32(b, _mm_madd_epi16(_mm_unpacklo_epi8(n_hi, zero), _mm_unpacklo_epi8(f_hi, zero)));
        b = _mm_add_epi32(b, _mm_shuffle_epi32(b, 0x4E));
        b = _mm_add_epi32(b, _mm_shuffle_epi32(b, 0xB1));
        *blocked = _mm_cvtsi128_si32(b);
        /* six points in front all held (only possible from point 7 on: below it the window has zeros) */
        s = _mm_add_epi64(_mm_sad_epu8(_mm_and_si128(n_lo, _mm_cmpeq_epi8(f_lo, six)), zero),
                          _mm_sad_epu8(_mm_and_si128(n_hi, _mm_cmpeq_epi8(f_hi, six)), zero));
        *trapped = _mm_cvtsi128_si32(s) + _mm_extract_epi16(s, 4);
        /* escaped: below the other side's lowest point (lane i < its index; all 24 when it has none) */
        limit = _mm_set1_epi8((char) (theirs ? __builtin_ctz(theirs) : 24));
        s = _mm_add_epi64(
            _mm_sad_epu8(_mm_and_si128(n_lo, _mm_cmplt_epi8(_mm_set_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), limit)), zero),
            _mm_sad_epu8(_mm_and_si128(n_hi, _mm_cmplt_epi8(_mm_set_epi8(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16), limit)), zero));
        *escaped = _mm_cvtsi128_si32(s) + _mm_extract_epi16(s, 4);
    }
    #else
    #define FEVGA_Q_RELATION_SIMD 0      /* net.pyx relation_counts serves (never called) */
    #define fevga_q_relation(counts, theirs, trapped, blocked, escaped) ((void) 0)
    #endif

    static void (*fevga_q_update)(int16_t*, const int16_t*, const int16_t* const*, int, const int16_t* const*,
                                  int, int) = fevga_q_update_base;
    static void (*fevga_q_output)(const int16_t*, const int16_t*, int, int64_t*) = fevga_q_output_base;

    /* Pick the kernels: the CPU's best (at import) or, best = 0, the baseline (tests compare
       the two); returns the name of the path taken. */
    static const char* fevga_q_select(int best) {
    #if defined(FEVGA_SIMD_GENERIC)
        return "generic";
    #elif defined(FEVGA_SIMD_DISPATCH) && defined(__x86_64__)
        __builtin_cpu_init();
        if (best && __builtin_cpu_supports("avx2")) {
            fevga_q_update = fevga_q_update_avx2;
            fevga_q_output = fevga_q_output_avx2;
            return "avx2";
        }
        fevga_q_update = fevga_q_update_base;
        fevga_q_output = fevga_q_output_base;
        return "sse2";
    #elif defined(__x86_64__) && defined(__AVX2__)
        return "avx2 (built for this CPU)";
    #elif defined(__x86_64__)
        return "sse2";
    #elif defined(__aarch64__) || defined(__ARM_NEON)
        return "neon";
    #else
        return "portable";
    #endif
    }
    """
    void fevga_q_update(int16_t* dst, const int16_t* src, const int16_t* const* add, int na,
                        const int16_t* const* sub, int ns, int lanes) noexcept nogil
    void fevga_q_output(const int16_t* acc, const int16_t* w2, int lanes, int64_t* dots) noexcept nogil
    const char* fevga_q_select(int best) noexcept nogil
    uint32_t fevga_q_points_mask(const uint8_t* counts) noexcept nogil
    enum: FEVGA_Q_RELATION_SIMD
    void fevga_q_relation(const uint8_t* counts, uint32_t theirs, int* trapped, int* blocked, int* escaped) noexcept nogil

SIMD = fevga_q_select(1).decode()


def _use_kernels(bint best):
    """Switch every QuantisedNet to the CPU's best kernels or (False) the baseline ones and
    return the path's name: for tests, which check that both give the same bits. Not
    thread-safe: call it when no evaluation runs."""
    return fevga_q_select(best).decode()

# Row numbers of the tables (the layout drawn at the top).
cdef enum:
    ROW_POINT = 0           # + (b * 24 + p - 1) * 16 + n
    ROW_OFF = 768           # + b * 16 + k
    ROW_RUN = 800           # + b * 25 + r
    ROW_RELEASED = 850      # + b
    ROW_BEAR = 852          # + b
    ROW_TRAPPED = 854       # + b * 16 + k
    ROW_BLOCKED = 886       # + b * 91 + k
    ROW_ESCAPED = 1068      # + b * 16 + k
    ROW_CONTACT = 1100
    QNET_ROWS = 1101        # Fevga's tables end here; Gioul's go on:
    ROW_ROLLS = 1101        # + b * 4 + r
    ROW_DICE = 1109         # + (d - 1) * 5 + c
    ROW_HANDED = 1139
    ROW_CHAIN = 1140
    GIOUL_QNET_ROWS = 1141

ROWS = QNET_ROWS
GIOUL_ROWS = GIOUL_QNET_ROWS
LANES = QNET_LANES
S1_MAX = 11
S2_MAX = 14


cdef inline void own_features(const SideC* side, OwnC* f) noexcept nogil:
    f.off = side.counts[0]
    f.run = longest_run(side.mask)
    f.released = side.counts[0] != 0 or (side.mask & 0x7FF) != 0
    f.bear = (side.mask >> 6) == 0


# Lists of rows for one kernel call.
ctypedef struct RowsC:
    int nadd
    int nsub
    const int16_t* add[QNET_MAX_ROWS]
    const int16_t* sub[QNET_MAX_ROWS]


cdef inline const int16_t* _row(const QNetC* q, int index) noexcept nogil:
    return q.rows + <Py_ssize_t> index * q.lanes


cdef inline void _add(const QNetC* q, RowsC* r, int index) noexcept nogil:
    r.add[r.nadd] = _row(q, index)
    r.nadd += 1


cdef inline void _sub(const QNetC* q, RowsC* r, int index) noexcept nogil:
    r.sub[r.nsub] = _row(q, index)
    r.nsub += 1


cdef void _own_rows(const QNetC* q, const SideC* side, int b, bint gioul, RowsC* r) noexcept nogil:
    """The rows of a side's own inputs as side b (0 on roll, 1 the other); Gioul has no
    mother rule, so no RELEASED row."""
    cdef uint32_t occupied = side.mask
    cdef int p
    cdef OwnC f
    while occupied:
        p = __builtin_ctz(occupied) + 1
        occupied &= occupied - 1
        _add(q, r, ROW_POINT + (b * 24 + p - 1) * 16 + side.counts[p])
    own_features(side, &f)
    if f.off:
        _add(q, r, ROW_OFF + b * 16 + f.off)
    if f.run:
        _add(q, r, ROW_RUN + b * 25 + f.run)
    if f.released and not gioul:
        _add(q, r, ROW_RELEASED + b)
    if f.bear:
        _add(q, r, ROW_BEAR + b)


cdef void _gioul_rows(const QNetC* q, const GioulC* s, RowsC* r) noexcept nogil:
    """The rows of a Gioul state's own inputs beyond its board: both sides' roll counts (the
    side to decide b = 0) and the pending dice (net.pyx _encode_gioul_rest)."""
    cdef int me = s.pos.turn, b, d
    for b in range(2):
        if s.rolls[me ^ b]:
            _add(q, r, ROW_ROLLS + b * 4 + s.rolls[me ^ b])
    if not s.count:
        return
    if s.pair:
        _add(q, r, ROW_DICE + (s.die - 1) * 5 + 1)
        _add(q, r, ROW_DICE + (s.pair - 1) * 5 + 1)
    else:
        _add(q, r, ROW_DICE + (s.die - 1) * 5 + s.count)
        for d in range(s.die + 1, s.last + 1):
            _add(q, r, ROW_DICE + (d - 1) * 5 + 4)
    if s.roller != me:
        _add(q, r, ROW_HANDED)
    if s.last > s.die:
        _add(q, r, ROW_CHAIN)


cdef inline void _relations(const SideC* side, const SideC* other, RelationC* rel) noexcept nogil:
    """net.pyx relation_counts: the SSE2 kernel on x86-64, else relation_counts itself."""
    if FEVGA_Q_RELATION_SIMD:
        fevga_q_relation(side.counts, rotate12(other.mask), &rel.trapped, &rel.blocked, &rel.escaped)
    else:
        relation_counts(side, other, rel)


cdef void _relation_rows(const QNetC* q, const PositionC* pos, RowsC* r) noexcept nogil:
    """The rows of the relation inputs of both sides (side on roll b = 0) and contact."""
    cdef RelationC rel
    cdef int b
    cdef const SideC* side
    cdef const SideC* other
    for b in range(2):
        side = &pos.side[pos.turn ^ b]
        other = &pos.side[pos.turn ^ b ^ 1]
        _relations(side, other, &rel)
        if rel.trapped:
            _add(q, r, ROW_TRAPPED + b * 16 + rel.trapped)
        if rel.blocked:
            _add(q, r, ROW_BLOCKED + b * 91 + rel.blocked)
        if rel.escaped:
            _add(q, r, ROW_ESCAPED + b * 16 + rel.escaped)
    if position_contact(pos):
        _add(q, r, ROW_CONTACT)


cdef void _finish(const QNetC* q, const int16_t* acc, double* out) noexcept nogil:
    """Probabilities from a complete accumulator: the output layer and the sigmoids."""
    cdef int64_t dots[NET_OUTPUTS]
    cdef double logits[NET_OUTPUTS]
    cdef double scale = 1.0 / <double> (1 << (q.s1 + q.s2))
    cdef int k
    fevga_q_output(acc, q.w2, q.lanes, dots)
    for k in range(NET_OUTPUTS):
        logits[k] = q.b2[k] + <double> dots[k] * scale
    logit_probabilities(logits, out)


cdef void qnet_evaluate(const QNetC* q, const StateC* s, double* out) noexcept nogil:
    cdef RowsC r
    cdef int16_t acc[QNET_MAX_LANES]
    cdef const PositionC* pos = state_board(s)
    cdef bint gioul = StateC is GioulC
    r.nadd = 0
    r.nsub = 0
    _own_rows(q, &pos.side[pos.turn], 0, gioul, &r)
    _own_rows(q, &pos.side[pos.turn ^ 1], 1, gioul, &r)
    _relation_rows(q, pos, &r)
    if StateC is GioulC:
        _gioul_rows(q, s, &r)
    fevga_q_update(acc, q.bias, r.add, r.nadd, r.sub, r.nsub, q.lanes)
    _finish(q, acc, out)


cdef void qnet_parent(const QNetC* q, const StateC* s, QParentC* shared) noexcept nogil:
    cdef RowsC r
    cdef const PositionC* parent = state_board(s)
    cdef bint gioul = StateC is GioulC
    r.nadd = 0
    r.nsub = 0
    shared.parent = parent[0]
    own_features(&parent.side[parent.turn], &shared.before)
    _own_rows(q, &parent.side[parent.turn ^ 1], 0, gioul, &r)     # the opponent: on roll in every result
    _own_rows(q, &parent.side[parent.turn], 1, gioul, &r)         # the mover before its move
    fevga_q_update(shared.acc, q.bias, r.add, r.nadd, r.sub, r.nsub, q.lanes)


cdef void qnet_result(const QNetC* q, const QParentC* shared, const MoveC* move, const StateC* s,
                      double* out) noexcept nogil:
    cdef const PositionC* child = state_board(s)
    cdef RowsC r
    cdef int16_t acc[QNET_MAX_LANES]
    cdef const SideC* before = &shared.parent.side[shared.parent.turn]
    cdef const SideC* after = &move.after
    cdef uint32_t touched = 0
    cdef int k, p, old, new
    cdef const OwnC* f0 = &shared.before
    cdef OwnC f1
    r.nadd = 0
    r.nsub = 0
    for k in range(move.nsteps):            # the points whose counts a move can change
        touched |= (1u << move.steps[k][0]) | (1u << move.steps[k][1])
    touched >>= 1                           # bit p - 1 = point p; off is a feature of its own
    while touched:
        p = __builtin_ctz(touched) + 1
        touched &= touched - 1
        old = before.counts[p]
        new = after.counts[p]
        if old != new:
            if old:
                _sub(q, &r, ROW_POINT + (24 + p - 1) * 16 + old)
            if new:
                _add(q, &r, ROW_POINT + (24 + p - 1) * 16 + new)
    own_features(after, &f1)
    if f0.off != f1.off:
        if f0.off:
            _sub(q, &r, ROW_OFF + 16 + f0.off)
        _add(q, &r, ROW_OFF + 16 + f1.off)
    if f0.run != f1.run:
        if f0.run:
            _sub(q, &r, ROW_RUN + 25 + f0.run)
        if f1.run:
            _add(q, &r, ROW_RUN + 25 + f1.run)
    if StateC is PositionC:
        if f0.released != f1.released:
            if f0.released:
                _sub(q, &r, ROW_RELEASED + 1)
            else:
                _add(q, &r, ROW_RELEASED + 1)
    if f0.bear != f1.bear:
        if f0.bear:
            _sub(q, &r, ROW_BEAR + 1)
        else:
            _add(q, &r, ROW_BEAR + 1)
    _relation_rows(q, child, &r)
    if StateC is GioulC:
        _gioul_rows(q, s, &r)
    fevga_q_update(acc, shared.acc, r.add, r.nadd, r.sub, r.nsub, q.lanes)
    _finish(q, acc, out)


# ---------------------------------------------------------------------------------------
# Quantisation (from a CoreNet's float parameters) and the Python entry points. Each entry
# point checks its arguments (rows, shapes, dice, flags) before the nogil loop.

cdef const QNetC* net_quantised(NetModel net) noexcept:
    if isinstance(net, QuantisedNet):
        return &(<QuantisedNet> net).q
    if isinstance(net, QuantisedGioulNet):
        return &(<QuantisedGioulNet> net).q
    return NULL


def _float_tables(params, int hidden, bint gioul=False):
    """(rows (ROWS or GIOUL_ROWS, hidden) float64, b1, w2 (3, hidden), b2) of a flat float
    parameter vector of a Fevga net, or (gioul) a Gioul net."""
    p = np.asarray(params, dtype=np.float64)
    inputs, side = (GIOUL_NET_INPUTS, GIOUL_NET_SIDE_INPUTS) if gioul else (NET_INPUTS, NET_SIDE_INPUTS)
    # each side's input numbers (net.pyx): off, pips, home, run, back, bear, trapped, blocked, escaped, contact
    off, pips, home, run, back, bear, trapped, blocked, escaped, contact = (
        (96, 97, 98, 99, 100, 101, 102, 103, 104, 105) if gioul else (96, 97, 98, 100, 101, 102, 103, 104, 105, 106))
    w1 = p[:inputs * hidden].reshape(inputs, hidden)
    b1 = p[inputs * hidden:(inputs + 1) * hidden]
    w2 = p[(inputs + 1) * hidden:(inputs + 4) * hidden].reshape(NET_OUTPUTS, hidden)
    b2 = p[(inputs + 4) * hidden:]
    rows = np.zeros((GIOUL_QNET_ROWS if gioul else QNET_ROWS, hidden))
    for b in range(2):
        w = w1[b * side:(b + 1) * side]
        for point in range(1, 25):
            i = 4 * (point - 1)
            for n in range(1, 16):
                rows[ROW_POINT + (b * 24 + point - 1) * 16 + n] = (
                    w[i] + (n >= 2) * w[i + 1] + (n >= 3) * w[i + 2] + max(n - 3, 0) / 4.0 * w[i + 3]
                    + n * point / 360.0 * w[pips] + (point <= 6) * n / 15.0 * w[home]
                    + (point >= 13) * n / 15.0 * w[back])
        for k in range(16):
            rows[ROW_OFF + b * 16 + k] = k / 15.0 * w[off]
            rows[ROW_TRAPPED + b * 16 + k] = k / 15.0 * w[trapped]
            rows[ROW_ESCAPED + b * 16 + k] = k / 15.0 * w[escaped]
        for k in range(25):
            rows[ROW_RUN + b * 25 + k] = k / 6.0 * w[run]
        for k in range(91):
            rows[ROW_BLOCKED + b * 91 + k] = k / 90.0 * w[blocked]
        if not gioul:
            rows[ROW_RELEASED + b] = w[99]
        rows[ROW_BEAR + b] = w[bear]
        if gioul:
            for r in range(1, 4):
                rows[ROW_ROLLS + b * 4 + r] = (r >= 3) * w[106] + r / 3.0 * w[107]
    rows[ROW_CONTACT] = w1[contact] + w1[side + contact]
    if gioul:
        dice = w1[GIOUL_NET_DICE:]
        for d in range(1, 7):
            for c in range(1, 5):
                rows[ROW_DICE + (d - 1) * 5 + c] = c / 4.0 * dice[d - 1] + c * d / 84.0 * dice[6]
        rows[ROW_HANDED] = dice[7]
        rows[ROW_CHAIN] = dice[8]
    return rows, b1, w2, b2


def _side_extremes(table, int b, sign):
    """Per lane, the largest of sign x (the rows of side b's own and relation inputs) over
    every way its 15 checkers can stand (points 1-24 and off), each other feature at its most
    extreme level: a bound on what that side adds to an accumulator (int64)."""
    lanes = table.shape[1]
    t = sign * table.astype(np.int64)
    none = np.iinfo(np.int64).min // 4
    best = np.full((16, lanes), none, dtype=np.int64)     # best[c]: c checkers on points so far
    best[0] = 0
    for point in range(1, 25):
        rows = t[ROW_POINT + (b * 24 + point - 1) * 16:][:16]
        new = best.copy()                                   # n = 0 on this point: row 0 is zero
        for used in range(16):
            if best[used, 0] == none:
                continue
            new[used:] = np.maximum(new[used:], best[used] + rows[:16 - used])
        best = new
    total = np.max(best + t[ROW_OFF + b * 16:][:16][::-1], axis=0)   # the rest are off
    levels = [(ROW_RUN + b * 25, 25), (ROW_RELEASED + b, 1), (ROW_BEAR + b, 1), (ROW_TRAPPED + b * 16, 16),
              (ROW_BLOCKED + b * 91, 91), (ROW_ESCAPED + b * 16, 16)]
    if len(table) == GIOUL_QNET_ROWS:
        levels.append((ROW_ROLLS + b * 4, 4))
    for first, count in levels:
        total += np.maximum(np.max(t[first:first + count], axis=0), 0)    # each feature may be absent (0)
    return total


def accumulator_bounds(bias, table):
    """(lowest, highest) accumulator of each lane over every position (of a Gioul table: every
    state), bounded from above and below: the bias, both sides' extremes, the contact row and
    (Gioul) the pending dice, each number at its extreme count (int64 arrays)."""
    t = table.astype(np.int64)
    shared_high, shared_low = np.maximum(t[ROW_CONTACT], 0), np.minimum(t[ROW_CONTACT], 0)
    if len(table) == GIOUL_QNET_ROWS:
        dice = t[ROW_DICE:ROW_DICE + 30].reshape(6, 5, -1)      # count 0 rows are zero: "absent"
        flags = t[ROW_HANDED:ROW_CHAIN + 1]
        shared_high = shared_high + dice.max(axis=1).sum(axis=0) + np.maximum(flags, 0).sum(axis=0)
        shared_low = shared_low + dice.min(axis=1).sum(axis=0) + np.minimum(flags, 0).sum(axis=0)
    high = bias.astype(np.int64) + _side_extremes(table, 0, 1) + _side_extremes(table, 1, 1) + shared_high
    low = bias.astype(np.int64) - _side_extremes(table, 0, -1) - _side_extremes(table, 1, -1) + shared_low
    return low, high


def _quantise(values, int s):
    return np.rint(values * 2.0 ** s)


cdef object _quantised_tables(QNetC* q, NetModel net, bint gioul):
    """Fill `q` with `net`'s int16 tables at the finest safe scales (the top of this file) and
    return (bias, rows, w2), the arrays q points into: the caller keeps them alive."""
    net_checked(net)
    cdef int hidden = net.c.hidden
    cdef int lanes = (hidden + QNET_LANES - 1) // QNET_LANES * QNET_LANES
    params = np.asarray(net._params)
    if not np.all(np.isfinite(params)):
        raise InvalidArgumentError("the net has non-finite weights")
    rows, b1, w2, b2 = _float_tables(params, hidden, gioul)
    table = np.zeros((len(rows), lanes), dtype=np.int16)
    bias = np.zeros(lanes, dtype=np.int16)
    for s1 in range(S1_MAX, -1, -1):     # the finest scale at which no accumulator can leave int16
        t, c = _quantise(rows, s1), _quantise(b1, s1)
        if np.max(np.abs(t)) > 32767 or np.max(np.abs(c)) > 32767:
            continue
        table[:, :hidden] = t
        bias[:hidden] = c
        low, high = accumulator_bounds(bias, table)
        if low.min() >= -32768 and high.max() <= 32767:
            break
    else:
        raise InvalidArgumentError("the net's first layer does not fit int16 accumulators at any scale")
    # the output kernel adds 16 products a w2q, 0 <= a <= top, in int32
    top = max(int(high.max()), 1)
    for s2 in range(S2_MAX, -1, -1):
        w = _quantise(w2, s2)
        peak = np.max(np.abs(w))
        if peak <= 32767 and 16 * top * peak <= 2 ** 31 - 1:
            break
    else:
        raise InvalidArgumentError("the net's output weights do not fit int16 at any scale")
    out = np.zeros((NET_OUTPUTS, lanes), dtype=np.int16)
    out[:, :hidden] = w
    cdef const int16_t[:, ::1] rows_view = table
    cdef const int16_t[::1] bias_view = bias
    cdef const int16_t[:, ::1] w2_view = out
    q.hidden = hidden
    q.lanes = lanes
    q.s1 = s1
    q.s2 = s2
    q.rows = &rows_view[0, 0]
    q.bias = &bias_view[0]
    q.w2 = &w2_view[0, 0]
    for k in range(NET_OUTPUTS):
        q.b2[k] = b2[k]
    return bias, table, out


cdef object _snapshot(NetModel self, QNetC* q, NetModel net, bint gioul):
    """Quantise `net` into `q` and bind `self` to the float net it was made from, as it is (its
    `hidden`; nothing evaluates it); returns the int16 arrays `q` points into, for `self` to
    keep alive."""
    tables = _quantised_tables(q, net, gioul)
    self.c = net.c
    self._params = net._params
    self.value = net.value
    self.step = net.step
    return tables


cdef tuple _arrays_of(NetModel net):
    return (<QuantisedNet> net)._tables if isinstance(net, QuantisedNet) else (<QuantisedGioulNet> net)._tables


class _Snapshot:
    """What the quantised nets of both games share: scales and tables, and no training. A
    mixin: each derives its C layout from its game's float net type (single inheritance)."""

    __slots__ = ()

    @property
    def s1(self):
        """log2 of the first layer's scale: weights and accumulators are 2^s1 x the float values."""
        return net_quantised(<NetModel> self).s1

    @property
    def s2(self):
        """log2 of the output weights' scale."""
        return net_quantised(<NetModel> self).s2

    def tables(self):
        """(bias (lanes,), rows (ROWS, or GIOUL_ROWS for a Gioul net, lanes), w2 (3, lanes)), int16 copies."""
        net_checked(<NetModel> self)
        return tuple(t.copy() for t in _arrays_of(<NetModel> self))


cdef object _refuse_training():
    raise InvalidArgumentError("a quantised net cannot be trained: train the float net and quantise it again")


cdef class QuantisedNet(CoreNet, _Snapshot):
    """A float net in int16 tables (qnet.pyx): fast, deterministic, within docs/net.md's bounds.
    A CoreNet, so the core's entry points that take a Fevga net take it and evaluate with its
    tables (net_quantised); it cannot be trained (a snapshot of the float net).

    >>> from fevga import Net
    >>> q = QuantisedNet(Net.default()._core)
    >>> (q.s1, q.s2)
    (9, 12)
    """

    def __init__(self, CoreNet net not None):
        self._tables = _snapshot(self, &self.q, net, False)

    def train_rows(self, rows, targets, float rate):
        """Refused: a quantised net is a snapshot for inference; train the float net it came from."""
        _refuse_training()

    def evaluate_rows(self, const uint8_t[:, ::1] rows not None):
        """(n, 3) float64: win, win_mars, lose_mars for the side on roll of each valid row."""
        net_checked(self)
        rows_checked(rows)
        return net_evaluate_loop(&self.q, rows, _row_value)

    def evaluate_moves(self, const uint8_t[:, ::1] rows not None, const uint8_t[:, ::1] dice not None,
                       int flags=0):
        """Every legal move of each (row, dice) pair, its result evaluated incrementally:
        (offsets int64 (n + 1,), outputs float64 (m, 3)), pair i's moves in rows
        offsets[i]:offsets[i + 1], in the generator's order (movegen.generate_batch's), each
        for the side on roll of the result (the opponent)."""
        cdef Py_ssize_t i, n = rows.shape[0], total = 0
        cdef int k, count
        cdef PositionC pos, child
        cdef QParentC shared
        cdef ScratchC scratch
        _check_pairs(rows, dice, flags)
        offsets = np.zeros(n + 1, dtype=np.int64)
        cdef int64_t[::1] offsets_view = offsets
        values = np.empty((max(16, 8 * n), NET_OUTPUTS), dtype=np.float64)
        cdef double[:, ::1] view = values
        scratch_new(&scratch, 1)
        try:
            for i in range(n):
                with nogil:
                    check_interrupt_every(i, 4096)
                    position_load(&pos, &rows[i, 0])
                    count = generate_moves(&pos, dice[i, 0], dice[i, 1], flags, scratch.moves, scratch.ws)
                moves_checked(count)
                if total + count > view.shape[0]:
                    values = np.resize(values, (max(2 * view.shape[0], total + count), NET_OUTPUTS))
                    view = values
                with nogil:
                    qnet_parent(&self.q, &pos, &shared)
                    for k in range(count):
                        child = pos
                        apply_move(&child, &scratch.moves[k])
                        qnet_result(&self.q, &shared, &scratch.moves[k], &child, &view[total + k, 0])
                total += count
                offsets_view[i + 1] = total
        finally:
            scratch_free(&scratch)
        return offsets, values[:total].copy()



cdef class QuantisedGioulNet(CoreGioulNet, _Snapshot):
    """A Gioul net in int16 tables (qnet.pyx: Fevga's layout and the Gioul rows): a
    CoreGioulNet, so the core's entry points that take a Gioul net take it and evaluate with
    its tables; it cannot be trained (a snapshot of the float net)."""

    def __init__(self, CoreGioulNet net not None):
        self._tables = _snapshot(self, &self.q, net, True)

    def train_rows(self, rows, targets, float rate):
        """Refused: a quantised net is a snapshot for inference; train the float net it came from."""
        _refuse_training()

    def evaluate_rows(self, const uint8_t[:, ::1] rows not None):
        """(n, 3) float64: win, win_mars, lose_mars for the side to decide of each valid Gioul state row."""
        net_checked(self)
        gioul_rows_checked(rows)
        return net_evaluate_loop(&self.q, rows, _state_value)


cdef void _state_value(const void* q, const uint8_t* row, double* out) noexcept nogil:
    cdef GioulC s
    gioul_load(&s, row)
    qnet_evaluate(<const QNetC*> q, &s, out)


def relation_counts_rows(const uint8_t[:, ::1] rows not None):
    """(n, 2, 3) int32: the trapped, blocked and escaped checkers of each valid row's side on
    roll (then of the other side) as the tables read them (net.pyx relation_counts, here by
    the SIMD kernel where there is one): what tests/test_qnet.py checks against the float
    net's encoding."""
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef int b
    cdef PositionC pos
    cdef RelationC rel
    rows_checked(rows)
    out = np.zeros((n, 2, 3), dtype=np.int32)
    cdef int32_t[:, :, ::1] view = out
    for i in range(n):
        position_load(&pos, &rows[i, 0])
        for b in range(2):
            _relations(&pos.side[pos.turn ^ b], &pos.side[pos.turn ^ b ^ 1], &rel)
            view[i, b, 0] = rel.trapped
            view[i, b, 1] = rel.blocked
            view[i, b, 2] = rel.escaped
    return out


cdef void _row_value(const void* q, const uint8_t* row, double* out) noexcept nogil:
    cdef PositionC pos
    _load_board(&pos, row)
    qnet_evaluate(<const QNetC*> q, &pos, out)


cdef void _load_board(PositionC* pos, const uint8_t* row) noexcept nogil:
    """position_load with the points masks made by vector code (pos stays local)."""
    cdef int color
    for color in range(2):
        memcpy(pos.side[color].counts, row + color * NUM_SLOTS, NUM_SLOTS)
        pos.side[color].mask = fevga_q_points_mask(row + color * NUM_SLOTS)
    pos.turn = row[2 * NUM_SLOTS]


cdef int _check_pairs(const uint8_t[:, ::1] rows, const uint8_t[:, ::1] dice, int flags) except -1:
    rows_checked(rows)
    fevga_flags_checked(flags)
    dice_shape_checked(dice, rows.shape[0])
    d = np.asarray(dice)
    if d.size and not np.all((d >= 1) & (d <= 6)):
        raise InvalidDiceError(f"dice row {int(np.argmax(np.any((d < 1) | (d > 6), axis=1)))} has values outside 1-6")
    return 0
