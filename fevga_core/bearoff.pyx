"""Bear-off database kernels: ranking, bear-off move generation, table builds, batch lookups.

The index layout is drawn in bearoff.pxd. Builds run in chunks (rank ranges for the one-sided
table, max-rank shells for the two-sided one) so that Python can show progress and stop on
Ctrl-C between chunks; every chunk runs without the GIL.
"""

from libc.stdint cimport int64_t, int32_t, uint8_t, uint16_t
from libc.stdlib cimport malloc, calloc, realloc, free, qsort
from libc.string cimport memset, memcpy
from libc.math cimport sqrt, NAN
from cpython.exc cimport PyErr_CheckSignals

import numpy as np
cimport numpy as cnp

from fevga_core.types cimport NUM_ROLLS
from fevga_core.board cimport ROLL_D1, ROLL_D2, ROLL_COUNT

from fevga_core.errors import InvalidArgumentError, InvalidDiceError, InvalidPositionError

cnp.import_array()

cdef enum:
    ONE_SIDED_CHUNK = 1 << 12   # ranks built between two Ctrl-C checks

cdef int64_t BINOM[BINOM_SIZE][BINOM_SIZE]


cdef void _init_binomials() noexcept nogil:
    cdef int n, k
    for n in range(BINOM_SIZE):
        for k in range(BINOM_SIZE):
            BINOM[n][k] = 0
        BINOM[n][0] = 1
        for k in range(1, n + 1):
            BINOM[n][k] = BINOM[n - 1][k - 1] + BINOM[n - 1][k]


_init_binomials()

# The games a table can be built for. In a Gioul race (docs/rules.md 11.7) no die is ever
# handed over and every double is a chain (the tables assume both sides are at their fourth
# roll or later): d-d plays a block of four d, then four d+1, ... up to four 6s, each block
# a decision of the same player. Non-doubles and Fevga doubles are the same in both games.
GAMES = ("fevga", "gioul")
cdef enum:
    GAME_FEVGA = 0
    GAME_GIOUL = 1


cdef int _game_code(str game) except -1:
    """0 for "fevga", 1 for "gioul"; InvalidArgumentError otherwise."""
    if game == "fevga":
        return GAME_FEVGA
    if game == "gioul":
        return GAME_GIOUL
    raise InvalidArgumentError(f"game={game!r} must be 'fevga' or 'gioul'")


cdef int64_t binomial(int n, int k) noexcept nogil:
    if n < 0 or k < 0 or k > n or n >= BINOM_SIZE:
        return 0
    return BINOM[n][k]


cdef int64_t position_count(int points, int checkers) noexcept nogil:
    return binomial(checkers + points, points)


cdef int64_t position_rank(const uint8_t* counts, int points) noexcept nogil:
    cdef int j, top = 0
    cdef int64_t rank = 0
    for j in range(1, points + 1):
        top += counts[points - j]
        rank += BINOM[top + j - 1][j]
    return rank


cdef void position_unrank(int64_t rank, int points, uint8_t* counts) noexcept nogil:
    cdef int j, b, previous_top = 0
    cdef int tops[MAX_POINTS + 1]
    for j in range(points, 0, -1):
        b = j - 1
        while BINOM[b + 1][j] <= rank:
            b += 1
        rank -= BINOM[b][j]
        tops[j] = b - j + 1
    for j in range(1, points + 1):
        counts[points - j] = <uint8_t>(tops[j] - previous_top)
        previous_top = tops[j]


cdef inline int _highest(const uint8_t* counts, int points) noexcept nogil:
    cdef int k
    for k in range(points, 0, -1):
        if counts[k - 1]:
            return k
    return 0


cdef inline bint _can_play(const uint8_t* counts, int highest, int source, int die) noexcept nogil:
    """May a checker on `source` (occupied) play `die`?  docs/rules.md section 7."""
    if source > die:
        return True
    if highest > 6:
        return False
    return source == die or (source == highest and die > highest)


cdef inline void _apply(uint8_t* counts, int source, int die) noexcept nogil:
    counts[source - 1] -= 1
    if source > die:
        counts[source - 1 - die] += 1


cdef inline void _undo(uint8_t* counts, int source, int die) noexcept nogil:
    counts[source - 1] += 1
    if source > die:
        counts[source - 1 - die] -= 1


cdef int die_successors(uint8_t* counts, int points, int die, int64_t* out) noexcept nogil:
    """Ranks of the positions one die can reach (distinct); `counts` is restored."""
    cdef int k, n = 0, highest = _highest(counts, points)
    for k in range(highest, 0, -1):
        if counts[k - 1] and _can_play(counts, highest, k, die):
            _apply(counts, k, die)
            out[n] = position_rank(counts, points)
            _undo(counts, k, die)
            n += 1
    return n


cdef int _play_rest(uint8_t* counts, int points, const int* dice, int ndice, int index,
                    int max_source, int64_t* out, int n, int capacity) noexcept nogil:
    """Append the final positions of dice[index:] (sources <= max_source) to out; every die is
    playable while a checker is on the board, so only emptied boards end a roll early."""
    cdef int k, highest, die
    if index == ndice or _highest(counts, points) == 0:
        if n < capacity:
            out[n] = position_rank(counts, points)
        return n + 1
    die = dice[index]
    highest = _highest(counts, points)
    for k in range(min(highest, max_source), 0, -1):
        if counts[k - 1] and _can_play(counts, highest, k, die):
            _apply(counts, k, die)
            n = _play_rest(counts, points, dice, ndice, index + 1,
                           k if ndice == 4 else MAX_POINTS, out, n, capacity)
            _undo(counts, k, die)
    return n


cdef int _compare_rank(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0], y = (<const int64_t*>b)[0]
    return (x > y) - (x < y)


cdef int _sort_unique(int64_t* values, int n) noexcept nogil:
    """Sort values[:n] and drop repeats; returns the number kept."""
    cdef int i, m
    if n == 0:
        return 0
    qsort(values, n, sizeof(int64_t), _compare_rank)
    m = 1
    for i in range(1, n):
        if values[i] != values[m - 1]:
            values[m] = values[i]
            m += 1
    return m


