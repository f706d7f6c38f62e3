# The nogil game loop (self-play records and rollouts: truncation, luck adjustment, the
# table/lookahead policies), rollout blocks of both games (Fevga and Gioul) and expectimax
# over the 21 rolls (docs/rollout.md).

from fevga_core.types cimport PositionC, MoveC, GioulC, uint8_t, uint16_t, MAX_STEPS
from fevga_core.movegen cimport ScratchC
from fevga_core.game cimport RngC
from fevga_core.race cimport TablesC
from fevga_core.net cimport NetC
from fevga_core.qnet cimport QNetC

# Everything one game of a job needs besides its seed (read-only while games run).
ctypedef struct JobC:
    int flags               # the rules; FLAG_GIOUL: a Gioul job (GioulC states, Gioul policies)
    int policy[2]           # per colour: POLICY_* of game.pxd
    bint truncate           # score a covered no-contact race from the tables
    bint luck               # subtract the luck of every random roll (variance reduction)
    double scale            # heuristic units per tanh unit in position_value
    const TablesC* tables
    const NetC* net[2]      # per colour: the net of its net policies
    const QNetC* qnet[2]    # per colour: not NULL when that net is quantised (evaluated in its tables)
    const NetC* value_net   # values luck and expectimax leaves (NULL: the heuristic); the
                            # built-in lookahead policy always looks ahead over the heuristic
    const QNetC* value_qnet # not NULL when value_net is quantised

# Outcome of one game for a fixed colour (the root side): probabilities are 0/1 for a game
# played to the end, table values for a truncated one.
ctypedef struct GameOutC:
    double equity           # raw points, + for the root side
    double win
    double win_mars
    double lose_mars
    double draw
    double luck             # sum of the luck terms, root side's view
    int plies
    int first_roll          # (d1 - 1) * 6 + (d2 - 1) of the first roll, -1 if none was rolled
    bint truncated

cdef enum:
    NUM_STRATA = 1296   # ordered pairs of the first two rolls: one rotation of the stratified schedule
    LENGTH_BINS = 512   # game-length histogram bins; the last one counts longer games
    NUM_MATCH_WEIGHTS = 5   # match value = w0 + w1 win + w2 win_mars + w3 lose_mars + w4 draw

# A worker's scratch is movegen's ScratchC with two move lists: SPARE(scratch) holds the
# luck and lookahead enumerations beside the moves of the roll being played.

# One decision of a recorded game (a Fevga turn; a Gioul block or hand-over).
ctypedef struct DecisionC:
    uint8_t mover
    uint8_t roller
    uint8_t d1              # the dice rolled (0, 0 for a Gioul decision on pending dice)
    uint8_t d2
    uint8_t die             # the decision's dice: `count` of `die`, or the pair (die, pair)
    uint8_t count
    uint8_t pair
    uint8_t nsteps
    uint8_t steps[MAX_STEPS][2]
    uint16_t choices        # legal moves the decision had

cdef enum:
    MAX_RECORDED = 8192     # decisions one recorded game may hold (real games: a few hundred)

# What a game keeps of itself: the decisions played (`size`), and with `decisions` their
# record, with `trail` (MAX_RECORDED + 1 states) the start and the state after each decision.
ctypedef struct RecordC:
    DecisionC* decisions
    GioulC* trail
    int size

# A seeded Gioul game from the one-die draw (the starter rolls fresh dice, or with
# `opening_dice` plays the two dice of the draw) played by the job's policies (scratch: two
# move lists); points = White's points (+-1, +-2; 0 for a dead position). Returns 1 (points
# unset) when the record would pass MAX_RECORDED decisions, else 0.
cdef int gioul_play(const JobC* job, GioulC* s, RngC* rng, bint opening_dice, ScratchC* scratch,
                    RecordC* rec, int* points) except -1 nogil

# THE game loop of both games (rollout.pyx): play `s` (a Fevga board or a Gioul state, as the
# job's flags say) to the end, to truncation or to `max_plies` plies (0: no limit); `out` for
# `color`; with `rec` the decisions kept. Returns 1 when the game stops unfinished (max_plies,
# or the record full), else 0.
cdef int play_game(const JobC* job, GioulC* s, int color, RngC* rng, const int* fixed_rolls, int nfixed,
                   object callback, ScratchC* scratch, GameOutC* out, RecordC* rec, int max_plies) except -1 nogil
