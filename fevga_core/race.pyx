# Exact and estimated values of no-contact races from the bear-off tables (docs/rollout.md):
# the override every evaluator (heuristic, net) and the game loop's truncation share.

from libc.string cimport memset

from fevga_core.types cimport PositionC, SideC, uint8_t, uint16_t, int64_t, NUM_CHECKERS
from fevga_core.board cimport points_mask

import numpy as np

from fevga_core.errors import InvalidArgumentError
from fevga_core.bearoff cimport (
    OneSidedTableC, TwoSidedTableC, MAX_ROLLS, position_rank, one_sided_distribution,
    two_sided_equity, two_sided_win, fill_one_sided_table, fill_two_sided_table,
)


cdef bint no_contact(const PositionC* pos) noexcept nogil:
    """True when no checker can ever again block or be blocked (docs/rollout.md): every
    checker of both sides on its own points 1..12, the two halves that never meet."""
    return (pos.side[0].mask & ~0xFFFu) == 0 and (pos.side[1].mask & ~0xFFFu) == 0


cdef void _first_distribution(const OneSidedTableC* t, int64_t rank, double* out) noexcept nogil:
    """P(rolls until the first checker is off = i) into out[0..MAX_ROLLS)."""
    cdef int i, start, length
    cdef int64_t index, offset
    for i in range(MAX_ROLLS):
        out[i] = 0.0
    if rank < t.first_base:
        out[0] = 1.0
        return
    index = rank - t.first_base
    start = t.first_start[index]
    length = t.first_length[index]
    offset = t.first_offset[index]
    for i in range(length):
        if start + i < MAX_ROLLS:
            out[start + i] = t.first_pool[offset + i]


cdef void _survival(const double* p, double* out) noexcept nogil:
    """out[k] = sum of p[j] for j >= k."""
    cdef int k
    cdef double tail = 0.0
    for k in range(MAX_ROLLS - 1, -1, -1):
        tail += p[k]
        out[k] = tail


cdef void race_estimate(const OneSidedTableC* one, const SideC* a, const SideC* b, double* equity,
                        double* win, double* win_mars, double* lose_mars) noexcept nogil:
    cdef int64_t ra, rb
    cdef int k
    cdef double pa[MAX_ROLLS]
    cdef double pb[MAX_ROLLS]
    cdef double first[MAX_ROLLS]
    cdef double tail[MAX_ROLLS]
    if b.counts[0] == NUM_CHECKERS:         # the side on roll has lost, a mars if none is off
        win[0] = win_mars[0] = 0.0
        lose_mars[0] = 1.0 if a.counts[0] == 0 else 0.0
        equity[0] = -1.0 - lose_mars[0]
        return
    if a.counts[0] == NUM_CHECKERS:
        win[0] = 1.0
        win_mars[0] = 1.0 if b.counts[0] == 0 else 0.0
        lose_mars[0] = 0.0
        equity[0] = 1.0 + win_mars[0]
        return
    ra = side_rank(a, one.points)
    rb = side_rank(b, one.points)
    one_sided_distribution(one, ra, pa, MAX_ROLLS)
    one_sided_distribution(one, rb, pb, MAX_ROLLS)
    # The side on roll finishing on its k-th roll wins if the other needs at least k rolls.
    _survival(pb, tail)
    win[0] = 0.0
    for k in range(1, MAX_ROLLS):
        win[0] += pa[k] * tail[k]
    win_mars[0] = 0.0
    lose_mars[0] = 0.0
    if b.counts[0] == 0:
        _first_distribution(one, rb, first)
        _survival(first, tail)
        for k in range(1, MAX_ROLLS):
            win_mars[0] += pa[k] * tail[k]
    if a.counts[0] == 0:
        _first_distribution(one, ra, first)
        _survival(first, tail)
        for k in range(1, MAX_ROLLS - 1):
            lose_mars[0] += pb[k] * tail[k + 1]
    equity[0] = 2.0 * win[0] - 1.0 + win_mars[0] - lose_mars[0]