cdef int _chain_successors(uint8_t* counts, int points, int die, int64_t* out,
                           int capacity) noexcept nogil:
    """Distinct final positions (ranks) of a Gioul chain from `die`: blocks of four `die`,
    four `die` + 1, ... four 6s, block by block (the set after a block is deduplicated before
    the next block is played from each of its positions); -1 if `capacity` is too small or
    memory runs out. `counts` is left unchanged."""
    cdef int64_t* work = <int64_t*>malloc(capacity * sizeof(int64_t))
    cdef int dice[4]
    cdef uint8_t board[MAX_POINTS]
    cdef int n = 1, m, i, block
    if work == NULL:
        return -1
    out[0] = position_rank(counts, points)
    for block in range(die, 7):
        dice[0] = block; dice[1] = block; dice[2] = block; dice[3] = block
        m = 0
        for i in range(n):
            if out[i] == 0:  # every checker off: the game is over, the chain stops
                if m < capacity:
                    work[m] = 0
                m += 1
                continue
            position_unrank(out[i], points, board)
            m = _play_rest(board, points, dice, 4, 0, MAX_POINTS, work, m, capacity)
            if m > capacity:
                break
        if m > capacity:
            free(work)
            return -1
        n = _sort_unique(work, m)
        memcpy(out, work, n * sizeof(int64_t))
    free(work)
    return n


cdef int roll_successors(uint8_t* counts, int points, int d1, int d2,
                         int64_t* out, int capacity, int game) noexcept nogil:
    """Distinct final positions (ranks) of one roll (a Gioul double is a whole chain);
    -1 if `capacity` is too small."""
    cdef int dice[4]
    cdef int n
    if d1 == d2 and game == GAME_GIOUL:
        return _chain_successors(counts, points, d1, out, capacity)
    if d1 == d2:
        dice[0] = d1; dice[1] = d1; dice[2] = d1; dice[3] = d1
        n = _play_rest(counts, points, dice, 4, 0, MAX_POINTS, out, 0, capacity)
    else:
        dice[0] = d1; dice[1] = d2
        n = _play_rest(counts, points, dice, 2, 0, MAX_POINTS, out, 0, capacity)
        dice[0] = d2; dice[1] = d1
        n = _play_rest(counts, points, dice, 2, 0, MAX_POINTS, out, n, capacity)
    if n > capacity:
        return -1
    return _sort_unique(out, n)


# ---------------------------------------------------------------------------------------------
# Lookups from raw table pointers (declared in the .pxd for C-level callers).

cdef double one_sided_mean(const OneSidedTableC* table, int64_t rank) noexcept nogil:
    return table.mean[rank]


cdef int one_sided_distribution(const OneSidedTableC* table, int64_t rank,
                                double* out, int out_length) noexcept nogil:
    """Write P(rolls = i) for i < out_length into out; returns the table's length needed."""
    cdef int i, start = table.dist_start[rank], length = table.dist_length[rank]
    cdef int64_t offset = table.dist_offset[rank]
    for i in range(out_length):
        out[i] = 0.0
    for i in range(length):
        if start + i < out_length:
            out[start + i] = table.dist_pool[offset + i]
    return start + length


cdef double two_sided_equity(const TwoSidedTableC* table, int64_t on_roll_rank,
                             int64_t opponent_rank) noexcept nogil:
    return table.equity[on_roll_rank * table.positions + opponent_rank]


cdef double two_sided_win(const TwoSidedTableC* table, int64_t on_roll_rank,
                          int64_t opponent_rank) noexcept nogil:
    cdef int64_t index = on_roll_rank * table.positions + opponent_rank
    if table.win != NULL:
        return table.win[index]
    return 0.5 * (1.0 + table.equity[index])


cdef const void* _data(dict arrays, str name, object dtype, int64_t length) except NULL:
    """The data of arrays[name], checked: a C-contiguous `dtype` array of `length` values
    (any length when `length` < 0); ValueError names what is wrong."""
    if name not in arrays:
        raise ValueError(f"bear-off array {name!r} is missing")
    cdef cnp.ndarray array = arrays[name]
    if array.dtype != dtype or not array.flags.c_contiguous:
        raise ValueError(f"bear-off array {name!r} must be C-contiguous {dtype}, not {array.dtype}")
    if length >= 0 and array.size != length:
        raise ValueError(f"bear-off array {name!r} has {array.size} values, expected {length}")
    if array.size == 0:
        return <const void*>1  # never dereferenced: an empty table
    return <const void*>cnp.PyArray_DATA(array)


cdef int _check_table_size(int points, int checkers) except -1:
    if not 1 <= points <= MAX_POINTS:
        raise InvalidArgumentError(f"points={points} must be 1-{MAX_POINTS}")
    if not 1 <= checkers <= MAX_CHECKERS:
        raise InvalidArgumentError(f"checkers={checkers} must be 1-{MAX_CHECKERS}")
    return 0


cdef int _check_windows(dict arrays, str prefix, int64_t n) except -1:
    """Every distribution window of `prefix` lies inside its pool and below MAX_ROLLS."""
    offset = arrays[prefix + "_offset"]
    start = arrays[prefix + "_start"].astype(np.int64)
    length = arrays[prefix + "_length"].astype(np.int64)
    pool = arrays[prefix + "_pool"].size
    if n and bool(((offset < 0) | (offset > pool - length) | (start + length > MAX_ROLLS)).any()):
        raise ValueError(f"bear-off arrays {prefix}_*: a distribution window lies outside {prefix}_pool "
                         f"({pool} values) or beyond {MAX_ROLLS} rolls")
    return 0


