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
# its checkers unchanged, so qnet_parent sums the bias, the opponent's own rows (b = 0), the
# mover's own rows before the move (b = 1) and the contact row once; a result adds the rows
# of what its move changed (points its steps touched, off, run, released, bear-off, contact)
# minus the old ones, and its relation rows (Gioul: and its roll-count and pending-dice
# rows). The result is the same integer accumulator as a fresh evaluation. (A Gioul result
# that leaves the mover to decide, a chain's next block, is evaluated afresh: search.pyx.)
#
# SIMD: two kernels, written once (FEVGA_Q_KERNELS) over an instruction set's vectors:
# update (a parent's accumulator, stored) and evaluate (a result's or a position's
# accumulator, kept in registers block by block and fed straight to the output layer, so
# it is never stored). x86-64 has SSE2 and AVX2 instances, in intrinsics; other targets one
# in GCC/Clang vector extensions. On x86-64 setup.py defines FEVGA_SIMD_DISPATCH: the SSE2
# kernels are the baseline and the AVX2 ones are compiled with target("avx2"), and
# fevga_q_select() picks one at import by the CPU (__builtin_cpu_supports), so one wheel runs
# on any x86-64 machine (qnet.SIMD names the path). On aarch64 the vector-extension kernels
# compile to NEON; elsewhere to what the target has. FEVGA_SIMD=generic builds that portable
# path on x86-64 too, to check it where CI runs.
# The relation inputs of a position (trapped, blocked, escaped: net.pyx relation_counts) are
# counted by two SSE2 kernels over the 24 points on x86-64 (fevga_q_front, fevga_q_counts;
# a roll's results share the mover's front, the opponent's points), by relation_counts
# itself elsewhere and in the generic build: the same integers.
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
    #define FEVGA_Q_INLINE static inline __attribute__((always_inline))

    /* The two kernels, written once (FEVGA_Q_KERNELS) over an instruction set ISA's vectors:
         update:   dst = src + the rows add[0..na) - the rows sub[0..ns), over `lanes` lanes;
         evaluate: that accumulator's output layer, dots[k] = sum_j max(acc_j, 0) w2[k][j]
                   (k = 0, 1, 2), the accumulator never stored.
       Lanes go in blocks of 8 vectors held in registers while the rows stream past (lanes is a
       multiple of QNET_LANES = 128, so of every block). The accumulator adds in wrapping 16-bit
       arithmetic: exact, as qnet.pyx bounds every true sum inside int16. The products go
       pmaddwd-style into int32 lanes, each adding the 16 products of one block (8 madds; the
       scale of w2 keeps that below 2^31), widened to int64 after each block: exact, so the dots
       are the same integers whatever the instruction set.
       An ISA names fevga_q_<op>_<ISA>: types v (W = fevga_q_width_<ISA> int16 lanes), s (its
       int32 sums) and wide (int64 sums); functions ld (unaligned load), st, add, sub, relu (max
       with 0), madd, sadd (int32 add), zero, szero, wzero, widen (wide += s's lanes) and total
       (the sum of wide's lanes). */
    #define FEVGA_Q(op, ISA) fevga_q_##op##_##ISA
    #define FEVGA_Q_X8(M, ISA) M(ISA, 0) M(ISA, 1) M(ISA, 2) M(ISA, 3) M(ISA, 4) M(ISA, 5) M(ISA, 6) M(ISA, 7)
    #define FEVGA_Q_W(ISA) FEVGA_Q(width, ISA)
    #define FEVGA_Q_LOAD(ISA, i) FEVGA_Q(v, ISA) a##i = FEVGA_Q(ld, ISA)(src + j + i * FEVGA_Q_W(ISA));
    #define FEVGA_Q_ADD(ISA, i) a##i = FEVGA_Q(add, ISA)(a##i, FEVGA_Q(ld, ISA)(r + i * FEVGA_Q_W(ISA)));
    #define FEVGA_Q_SUB(ISA, i) a##i = FEVGA_Q(sub, ISA)(a##i, FEVGA_Q(ld, ISA)(r + i * FEVGA_Q_W(ISA)));
    #define FEVGA_Q_STORE(ISA, i) FEVGA_Q(st, ISA)(dst + j + i * FEVGA_Q_W(ISA), a##i);
    #define FEVGA_Q_RELU(ISA, i) a##i = FEVGA_Q(relu, ISA)(a##i);
    #define FEVGA_Q_MADD(ISA, i) s = FEVGA_Q(sadd, ISA)(s, FEVGA_Q(madd, ISA)(a##i, FEVGA_Q(ld, ISA)(w + i * FEVGA_Q_W(ISA))));
    #define FEVGA_Q_DOT(ISA, t, k) {       /* one output at a time: fewer registers live */    \
            const int16_t* w = w2 + k * lanes + j;                                            \
            FEVGA_Q(s, ISA) s = FEVGA_Q(szero, ISA)();                                        \
            FEVGA_Q_X8(FEVGA_Q_MADD, ISA)                                                     \
            t = FEVGA_Q(widen, ISA)(t, s); }
    #define FEVGA_Q_BLOCK(ISA)                                                                \
            FEVGA_Q_X8(FEVGA_Q_LOAD, ISA)                                                     \
            _Pragma("GCC unroll 2")    /* most results add more rows than they subtract */      \
            for (k = 0; k < na; k++) { const int16_t* r = add[k] + j; FEVGA_Q_X8(FEVGA_Q_ADD, ISA) } \
            for (k = 0; k < ns; k++) { const int16_t* r = sub[k] + j; FEVGA_Q_X8(FEVGA_Q_SUB, ISA) }
    #define FEVGA_Q_KERNELS(ISA, ATTR)                                                        \
        ATTR static void fevga_q_update_##ISA(int16_t* dst, const int16_t* src, const int16_t* const* add, \
                                              int na, const int16_t* const* sub, int ns, int lanes) { \
            int j, k;                                                                         \
            for (j = 0; j < lanes; j += 8 * FEVGA_Q_W(ISA)) {                                 \
                FEVGA_Q_BLOCK(ISA)                                                            \
                FEVGA_Q_X8(FEVGA_Q_STORE, ISA)                                                \
            }                                                                                 \
        }                                                                                     \
        ATTR static void fevga_q_evaluate_##ISA(const int16_t* src, const int16_t* const* add, int na, \
                                                const int16_t* const* sub, int ns, int lanes, \
                                                const int16_t* w2, int64_t* dots) {           \
            FEVGA_Q(wide, ISA) t0 = FEVGA_Q(wzero, ISA)(), t1 = t0, t2 = t0;                  \
            int j, k;                                                                         \
            for (j = 0; j < lanes; j += 8 * FEVGA_Q_W(ISA)) {                                 \
                FEVGA_Q_BLOCK(ISA)                                                            \
                FEVGA_Q_X8(FEVGA_Q_RELU, ISA)                                                 \
                FEVGA_Q_DOT(ISA, t0, 0)                                                       \
                FEVGA_Q_DOT(ISA, t1, 1)                                                       \
                FEVGA_Q_DOT(ISA, t2, 2)                                                       \
            }                                                                                 \
            dots[0] = FEVGA_Q(total, ISA)(t0);                                                \
            dots[1] = FEVGA_Q(total, ISA)(t1);                                                \
            dots[2] = FEVGA_Q(total, ISA)(t2);                                                \
        }

    #if defined(__x86_64__) && !defined(FEVGA_SIMD_GENERIC)
    #include <immintrin.h>
    /* The ops of an x86 instruction set ISA (ATTR: its target attribute) whose intrinsics are
       named _mm<P>_... over __m<BITS>i vectors of LANES int16 lanes (widen and total apart). */
    #define FEVGA_Q_X86_OPS(ISA, ATTR, P, BITS, LANES)                                        \
        enum { fevga_q_width_##ISA = LANES };                                                 \
        typedef __m##BITS##i fevga_q_v_##ISA;                                                 \
        typedef __m##BITS##i fevga_q_s_##ISA;                                                 \
        typedef __m##BITS##i fevga_q_wide_##ISA;                                              \
        ATTR FEVGA_Q_INLINE __m##BITS##i fevga_q_ld_##ISA(const int16_t* p) {                \
            return _mm##P##_loadu_si##BITS((const __m##BITS##i*) p); }                         \
        ATTR FEVGA_Q_INLINE void fevga_q_st_##ISA(int16_t* p, __m##BITS##i v) {              \
            _mm##P##_storeu_si##BITS((__m##BITS##i*) p, v); }                                  \
        ATTR FEVGA_Q_INLINE __m##BITS##i fevga_q_add_##ISA(__m##BITS##i a, __m##BITS##i b) { \
            return _mm##P##_add_epi16(a, b); }                                                 \
        ATTR FEVGA_Q_INLINE __m##BITS##i fevga_q_sub_##ISA(__m##BITS##i a, __m##BITS##i b) { \
            return _mm##P##_sub_epi16(a, b); }                                                 \
        ATTR FEVGA_Q_INLINE __m##BITS##i fevga_q_szero_##ISA(void) { return _mm##P##_setzero_si##BITS(); } \
        ATTR FEVGA_Q_INLINE __m##BITS##i fevga_q_wzero_##ISA(void) { return _mm##P##_setzero_si##BITS(); } \
        ATTR FEVGA_Q_INLINE __m##BITS##i fevga_q_relu_##ISA(__m##BITS##i a) {                \
            return _mm##P##_max_epi16(a, _mm##P##_setzero_si##BITS()); }                       \
        ATTR FEVGA_Q_INLINE __m##BITS##i fevga_q_madd_##ISA(__m##BITS##i a, __m##BITS##i w) { \
            return _mm##P##_madd_epi16(a, w); }                                                \
        ATTR FEVGA_Q_INLINE __m##BITS##i fevga_q_sadd_##ISA(__m##BITS##i a, __m##BITS##i b) { \
            return _mm##P##_add_epi32(a, b); }

    /* SSE2, the x86-64 baseline: 8 lanes a vector, blocks of 64. */
    FEVGA_Q_X86_OPS(sse2, , , 128, 8)
    FEVGA_Q_INLINE __m128i fevga_q_widen_sse2(__m128i t, __m128i s) {    /* the 4 int32 lanes sign-extended */
        __m128i sign = _mm_srai_epi32(s, 31);
        return _mm_add_epi64(_mm_add_epi64(t, _mm_unpacklo_epi32(s, sign)), _mm_unpackhi_epi32(s, sign));
    }
    FEVGA_Q_INLINE int64_t fevga_q_total_sse2(__m128i t) {
        return _mm_cvtsi128_si64(t) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(t, t));
    }
    FEVGA_Q_KERNELS(sse2, )
    #define fevga_q_update_base fevga_q_update_sse2
    #define fevga_q_evaluate_base fevga_q_evaluate_sse2

    #if defined(FEVGA_SIMD_DISPATCH)
    /* AVX2, taken at import where the CPU has it: 16 lanes a vector, blocks of 128. */
    #define FEVGA_Q_AVX2 __attribute__((target("avx2")))
    FEVGA_Q_X86_OPS(avx2, FEVGA_Q_AVX2, 256, 256, 16)
    FEVGA_Q_AVX2 FEVGA_Q_INLINE __m256i fevga_q_widen_avx2(__m256i t, __m256i s) {
        return _mm256_add_epi64(_mm256_add_epi64(t, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(s))),
                                _mm256_cvtepi32_epi64(_mm256_extracti128_si256(s, 1)));
    }
    FEVGA_Q_AVX2 FEVGA_Q_INLINE int64_t fevga_q_total_avx2(__m256i t) {
        __m128i half = _mm_add_epi64(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
        return _mm_cvtsi128_si64(half) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(half, half));
    }
    FEVGA_Q_KERNELS(avx2, FEVGA_Q_AVX2)
    #endif

    #else
    /* Elsewhere (and FEVGA_SIMD=generic): GCC/Clang vector extensions, which compile to what the
       target has (aarch64: NEON): 16 lanes a vector, the products widened to 32 bits. */
    enum { fevga_q_width_generic = 16 };
    typedef uint16_t fevga_q_v_generic __attribute__((vector_size(32)));    /* wrapping */
    typedef int16_t fevga_q_i16_generic __attribute__((vector_size(32)));
    typedef int16_t fevga_q_half_generic __attribute__((vector_size(16)));
    typedef int32_t fevga_q_s_generic __attribute__((vector_size(32)));
    typedef int64_t fevga_q_wide_generic __attribute__((vector_size(32)));
    FEVGA_Q_INLINE fevga_q_v_generic fevga_q_ld_generic(const int16_t* p) {
        fevga_q_v_generic v;
        memcpy(&v, p, 32);
        return v;
    }
    FEVGA_Q_INLINE void fevga_q_st_generic(int16_t* p, fevga_q_v_generic v) { memcpy(p, &v, 32); }
    FEVGA_Q_INLINE fevga_q_v_generic fevga_q_add_generic(fevga_q_v_generic a, fevga_q_v_generic b) { return a + b; }
    FEVGA_Q_INLINE fevga_q_v_generic fevga_q_sub_generic(fevga_q_v_generic a, fevga_q_v_generic b) { return a - b; }
    FEVGA_Q_INLINE fevga_q_v_generic fevga_q_relu_generic(fevga_q_v_generic a) {
        fevga_q_i16_generic x = (fevga_q_i16_generic) a;
        return (fevga_q_v_generic) (x & (x > (fevga_q_i16_generic) {0}));
    }
    FEVGA_Q_INLINE fevga_q_s_generic fevga_q_madd_generic(fevga_q_v_generic a, fevga_q_v_generic w) {
        fevga_q_half_generic a0, a1, w0, w1;      /* pmaddwd: adjacent products added in pairs */
        memcpy(&a0, &a, 16);
        memcpy(&a1, (const char*) &a + 16, 16);
        memcpy(&w0, &w, 16);
        memcpy(&w1, (const char*) &w + 16, 16);
        return __builtin_convertvector(a0, fevga_q_s_generic) * __builtin_convertvector(w0, fevga_q_s_generic)
               + __builtin_convertvector(a1, fevga_q_s_generic) * __builtin_convertvector(w1, fevga_q_s_generic);
    }
    FEVGA_Q_INLINE fevga_q_s_generic fevga_q_sadd_generic(fevga_q_s_generic a, fevga_q_s_generic b) { return a + b; }
    FEVGA_Q_INLINE fevga_q_s_generic fevga_q_szero_generic(void) { return (fevga_q_s_generic) {0}; }
    FEVGA_Q_INLINE fevga_q_wide_generic fevga_q_wzero_generic(void) { return (fevga_q_wide_generic) {0}; }
    FEVGA_Q_INLINE fevga_q_wide_generic fevga_q_widen_generic(fevga_q_wide_generic t, fevga_q_s_generic s) {
        fevga_q_wide_generic lo = {s[0], s[1], s[2], s[3]}, hi = {s[4], s[5], s[6], s[7]};
        return t + lo + hi;
    }
    FEVGA_Q_INLINE int64_t fevga_q_total_generic(fevga_q_wide_generic t) { return t[0] + t[1] + t[2] + t[3]; }
    FEVGA_Q_KERNELS(generic, )
    #define fevga_q_update_base fevga_q_update_generic
    #define fevga_q_evaluate_base fevga_q_evaluate_generic
    #endif

    /* net.pyx relation_counts for all 24 points at once (SSE2), in two steps: fevga_q_front
       reads the other side's points `theirs` (its mask in this side's numbering) into window[i] =
       its points among own points i - 5 .. i (the six in front of own point i + 1; lanes 0-15 are
       points 1-16, lanes 16-23 points 17-24) and *limit = the lane of its lowest point (24: none);
       fevga_q_counts counts the trapped, blocked and escaped checkers of the side whose point
       counts are counts[1..24] against it. The other side of a roll's results does not move, so
       the results of one roll share its front (qnet_parent). Integer counts: the same numbers. */
    #if defined(__x86_64__) && !defined(FEVGA_SIMD_GENERIC)
    #define FEVGA_Q_RELATION_SIMD 1
    static inline void fevga_q_front(uint32_t theirs, uint8_t* window, int* limit) {
        const __m128i zero = _mm_setzero_si128();
        const __m128i bits = _mm_set_epi8(-128, 64, 32, 16, 8, 4, 2, 1, -128, 64, 32, 16, 8, 4, 2, 1);
        const __m128i one = _mm_set1_epi8(1);
        uint8_t points[48];
        __m128i x, t_lo, t_hi, f_lo = zero, f_hi = zero;
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
        _mm_storeu_si128((__m128i*) window, f_lo);
        _mm_storeu_si128((__m128i*) (window + 16), f_hi);
        *limit = theirs ? __builtin_ctz(theirs) : 24;
    }
    static inline void fevga_q_counts(const uint8_t* counts, const uint8_t* window, int limit, int* trapped,
                                      int* blocked, int* escaped) {
        const __m128i zero = _mm_setzero_si128(), six = _mm_set1_epi8(6);
        __m128i f_lo = _mm_loadu_si128((const __m128i*) window), f_hi = _mm_loadu_si128((const __m128i*) (window + 16));
        __m128i n_lo, n_hi, b, s, lanes;
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
        /* escaped: below the other side's lowest point (lane i < limit) */
        lanes = _mm_set1_epi8((char) limit);
        s = _mm_add_epi64(
            _mm_sad_epu8(_mm_and_si128(n_lo, _mm_cmplt_epi8(_mm_set_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), lanes)), zero),
            _mm_sad_epu8(_mm_and_si128(n_hi, _mm_cmplt_epi8(_mm_set_epi8(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16), lanes)), zero));
        *escaped = _mm_cvtsi128_si32(s) + _mm_extract_epi16(s, 4);
    }
    #else
    #define FEVGA_Q_RELATION_SIMD 0      /* net.pyx relation_counts serves (never called) */
    #define fevga_q_front(theirs, window, limit) ((void) 0)
    #define fevga_q_counts(counts, window, limit, trapped, blocked, escaped) ((void) 0)
    #endif

    static void (*fevga_q_update)(int16_t*, const int16_t*, const int16_t* const*, int, const int16_t* const*,
                                  int, int) = fevga_q_update_base;
    static void (*fevga_q_evaluate)(const int16_t*, const int16_t* const*, int, const int16_t* const*, int, int,
                                    const int16_t*, int64_t*) = fevga_q_evaluate_base;

    /* Pick the kernels: the CPU's best (at import) or, best = 0, the baseline (tests compare
       the two); returns the name of the path taken. */
    static const char* fevga_q_select(int best) {
    #if defined(FEVGA_SIMD_GENERIC)
        return "generic";
    #elif defined(FEVGA_SIMD_DISPATCH) && defined(__x86_64__)
        __builtin_cpu_init();
        if (best && __builtin_cpu_supports("avx2")) {
            fevga_q_update = fevga_q_update_avx2;
            fevga_q_evaluate = fevga_q_evaluate_avx2;
            return "avx2";
        }
        fevga_q_update = fevga_q_update_base;
        fevga_q_evaluate = fevga_q_evaluate_base;
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
    void fevga_q_evaluate(const int16_t* src, const int16_t* const* add, int na, const int16_t* const* sub, int ns,
                          int lanes, const int16_t* w2, int64_t* dots) noexcept nogil
    const char* fevga_q_select(int best) noexcept nogil
    enum: FEVGA_Q_RELATION_SIMD
    void fevga_q_front(uint32_t theirs, uint8_t* window, int* limit) noexcept nogil
    void fevga_q_counts(const uint8_t* counts, const uint8_t* window, int limit, int* trapped, int* blocked,
                        int* escaped) noexcept nogil

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
    """net.pyx relation_counts: the SSE2 kernels on x86-64, else relation_counts itself."""
    cdef uint8_t window[32]
    cdef int limit
    if FEVGA_Q_RELATION_SIMD:
        fevga_q_front(rotate12(other.mask), window, &limit)
        fevga_q_counts(side.counts, window, limit, &rel.trapped, &rel.blocked, &rel.escaped)
    else:
        relation_counts(side, other, rel)


cdef inline void _change(const QNetC* q, RowsC* r, int base, int old, int new) noexcept nogil:
    """The rows that take a feature whose level l has the row base + l (level 0: no row) from
    level old to level new."""
    if old != new:
        if old:
            _sub(q, r, base + old)
        if new:
            _add(q, r, base + new)


cdef void _relation_rows(const QNetC* q, const RelationC* rel, RowsC* r) noexcept nogil:
    """The rows of the relation inputs of both sides, rel[0] of the side on roll; contact apart."""
    cdef int b
    for b in range(2):
        _change(q, r, ROW_TRAPPED + b * 16, 0, rel[b].trapped)
        _change(q, r, ROW_BLOCKED + b * 91, 0, rel[b].blocked)
        _change(q, r, ROW_ESCAPED + b * 16, 0, rel[b].escaped)


cdef void _evaluate(const QNetC* q, const int16_t* src, const RowsC* r, double* out) noexcept nogil:
    """Probabilities of the accumulator src + r's rows: the output layer and the sigmoids."""
    cdef int64_t dots[NET_OUTPUTS]
    cdef double logits[NET_OUTPUTS]
    cdef double scale = 1.0 / <double> (1 << (q.s1 + q.s2))
    cdef int k
    fevga_q_evaluate(src, r.add, r.nadd, r.sub, r.nsub, q.lanes, q.w2, dots)
    for k in range(NET_OUTPUTS):
        logits[k] = q.b2[k] + <double> dots[k] * scale
    logit_probabilities(logits, out)


cdef void qnet_evaluate(const QNetC* q, const StateC* s, double* out) noexcept nogil:
    cdef RowsC r
    cdef RelationC rel[2]
    cdef const PositionC* pos = state_board(s)
    cdef bint gioul = StateC is GioulC
    r.nadd = 0
    r.nsub = 0
    _own_rows(q, &pos.side[pos.turn], 0, gioul, &r)
    _own_rows(q, &pos.side[pos.turn ^ 1], 1, gioul, &r)
    _relations(&pos.side[pos.turn], &pos.side[pos.turn ^ 1], &rel[0])
    _relations(&pos.side[pos.turn ^ 1], &pos.side[pos.turn], &rel[1])
    _relation_rows(q, rel, &r)
    _change(q, &r, ROW_CONTACT - 1, 0, position_contact(pos))
    if StateC is GioulC:
        _gioul_rows(q, s, &r)
    _evaluate(q, q.bias, &r, out)


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
    shared.contact = position_contact(parent)                      # a move rarely changes it
    _change(q, &r, ROW_CONTACT - 1, 0, shared.contact)
    if FEVGA_Q_RELATION_SIMD:                                       # the mover's relations face it
        fevga_q_front(rotate12(parent.side[parent.turn ^ 1].mask), shared.front, &shared.front_limit)
    fevga_q_update(shared.acc, q.bias, r.add, r.nadd, r.sub, r.nsub, q.lanes)


cdef void qnet_result(const QNetC* q, const QParentC* shared, const MoveC* move, const StateC* s,
                      double* out) noexcept nogil:
    cdef const PositionC* child = state_board(s)
    cdef RowsC r
    cdef const SideC* before = &shared.parent.side[shared.parent.turn]
    cdef const SideC* after = &move.after
    cdef uint32_t touched = 0
    cdef int k, p
    cdef RelationC rel[2]
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
        _change(q, &r, ROW_POINT + (24 + p - 1) * 16, before.counts[p], after.counts[p])
    own_features(after, &f1)
    _change(q, &r, ROW_OFF + 16, f0.off, f1.off)
    _change(q, &r, ROW_RUN + 25, f0.run, f1.run)
    if StateC is PositionC:
        _change(q, &r, ROW_RELEASED, f0.released, f1.released)     # level 1: row ROW_RELEASED + 1 (b = 1)
    _change(q, &r, ROW_BEAR, f0.bear, f1.bear)
    _relations(&child.side[child.turn], after, &rel[0])            # the opponent's, on roll
    if FEVGA_Q_RELATION_SIMD:                                       # the mover's, against the unmoved opponent
        fevga_q_counts(after.counts, shared.front, shared.front_limit, &rel[1].trapped, &rel[1].blocked,
                       &rel[1].escaped)
    else:
        relation_counts(after, &child.side[child.turn], &rel[1])
    _relation_rows(q, rel, &r)
    _change(q, &r, ROW_CONTACT - 1, shared.contact, position_contact(child))
    if StateC is GioulC:
        _gioul_rows(q, s, &r)
    _evaluate(q, shared.acc, &r, out)


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
    position_load(&pos, row)
    qnet_evaluate(<const QNetC*> q, &pos, out)


cdef int _check_pairs(const uint8_t[:, ::1] rows, const uint8_t[:, ::1] dice, int flags) except -1:
    rows_checked(rows)
    fevga_flags_checked(flags)
    dice_shape_checked(dice, rows.shape[0])
    d = np.asarray(dice)
    if d.size and not np.all((d >= 1) & (d <= 6)):
        raise InvalidDiceError(f"dice row {int(np.argmax(np.any((d < 1) | (d > 6), axis=1)))} has values outside 1-6")
    return 0
