# C-level declarations of fastplay's compiled core (see _core.pyx for the tour).
from libc.stdint cimport uint8_t, int16_t, uint16_t, uint32_t, uint64_t

cdef enum:
    EMPTY_C = 0
    WHITE_C = 1
    BLACK_C = 2
    OFF_C = 3
    MAX_SIZE_C = 25
    MAX_W = 27                 # MAX_SIZE + 2 (one off-board frame on every side)
    MAX_PTS = 729              # MAX_W * MAX_W
    MAX_WORDS = 12             # 64-bit words of a liberty bitset on 25x25
    MAX_Q = 1024               # update-set capacity (a move touches far fewer points)

# A board lives in one malloc'd block so that copying a position for a
# playout is a single memcpy whose size follows the board size.
cdef struct BoardState:
    int size                   # points per side
    int W                      # row stride, size + 2
    int npts                   # W * W
    int nwords                 # uint64 words per liberty bitset
    int wshift                 # log2 of the bitset stride (nwords rounded up to a power of 2)
    int nbr[8]                 # neighbour offsets in GNU Go's order: S W N E SW NW NE SE
    uint8_t* color             # [npts] EMPTY/WHITE/BLACK/OFF
    int16_t* sid               # [npts] head point of the string on this point
    int16_t* nxt               # [npts] next stone of the string (circular list)
    int16_t* ssize             # [npts] stones in the string (valid at heads)
    int16_t* nlibs             # [npts] exact liberty count (valid at heads)
    uint64_t* libs             # [npts * nwords] liberty bitset (valid at heads)
    uint16_t* code             # [npts] 3x3 neighbourhood code, kept up to date
    int ko                     # padded index of the ko point, 0 if none
    int ko_color               # the colour the ko point is forbidden to
    int passes                 # consecutive passes
    int captures[3]            # stones captured BY each colour
    uint64_t hash              # Zobrist hash of the stones (positional)
    char* block
    size_t blocksize

# The update set Q of GNU Go's playout (spec 6.3), also the "near" set.
cdef struct QSet:
    int n
    int lim                    # liberty bound of Q4-Q7: 2 as in GNU Go, 1 when only
                               # geometry and suicide matter (see board_play)
    int16_t pts[MAX_Q]
    uint32_t stamp
    uint32_t mark[MAX_PTS]