cdef int fill_one_sided_table(dict arrays, int points, int checkers, OneSidedTableC* out) except -1:
    _check_table_size(points, checkers)
    cdef int64_t entries = position_count(points, checkers)
    cdef int64_t first_base = position_count(points, checkers - 1)
    out.points = points
    out.checkers = checkers
    out.entries = entries
    out.first_base = first_base
    out.mean = <const double*>_data(arrays, "mean", np.float64, entries)
    out.stdev = <const double*>_data(arrays, "stdev", np.float64, entries)
    out.dist_offset = <const int64_t*>_data(arrays, "dist_offset", np.int64, entries)
    out.dist_start = <const uint16_t*>_data(arrays, "dist_start", np.uint16, entries)
    out.dist_length = <const uint16_t*>_data(arrays, "dist_length", np.uint16, entries)
    out.dist_pool = <const double*>_data(arrays, "dist_pool", np.float64, -1)
    out.first_mean = <const double*>_data(arrays, "first_mean", np.float64, entries - first_base)
    out.first_offset = <const int64_t*>_data(arrays, "first_offset", np.int64, entries - first_base)
    out.first_start = <const uint16_t*>_data(arrays, "first_start", np.uint16, entries - first_base)
    out.first_length = <const uint16_t*>_data(arrays, "first_length", np.uint16, entries - first_base)
    out.first_pool = <const double*>_data(arrays, "first_pool", np.float64, -1)
    _check_windows(arrays, "dist", entries)
    _check_windows(arrays, "first", entries - first_base)
    return 0


cdef int fill_two_sided_table(dict arrays, int points, int checkers, int total,
                              TwoSidedTableC* out) except -1:
    _check_table_size(points, checkers)
    if not checkers <= total <= MAX_CHECKERS:
        raise InvalidArgumentError(f"total={total} must be {checkers}-{MAX_CHECKERS}")
    cdef int64_t positions = position_count(points, checkers)
    out.points = points
    out.checkers = checkers
    out.total = total
    out.positions = positions
    out.equity = <const double*>_data(arrays, "equity", np.float64, positions * positions)
    out.win = <const double*>_data(arrays, "win", np.float64, positions * positions) if "win" in arrays else NULL
    return 0


cdef int _side_buffer(object counts, uint8_t* buffer, int points, int checkers) except -1:
    """Copy one side's counts on points 1..P into buffer: P == points (any 1-11 if points == 0)
    non-negative integers holding at most `checkers`; else InvalidPositionError. Returns P."""
    cdef int i, n, total = 0
    try:
        values = [int(v) for v in counts]
    except (TypeError, ValueError):
        raise InvalidPositionError(f"bear-off side {counts!r} must be a sequence of integers") from None
    n = len(values)
    if not 1 <= n <= MAX_POINTS or (points and n != points):
        expected = points if points else f"1-{MAX_POINTS}"
        raise InvalidPositionError(f"bear-off side {counts!r} must have {expected} counts, not {n}")
    for i in range(n):
        if not 0 <= values[i] <= MAX_CHECKERS:
            raise InvalidPositionError(f"bear-off side {counts!r}: counts must each be 0-{MAX_CHECKERS}")
        total += values[i]
        buffer[i] = <uint8_t>values[i]
    if total > checkers:
        raise InvalidPositionError(f"bear-off side {counts!r} holds {total} checkers, more than {checkers}")
    return n


def check_tables(dict one_sided, int points, int checkers, list sides) -> list:
    """Means and 1-roll probabilities read through the C-level structs (for tests)."""
    cdef OneSidedTableC table
    cdef double dist[MAX_ROLLS]
    cdef uint8_t buffer[MAX_POINTS]
    cdef int i
    fill_one_sided_table(one_sided, points, checkers, &table)
    result = []
    for side in sides:
        _side_buffer(side, buffer, points, checkers)
        r = position_rank(buffer, points)
        one_sided_distribution(&table, r, dist, MAX_ROLLS)
        result.append((one_sided_mean(&table, r), dist[1]))
    return result


def check_two_sided(dict arrays, int points, int checkers, int total, on_roll, opponent) -> tuple:
    """(equity, win) read through the C-level struct (for tests)."""
    cdef TwoSidedTableC table
    cdef uint8_t buffer[MAX_POINTS]
    fill_two_sided_table(arrays, points, checkers, total, &table)
    _side_buffer(on_roll, buffer, points, checkers)
    a = position_rank(buffer, points)
    _side_buffer(opponent, buffer, points, checkers)
    b = position_rank(buffer, points)
    return two_sided_equity(&table, a, b), two_sided_win(&table, a, b)


# ---------------------------------------------------------------------------------------------
# Python helpers over single positions.

def rank(counts) -> int:
    """Rank of one side's counts on points 1..P (1-11 counts, at most 15 checkers)."""
    cdef uint8_t buffer[MAX_POINTS]
    cdef int points = _side_buffer(counts, buffer, 0, MAX_CHECKERS)
    return position_rank(buffer, points)


def unrank(int64_t index, int points) -> tuple:
    """Counts on points 1..P of a rank (0 <= index < count(points, 15))."""
    cdef uint8_t buffer[MAX_POINTS]
    if not 1 <= points <= MAX_POINTS:
        raise InvalidArgumentError(f"points={points} must be 1-{MAX_POINTS}")
    if not 0 <= index < position_count(points, MAX_CHECKERS):
        raise InvalidArgumentError(f"rank {index} must be from 0 to {position_count(points, MAX_CHECKERS) - 1} "
                                   f"for {points} points")
    position_unrank(index, points, buffer)
    return tuple(buffer[i] for i in range(points))


def count(int points, int checkers) -> int:
    """Number of positions with at most `checkers` (0-15) on points 1..P (1-11)."""
    if not 1 <= points <= MAX_POINTS or not 0 <= checkers <= MAX_CHECKERS:
        raise InvalidArgumentError(f"count({points}, {checkers}): points must be 1-{MAX_POINTS}, "
                                   f"checkers 0-{MAX_CHECKERS}")
    return position_count(points, checkers)