cdef bint race_value(const TablesC* tables, const PositionC* pos, double* equity, double* win,
                     double* win_mars, double* lose_mars) noexcept nogil:
    """Value of a no-contact race for the side on roll: exact from the two-sided table when it
    covers both sides, else the one-sided estimate; False when neither table covers it."""
    cdef const SideC* a = &pos.side[pos.turn]
    cdef const SideC* b = &pos.side[1 - pos.turn]
    cdef const TwoSidedTableC* two = &tables.two
    cdef const OneSidedTableC* one = &tables.one
    cdef int64_t ra, rb
    cdef double net
    if not no_contact(pos):
        return False
    if side_covered(a, two.points, two.checkers) and side_covered(b, two.points, two.checkers):
        ra = side_rank(a, two.points)
        rb = side_rank(b, two.points)
        equity[0] = two_sided_equity(two, ra, rb)
        win[0] = two_sided_win(two, ra, rb)
        net = equity[0] - (2.0 * win[0] - 1.0)     # mars bonus won minus mars bonus lost
        win_mars[0] = net if net > 0.0 else 0.0
        lose_mars[0] = -net if net < 0.0 else 0.0
        return True
    if not (side_covered(a, one.points, one.checkers) and side_covered(b, one.points, one.checkers)):
        return False
    race_estimate(one, a, b, equity, win, win_mars, lose_mars)
    return True


cdef int _side_of(object counts, const OneSidedTableC* one, SideC* side, str name) except -1:
    """Fill `side` from counts on points 1..P of the one-sided table (the rest borne off)."""
    cdef int p, c, total = 0
    try:
        values = tuple(counts)
    except TypeError:
        raise InvalidArgumentError(f"{name} counts {counts!r} must be a sequence of integers") from None
    if len(values) != one.points:
        raise InvalidArgumentError(f"{name} counts {values} must give the {one.points} points of the table")
    memset(side, 0, sizeof(SideC))
    for p in range(one.points):
        value = values[p]
        if not isinstance(value, (int, np.integer)) or not 0 <= value <= NUM_CHECKERS:
            raise InvalidArgumentError(f"{name} counts {values} must each be an integer 0-{NUM_CHECKERS}")
        c = value
        side.counts[p + 1] = <uint8_t>c
        total += c
    if total > one.checkers:
        raise InvalidArgumentError(f"{name} counts {values} hold {total} checkers; the table covers {one.checkers}")
    side.counts[0] = <uint8_t>(NUM_CHECKERS - total)
    side.mask = points_mask(side.counts)
    return 0


def estimate(Tables tables not None, on_roll, opponent):
    """(equity, win, win_mars, lose_mars) of race_estimate for the side on roll; sides are
    counts on points 1..P of the tables' one-sided table (the rest of the 15 borne off)."""
    cdef SideC a, b
    cdef double equity, win, win_mars, lose_mars
    if tables.c.one.points == 0:
        raise InvalidArgumentError("these Tables hold no one-sided table to estimate a race from")
    _side_of(on_roll, &tables.c.one, &a, "on_roll")
    _side_of(opponent, &tables.c.one, &b, "opponent")
    race_estimate(&tables.c.one, &a, &b, &equity, &win, &win_mars, &lose_mars)
    return (equity, win, win_mars, lose_mars)


cdef TablesC NO_TABLES     # zeroed: no table present


cdef const TablesC* no_tables() noexcept nogil:
    return &NO_TABLES


cdef class Tables:
    """Bear-off tables in the layout the kernels read (arrays are kept alive here)."""

    def __init__(self, one=None, two=None):
        """`one` = (points, checkers, arrays dict), `two` = (points, checkers, total, equity, win)."""
        self._keep = []
        self.c.one.points = 0
        self.c.one.checkers = 0
        self.c.two.points = 0
        self.c.two.checkers = 0
        # Every array is converted to the kernels' dtype and checked against the table's size
        # (bearoff.fill_*_table): the kernels index them without bounds checks.
        if one is not None:
            points, checkers, arrays = one
            dtypes = {"offset": np.int64, "start": np.uint16, "length": np.uint16}
            converted = {name: np.ascontiguousarray(a, dtype=dtypes.get(name.rpartition("_")[2], np.float64))
                         for name, a in arrays.items()}
            self._keep.append(converted)
            fill_one_sided_table(converted, points, checkers, &self.c.one)
        if two is not None:
            points, checkers, total, equity, win = two
            if total != NUM_CHECKERS:
                # Its terminal values (mars) assume `total` checkers a side: wrong in a Fevga game.
                raise InvalidArgumentError(f"a two-sided table built for total={total} checkers a side cannot "
                                           f"score Fevga races (15 checkers a side): build it with total=15")
            converted = {"equity": np.ascontiguousarray(equity, dtype=np.float64).reshape(-1)}
            if win is not None:
                converted["win"] = np.ascontiguousarray(win, dtype=np.float64).reshape(-1)
            self._keep.append(converted)
            fill_two_sided_table(converted, points, checkers, total, &self.c.two)

    @property
    def one_sided(self):
        """(points, checkers) of the one-sided table, (0, 0) when absent."""
        return (self.c.one.points, self.c.one.checkers)

    @property
    def two_sided(self):
        """(points, checkers) of the two-sided table, (0, 0) when absent."""
        return (self.c.two.points, self.c.two.checkers)
