from fevga_core.types cimport PositionC, MoveC
from fevga_core.movegen cimport MoveList

from fevga_core.types cimport uint64_t
from fevga_core.state cimport PerftC

# What a position of either game is in the core (CorePosition, gioul.CoreGioul): a board, its
# side to move and its key; the accessors both games share read them through these hooks.
cdef class CoreBoard:
    cdef const PositionC* board(self) except NULL
    cdef uint64_t key(self) except? 0
    # InvalidRulesError unless `flags` are rules of the position's game
    cdef int flags_checked(self, int flags) except -1
    # state.perft of the position (its _perft checks the arguments)
    cdef long long perft_below(self, int depth, PerftC* run, MoveC* moves) except -1 nogil

# The thin owner of one PositionC; fevga.Position subclasses it with the Python API.
cdef class CorePosition(CoreBoard):
    cdef PositionC c

# The n moves of `position` generated into `moves` (copied out at once) as its legal-move
# sequence of `move_cls` values, as CorePosition._legal_moves gives them.
cdef MoveList position_move_list(CorePosition position, const MoveC* moves, int n, type move_cls)