cdef int64_t* _roll_successors_grow(uint8_t* counts, int points, int d1, int d2, int game,
                                   int* found) noexcept nogil:
    """roll_successors into a malloc'd buffer grown until it fits (the caller frees it);
    NULL when memory runs out. found[0] = the number of ranks."""
    cdef int capacity = 1024, n
    cdef int64_t* out
    while capacity <= (1 << 26):
        out = <int64_t*>malloc(capacity * sizeof(int64_t))
        if out == NULL:
            return NULL
        n = roll_successors(counts, points, d1, d2, out, capacity, game)
        if n >= 0:
            found[0] = n
            return out
        free(out)
        capacity *= 4
    return NULL


def successors(counts, int d1, int d2, str game="fevga") -> list:
    """Distinct final positions (ranks) of one roll in `game`, for tests and move choice."""
    cdef uint8_t buffer[MAX_POINTS]
    cdef int64_t* out
    cdef int i, n = 0, code = _game_code(game)
    cdef int points = _side_buffer(counts, buffer, 0, MAX_CHECKERS)
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise InvalidDiceError(f"dice ({d1}, {d2}): values must be 1-6")
    out = _roll_successors_grow(buffer, points, d1, d2, code, &n)
    if out == NULL:
        raise MemoryError("out of memory listing the bear-off moves of one roll")
    try:
        return [out[i] for i in range(n)]
    finally:
        free(out)


cdef int _check_counts_batch(const uint8_t[:, ::1] counts, int checkers, Py_ssize_t out_rows) except -1:
    if not 1 <= counts.shape[1] <= MAX_POINTS:
        raise InvalidArgumentError(f"batch counts must have 1-{MAX_POINTS} columns, not {counts.shape[1]}")
    if not 0 <= checkers <= MAX_CHECKERS:
        raise InvalidArgumentError(f"checkers={checkers} must be 0-{MAX_CHECKERS}")
    if out_rows != counts.shape[0]:
        raise InvalidArgumentError(f"out must hold {counts.shape[0]} values, not {out_rows}")
    return 0


cdef inline bint _too_many(const uint8_t* counts, int points, int checkers) noexcept nogil:
    """Does the side have more than `checkers` on points 1..P (outside the table)?"""
    cdef int j, total = 0
    for j in range(points):
        total += counts[j]
    return total > checkers


def rank_batch(const uint8_t[:, ::1] counts, int checkers, int64_t[::1] out) -> int:
    """Ranks of many positions; returns -1, or the first row that is not a valid position."""
    cdef Py_ssize_t row, rows = counts.shape[0]
    cdef int points = counts.shape[1]
    cdef Py_ssize_t bad = -1
    _check_counts_batch(counts, checkers, out.shape[0])
    with nogil:
        for row in range(rows):
            if _too_many(&counts[row, 0], points, checkers):
                bad = row
                break
            out[row] = position_rank(&counts[row, 0], points)
    return bad


def mean_batch(const uint8_t[:, ::1] counts, int checkers, const double[::1] mean,
               double[::1] out, bint strict) -> int:
    """out[i] = mean[rank(counts[i])]; a bad row gives NaN, or stops there when strict."""
    cdef Py_ssize_t row, rows = counts.shape[0]
    cdef int points = counts.shape[1]
    cdef Py_ssize_t bad = -1
    _check_counts_batch(counts, checkers, out.shape[0])
    if mean.shape[0] != position_count(points, checkers):
        raise InvalidArgumentError(f"mean must hold count({points}, {checkers}) = "
                                   f"{position_count(points, checkers)} values, not {mean.shape[0]}")
    with nogil:
        for row in range(rows):
            if _too_many(&counts[row, 0], points, checkers):
                if strict:
                    bad = row
                    break
                out[row] = NAN
                continue
            out[row] = mean[position_rank(&counts[row, 0], points)]
    return bad


def pair_batch(const uint8_t[:, ::1] on_roll, const uint8_t[:, ::1] opponent, int checkers,
               int64_t positions, const double[::1] table, double[::1] out, bint strict) -> int:
    """out[i] = table[rank(on_roll[i]) * positions + rank(opponent[i])], like mean_batch."""
    cdef Py_ssize_t row, rows = on_roll.shape[0]
    cdef int points = on_roll.shape[1]
    cdef Py_ssize_t bad = -1
    _check_counts_batch(on_roll, checkers, out.shape[0])
    if opponent.shape[0] != on_roll.shape[0] or opponent.shape[1] != on_roll.shape[1]:
        raise InvalidArgumentError("on_roll and opponent batch counts must have the same shape")
    if positions != position_count(points, checkers):
        raise InvalidArgumentError(f"positions={positions} must be count({points}, {checkers}) = "
                                   f"{position_count(points, checkers)}")
    if table.shape[0] != positions * positions:
        raise InvalidArgumentError(f"table must hold {positions}^2 values, not {table.shape[0]}")
    with nogil:
        for row in range(rows):
            if (_too_many(&on_roll[row, 0], points, checkers)
                    or _too_many(&opponent[row, 0], points, checkers)):
                if strict:
                    bad = row
                    break
                out[row] = NAN
                continue
            out[row] = table[position_rank(&on_roll[row, 0], points) * positions
                             + position_rank(&opponent[row, 0], points)]
    return bad


# ---------------------------------------------------------------------------------------------
# One-sided build.

cdef struct DistPoolC:
    double* values
    int64_t used
    int64_t capacity


cdef int _pool_append(DistPoolC* pool, const double* values, int length) noexcept nogil:
    cdef int64_t capacity
    cdef double* grown
    if pool.used + length > pool.capacity:
        capacity = pool.capacity * 2 + length + 1024
        grown = <double*>realloc(pool.values, capacity * sizeof(double))
        if grown == NULL:
            return -1
        pool.values = grown
        pool.capacity = capacity
    memcpy(pool.values + pool.used, values, length * sizeof(double))
    pool.used += length
    return 0


cdef struct ObjectiveC:
    # One objective of the one-sided build ("rolls until every checker is off", "... until the
    # first checker is off"), kept for the ranks >= base and indexed by rank - base. Below base
    # the objective is already met: value 0, 0 rolls for sure, and playing on leaves it met.
    int64_t base
    double* mean
    double* stdev               # NULL: not kept
    int64_t* offset
    uint16_t* start
    uint16_t* length
    # best[(rank - base) * stride + (die-1) * 4 + k-1]: the best final rank of a double's
    # rest with k moves of `die` left in the current block: Fevga, after those k moves; Gioul
    # (chain), after them and the later blocks die+1 .. 6 of the chain, played best.
    # Gioul also keeps best[... * stride + 24 + die-1]: the best rank after one move of `die`
    # and nothing more (for a non-double; in Fevga that is the k = 1 entry).
    int32_t* best
    int stride                  # 24 (Fevga) or 30 (Gioul)
    bint chain                  # doubles are Gioul chains
    DistPoolC pool


cdef void _objective_clear(ObjectiveC* o) noexcept nogil:
    """Null pointers, so that _objective_free is safe before (or after a failed) allocation."""
    memset(o, 0, sizeof(ObjectiveC))


cdef int _objective_alloc(ObjectiveC* o, int64_t base, int64_t n, bint stdev, bint chain) noexcept:
    """Allocate the arrays of n ranks from base on; -1 when any allocation failed."""
    o.base = base
    o.chain = chain
    o.stride = 30 if chain else 24
    o.mean = <double*>malloc(n * sizeof(double))
    o.stdev = <double*>malloc(n * sizeof(double)) if stdev else NULL
    o.offset = <int64_t*>malloc(n * sizeof(int64_t))
    o.start = <uint16_t*>malloc(n * sizeof(uint16_t))
    o.length = <uint16_t*>malloc(n * sizeof(uint16_t))
    o.best = <int32_t*>malloc(n * o.stride * sizeof(int32_t))
    o.pool.values = NULL
    o.pool.used = 0
    o.pool.capacity = 0
    if (o.mean == NULL or (stdev and o.stdev == NULL) or o.offset == NULL or o.start == NULL
            or o.length == NULL or o.best == NULL):
        return -1
    return 0


cdef void _objective_free(ObjectiveC* o) noexcept nogil:
    free(o.mean); free(o.stdev); free(o.offset); free(o.start); free(o.length); free(o.best)
    free(o.pool.values)


cdef dict _objective_arrays(const ObjectiveC* o, int64_t n, str mean_name, str prefix):
    """Copies of the n kept ranks as NumPy arrays: mean_name, "stdev" if kept, prefix_*."""
    out = {mean_name: np.asarray(<double[:n]>o.mean).copy()}
    if o.stdev != NULL:
        out["stdev"] = np.asarray(<double[:n]>o.stdev).copy()
    out[prefix + "_offset"] = np.asarray(<int64_t[:n]>o.offset).copy()
    out[prefix + "_start"] = np.asarray(<uint16_t[:n]>o.start).copy()
    out[prefix + "_length"] = np.asarray(<uint16_t[:n]>o.length).copy()
    out[prefix + "_pool"] = np.asarray(<double[:o.pool.used]>o.pool.values).copy()
    return out


cdef inline double _objective_value(const ObjectiveC* o, int64_t r) noexcept nogil:
    return 0.0 if r < o.base else o.mean[r - o.base]


cdef inline int32_t _objective_best(const ObjectiveC* o, int64_t r, int die, int k) noexcept nogil:
    """The best final rank from r with k (0-4) moves of `die` left in the current block (and,
    for a chain, the blocks die+1 .. 6 after it)."""
    if r < o.base:
        return <int32_t>r
    if k == 0:
        if o.chain and die < 6:
            return o.best[(r - o.base) * o.stride + die * 4 + 3]   # the next block, all four moves
        return <int32_t>r
    return o.best[(r - o.base) * o.stride + (die - 1) * 4 + k - 1]


cdef inline int32_t _one_move_best(const ObjectiveC* o, int64_t r, int die) noexcept nogil:
    """The best rank after exactly one move of `die` from r (the second die of a non-double)."""
    if r < o.base:
        return <int32_t>r
    if o.chain:
        return o.best[(r - o.base) * o.stride + 24 + die - 1]
    return o.best[(r - o.base) * o.stride + (die - 1) * 4]


cdef inline void _improve(const ObjectiveC* o, const int64_t* succ, int nsucc, int die, int moves,
                          bint plain, int32_t* best_rank, double* best_value) noexcept nogil:
    """Fold into (best_rank, best_value) the best final rank reached from each of succ[:nsucc]
    by `moves` more moves of `die`, for a chain then its later blocks; `plain`: `moves` (0 or
    1) moves of `die` and nothing more. The first of equal values stays."""
    cdef int i
    cdef int32_t candidate
    cdef double value
    for i in range(nsucc):
        if not plain:
            candidate = _objective_best(o, succ[i], die, moves)
        elif moves == 0:
            candidate = <int32_t>succ[i]
        else:
            candidate = _one_move_best(o, succ[i], die)
        value = _objective_value(o, candidate)
        if best_rank[0] < 0 or value < best_value[0]:
            best_rank[0] = candidate
            best_value[0] = value


cdef void _choose(const ObjectiveC* o, int64_t p, const int64_t* succ, const int* nsucc,
                  int32_t* chosen) noexcept nogil:
    """Fill best[p] and chosen[r], the rank each of the 21 rolls plays to, minimising the
    objective; succ[(d-1) * MAX_POINTS + i], i < nsucc[d-1], are the ranks one die d reaches.
    A double plays best[p][d][4]: four moves of d (a Gioul chain: then its later blocks)."""
    cdef int32_t* row = o.best + (p - o.base) * o.stride
    cdef int d, k, r, a, b
    cdef int32_t best_rank
    cdef double best_value
    for d in range(1, 7):
        for k in range(1, 5):
            best_rank = -1
            best_value = 0.0
            _improve(o, succ + (d - 1) * MAX_POINTS, nsucc[d - 1], d, k - 1, False,
                     &best_rank, &best_value)
            row[(d - 1) * 4 + k - 1] = best_rank
        if o.chain:
            best_rank = -1
            best_value = 0.0
            _improve(o, succ + (d - 1) * MAX_POINTS, nsucc[d - 1], d, 0, True, &best_rank, &best_value)
            row[24 + d - 1] = best_rank
    for r in range(NUM_ROLLS):
        a = ROLL_D1[r]
        b = ROLL_D2[r]
        if a == b:
            chosen[r] = row[(a - 1) * 4 + 3]
            continue
        best_rank = -1
        best_value = 0.0
        _improve(o, succ + (a - 1) * MAX_POINTS, nsucc[a - 1], b, 1, True, &best_rank, &best_value)
        _improve(o, succ + (b - 1) * MAX_POINTS, nsucc[b - 1], a, 1, True, &best_rank, &best_value)
        chosen[r] = best_rank


cdef int _accumulate(ObjectiveC* o, int64_t slot, const int32_t* chosen,
                     double* acc) noexcept nogil:
    """Store at `slot` the distribution (mean, stdev) of 1 + the rolls after `chosen`."""
    cdef int r, i, lo = MAX_ROLLS, hi = -1
    cdef int64_t c
    cdef double w, mean = 0.0, square = 0.0
    memset(acc, 0, MAX_ROLLS * sizeof(double))
    for r in range(NUM_ROLLS):
        c = chosen[r]
        w = ROLL_COUNT[r]
        if c < o.base:
            acc[1] += w
            continue
        c -= o.base
        mean += w * o.mean[c]
        for i in range(o.length[c]):
            acc[o.start[c] + i + 1] += w * o.pool.values[o.offset[c] + i]
    mean = 1.0 + mean / 36.0
    for i in range(MAX_ROLLS):
        acc[i] /= 36.0
        if acc[i] != 0.0:
            if lo == MAX_ROLLS:
                lo = i
            hi = i
            square += acc[i] * i * i
    o.mean[slot] = mean
    if o.stdev != NULL:
        o.stdev[slot] = sqrt(max(square - mean * mean, 0.0))
    o.offset[slot] = o.pool.used
    o.start[slot] = lo
    o.length[slot] = hi - lo + 1
    return _pool_append(&o.pool, acc + lo, hi - lo + 1)


cdef int _objective_rank(ObjectiveC* o, int64_t p, const int64_t* succ, const int* nsucc,
                         double* acc) noexcept nogil:
    """Solve rank p (>= base) of the objective; -1 when out of memory."""
    cdef int32_t chosen[NUM_ROLLS]
    cdef int i
    if p == 0:  # the empty side: nothing left to roll
        for i in range(o.stride):
            o.best[i] = 0
        o.mean[0] = 0.0
        if o.stdev != NULL:
            o.stdev[0] = 0.0
        acc[0] = 1.0
        o.offset[0] = o.pool.used
        o.start[0] = 0
        o.length[0] = 1
        return _pool_append(&o.pool, acc, 1)
    _choose(o, p, succ, nsucc, chosen)
    return _accumulate(o, p - o.base, chosen, acc)


cdef class OneSidedBuilder:
    """Owns the arrays of a one-sided build; `run(stop)` fills ranks done..stop-1.

    `game` "gioul" plays every double as a chain (four of each number from the rolled one up
    to 6, block by block, the best final position of the whole chain chosen).
    """

    cdef readonly int points, checkers, game
    cdef readonly int64_t entries, first_base, done
    cdef ObjectiveC all_off     # mean rolls to bear off all, every rank
    cdef ObjectiveC first_off   # rolls until the first checker is off, exactly `checkers` on

    def __cinit__(self, int points, int checkers, str game="fevga"):
        _objective_clear(&self.all_off)
        _objective_clear(&self.first_off)
        _check_table_size(points, checkers)
        self.game = _game_code(game)
        self.points = points
        self.checkers = checkers
        self.entries = position_count(points, checkers)
        self.first_base = position_count(points, checkers - 1)
        if (_objective_alloc(&self.all_off, 0, self.entries, True, self.game == GAME_GIOUL)
                or _objective_alloc(&self.first_off, self.first_base,
                                    self.entries - self.first_base, False, self.game == GAME_GIOUL)):
            raise MemoryError(f"one-sided table {points} points x {checkers} checkers")
        self.done = 0

    def __dealloc__(self):
        _objective_free(&self.all_off)
        _objective_free(&self.first_off)

    cdef int _build_rank(self, int64_t p, uint8_t* counts) noexcept nogil:
        cdef int64_t succ[6 * MAX_POINTS]
        cdef int nsucc[6]
        cdef double acc[MAX_ROLLS]
        cdef int d
        if p > 0:
            position_unrank(p, self.points, counts)
            for d in range(1, 7):
                nsucc[d - 1] = die_successors(counts, self.points, d, succ + (d - 1) * MAX_POINTS)
        if _objective_rank(&self.all_off, p, succ, nsucc, acc):
            return -1
        if p < self.first_base:
            return 0
        return _objective_rank(&self.first_off, p, succ, nsucc, acc)

    def run(self, int64_t stop):
        """Build ranks done..stop-1 without the GIL, checking for Ctrl-C between chunks."""
        cdef uint8_t counts[MAX_POINTS]
        cdef int64_t p, chunk_end
        cdef int failed = 0
        stop = min(stop, self.entries)
        while self.done < stop:
            chunk_end = min(stop, self.done + ONE_SIDED_CHUNK)
            with nogil:
                for p in range(self.done, chunk_end):
                    if self._build_rank(p, counts):
                        failed = 1
                        break
            if failed:
                raise MemoryError("out of memory in the one-sided bear-off build")
            self.done = chunk_end
            PyErr_CheckSignals()

    def arrays(self) -> dict:
        """The finished table as NumPy arrays (copies)."""
        if self.done != self.entries:
            raise RuntimeError("one-sided build not finished")
        out = _objective_arrays(&self.all_off, self.entries, "mean", "dist")
        out.update(_objective_arrays(&self.first_off, self.entries - self.first_base,
                                     "first_mean", "first"))
        return out


# ---------------------------------------------------------------------------------------------
# Two-sided build.

cdef class TwoSidedBuilder:
    """Owns the arrays of a two-sided build; `run(stop)` fills the shells done..stop-1.

    `game` "gioul" lists a double's successors as the final positions of its whole chain
    (blocks d, d+1, ..., 6 played one after another by the same player), so the maximum over
    them is the same player's optimal play of every block in turn; nothing else changes.

    Shell m holds the pairs whose larger rank is m. Its pairs depend only on earlier shells and
    on shell m's own "m on roll" row, so a shell is computed as: (A) row m against every
    opponent q < m, vectorised over q through the transposed table; (B) every p <= m on roll
    against opponent m, reading row m. A Dask build can hand out shells (or blocks of q inside
    a shell) the same way: shell m needs shells < m only.
    """

    cdef readonly int points, checkers, total, game
    cdef readonly int64_t positions, done
    cdef readonly bint has_win
    cdef cnp.ndarray equity_array, transposed_array, win_array, win_t_array
    cdef double* equity
    cdef double* transposed
    cdef double* win
    cdef double* win_t
    cdef int64_t* succ_offset
    cdef int32_t* succ
    cdef double* scratch
    cdef uint8_t* sizes

    def __cinit__(self, int points, int checkers, int total, str game="fevga"):
        self.succ_offset = NULL
        self.succ = NULL
        self.scratch = NULL
        self.sizes = NULL
        self.equity = self.transposed = self.win = self.win_t = NULL
        _check_table_size(points, checkers)
        if not checkers <= total <= MAX_CHECKERS:
            raise InvalidArgumentError(f"total={total} must be {checkers}-{MAX_CHECKERS}")
        self.game = _game_code(game)
        self.points = points
        self.checkers = checkers
        self.total = total
        self.positions = position_count(points, checkers)
        self.has_win = checkers >= total
        cdef int64_t n = self.positions
        needed = n * n * 8 * (4 if self.has_win else 2)     # Python int: no overflow
        if needed > (1 << 47):                              # beyond any 64-bit address space in use
            raise MemoryError(f"a two-sided table of {points} points x {checkers} checkers needs "
                              f"{needed / 2**40:,.0f} TiB of memory")
        self.equity_array = np.empty(n * n, dtype=np.float64)
        self.transposed_array = np.empty(n * n, dtype=np.float64)
        self.equity = <double*>cnp.PyArray_DATA(self.equity_array)
        self.transposed = <double*>cnp.PyArray_DATA(self.transposed_array)
        self.win = NULL
        self.win_t = NULL
        if self.has_win:
            self.win_array = np.empty(n * n, dtype=np.float64)
            self.win_t_array = np.empty(n * n, dtype=np.float64)
            self.win = <double*>cnp.PyArray_DATA(self.win_array)
            self.win_t = <double*>cnp.PyArray_DATA(self.win_t_array)
        self.succ_offset = <int64_t*>malloc((n * NUM_ROLLS + 1) * sizeof(int64_t))
        self.scratch = <double*>malloc(4 * n * sizeof(double))
        self.sizes = <uint8_t*>malloc(n)
        self.succ = NULL
        if self.succ_offset == NULL or self.scratch == NULL or self.sizes == NULL:
            raise MemoryError(f"two-sided table {points} points x {checkers} checkers")
        if self._successor_lists():
            raise MemoryError("out of memory listing bear-off moves")
        self._terminals()
        self.done = 1

    def __dealloc__(self):
        free(self.succ_offset)
        free(self.succ)
        free(self.scratch)
        free(self.sizes)

    cdef int _successor_lists(self) noexcept nogil:
        cdef int64_t n = self.positions, p, used = 0, capacity = n * 64 + 1024
        cdef uint8_t counts[MAX_POINTS]
        cdef int64_t* out = NULL
        cdef int out_capacity = 8192
        cdef int r, i, m, j, size
        cdef int32_t* grown
        self.succ = <int32_t*>malloc(capacity * sizeof(int32_t))
        out = <int64_t*>malloc(out_capacity * sizeof(int64_t))
        if self.succ == NULL or out == NULL:
            free(out)
            return -1
        for p in range(n):
            position_unrank(p, self.points, counts)
            size = 0
            for j in range(self.points):
                size += counts[j]
            self.sizes[p] = <uint8_t>size
            for r in range(NUM_ROLLS):
                self.succ_offset[p * NUM_ROLLS + r] = used
                if p == 0:
                    continue
                m = roll_successors(counts, self.points, ROLL_D1[r], ROLL_D2[r], out, out_capacity,
                                    self.game)
                while m < 0 and out_capacity < (1 << 26):   # a long chain: more room, same roll
                    free(out)
                    out_capacity *= 4
                    out = <int64_t*>malloc(out_capacity * sizeof(int64_t))
                    if out == NULL:
                        return -1
                    m = roll_successors(counts, self.points, ROLL_D1[r], ROLL_D2[r], out, out_capacity,
                                        self.game)
                if m < 0:
                    free(out)
                    return -1
                if used + m > capacity:
                    capacity = capacity * 2 + m
                    grown = <int32_t*>realloc(self.succ, capacity * sizeof(int32_t))
                    if grown == NULL:
                        free(out)
                        return -1
                    self.succ = grown
                for i in range(m):
                    self.succ[used + i] = <int32_t>out[i]
                used += m
        self.succ_offset[n * NUM_ROLLS] = used
        free(out)
        return 0

    cdef void _terminals(self) noexcept nogil:
        cdef int64_t n = self.positions, x
        cdef double value
        self.equity[0] = 0.0
        self.transposed[0] = 0.0
        if self.has_win:
            self.win[0] = 0.5
            self.win_t[0] = 0.5
        for x in range(1, n):
            value = 2.0 if self.sizes[x] >= self.total else 1.0
            # x on roll, opponent already off: x lost; and the other way round
            self.equity[x * n] = -value
            self.transposed[x] = -value
            self.equity[x] = value
            self.transposed[x * n] = value
            if self.has_win:
                self.win[x * n] = 0.0
                self.win_t[x] = 0.0
                self.win[x] = 1.0
                self.win_t[x * n] = 1.0

    cdef void _part_a(self, int64_t m, int64_t q_lo, int64_t q_hi) noexcept nogil:
        """Step A of shell m for opponents q_lo..q_hi-1 (within 1..m-1): m on roll."""
        cdef int64_t n = self.positions, q, lo, hi, s
        cdef double* acc = self.scratch
        cdef double* tmp = self.scratch + n
        cdef double* acc_win = self.scratch + 2 * n
        cdef double* tmp_win = self.scratch + 3 * n
        cdef const double* row
        cdef const double* row_win
        cdef double w, value
        cdef int r
        cdef bint has_win = self.has_win
        for q in range(q_lo, q_hi):
            acc[q] = 0.0
            acc_win[q] = 0.0
        for r in range(NUM_ROLLS):
            lo = self.succ_offset[m * NUM_ROLLS + r]
            hi = self.succ_offset[m * NUM_ROLLS + r + 1]
            w = ROLL_COUNT[r]
            row = self.transposed + <int64_t>self.succ[lo] * n
            if has_win:
                row_win = self.win_t + <int64_t>self.succ[lo] * n
                for q in range(q_lo, q_hi):
                    tmp[q] = row[q]
                    tmp_win[q] = row_win[q]
                for s in range(lo + 1, hi):
                    row = self.transposed + <int64_t>self.succ[s] * n
                    row_win = self.win_t + <int64_t>self.succ[s] * n
                    for q in range(q_lo, q_hi):
                        if row[q] < tmp[q]:
                            tmp[q] = row[q]
                            tmp_win[q] = row_win[q]
                for q in range(q_lo, q_hi):
                    acc[q] += w * tmp[q]
                    acc_win[q] += w * tmp_win[q]
            else:
                for q in range(q_lo, q_hi):
                    tmp[q] = row[q]
                for s in range(lo + 1, hi):
                    row = self.transposed + <int64_t>self.succ[s] * n
                    for q in range(q_lo, q_hi):
                        value = row[q]
                        tmp[q] = value if value < tmp[q] else tmp[q]
                for q in range(q_lo, q_hi):
                    acc[q] += w * tmp[q]
        for q in range(q_lo, q_hi):
            value = -acc[q] / 36.0
            self.equity[m * n + q] = value
            self.transposed[q * n + m] = value
            if has_win:
                value = 1.0 - acc_win[q] / 36.0
                self.win[m * n + q] = value
                self.win_t[q * n + m] = value

    cdef void _part_b(self, int64_t m, int64_t p_lo, int64_t p_hi) noexcept nogil:
        """Step B of shell m for p_lo..p_hi-1 (within 1..m) on roll against m."""
        cdef int64_t n = self.positions, q, p, lo, hi, s
        cdef const double* hot = self.equity + m * n
        cdef const double* hot_win = self.win + m * n if self.has_win else NULL
        cdef double value, best, total_value, total_win
        cdef int r
        cdef bint has_win = self.has_win
        for p in range(p_lo, p_hi):
            total_value = 0.0
            total_win = 0.0
            for r in range(NUM_ROLLS):
                lo = self.succ_offset[p * NUM_ROLLS + r]
                hi = self.succ_offset[p * NUM_ROLLS + r + 1]
                best = hot[self.succ[lo]]
                s = lo
                for q in range(lo + 1, hi):
                    value = hot[self.succ[q]]
                    if value < best:
                        best = value
                        s = q
                total_value += ROLL_COUNT[r] * best
                if has_win:
                    total_win += ROLL_COUNT[r] * hot_win[self.succ[s]]
            total_value = -total_value / 36.0
            self.equity[p * n + m] = total_value
            self.transposed[m * n + p] = total_value
            if has_win:
                total_win = 1.0 - total_win / 36.0
                self.win[p * n + m] = total_win
                self.win_t[m * n + p] = total_win

    cdef void _shell(self, int64_t m) noexcept nogil:
        self._part_a(m, 1, m)
        self._part_b(m, 1, m + 1)

    cdef int _check_live(self) except -1:
        if self.transposed == NULL:
            raise InvalidArgumentError("this two-sided build has been finished: its arrays were handed over")
        return 0

    def _run_split(self, int64_t m, int part, int parts):
        """One thread's share of shell m: step A then, after the caller's barrier, step B.

        part = 2k runs step A's k-th slice, part = 2k + 1 step B's k-th slice (k < parts); the
        slices of A and of B are balanced by work (A costs the same per q, B per p).
        """
        cdef int64_t lo, hi, k = part // 2
        self._check_live()
        if not 1 <= m < self.positions or parts < 1 or not 0 <= part < 2 * parts:
            raise InvalidArgumentError(f"_run_split({m}, {part}, {parts}): shell 1-{self.positions - 1}, "
                                       "0 <= part < 2 * parts")
        if part % 2 == 0:
            lo = 1 + (m - 1) * k // parts
            hi = 1 + (m - 1) * (k + 1) // parts
            with nogil:
                self._part_a(m, lo, hi)
        else:
            lo = 1 + m * k // parts
            hi = 1 + m * (k + 1) // parts
            with nogil:
                self._part_b(m, lo, hi)

    def _finish_shells(self, int64_t stop):
        """Mark shells below `stop` as built (after run_split did them)."""
        self.done = min(stop, self.positions)

    def run(self, int64_t stop):
        """Build the shells done..stop-1 without the GIL, checking for Ctrl-C after each shell."""
        cdef int64_t m
        stop = min(stop, self.positions)
        if self.done < stop:
            self._check_live()
        while self.done < stop:
            m = self.done
            with nogil:
                self._shell(m)
            self.done = m + 1
            PyErr_CheckSignals()

    def arrays(self) -> dict:
        """The finished table as NumPy arrays (the equity array is handed over, not copied)."""
        if self.done != self.positions:
            raise RuntimeError("two-sided build not finished")
        result = {"equity": self.equity_array}
        if self.has_win:
            result["win"] = self.win_array
        self.transposed_array = None
        self.win_t_array = None
        self.transposed = NULL
        self.win_t = NULL
        return result
