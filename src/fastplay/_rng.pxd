# fastplay's random numbers (header only: every function is inline).
#
# ``splitmix64`` (Steele, Lea and Flood, "Fast splittable pseudorandom number
# generators", OOPSLA 2014) fills the Zobrist keys and seeds the playout
# streams; ``rng_next`` is xoshiro256** (Blackman and Vigna, "Scrambled linear
# pseudorandom number generators", 2018).  Playout ``i`` of a call draws from
# the stream ``rng_seed(state, key, i)``, so results do not depend on the
# number of threads (fastplay._playout).
from libc.stdint cimport uint64_t


cdef inline uint64_t splitmix64(uint64_t* x) noexcept nogil:
    x[0] += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline uint64_t rotl64(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t rng_next(uint64_t* s) noexcept nogil:
    # xoshiro256** (Blackman and Vigna, 2018).
    cdef uint64_t result = rotl64(s[1] * 5, 7) * 9
    cdef uint64_t t = s[1] << 17
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = rotl64(s[3], 45)
    return result


cdef inline void rng_seed(uint64_t* s, uint64_t key, uint64_t index) noexcept nogil:
    # One stream per playout index: SplitMix64 expands (key, index) into the
    # 256-bit state, as the xoshiro authors recommend for seeding.
    cdef uint64_t x = key ^ (index * <uint64_t>0xD1B54A32D192ED03)
    s[0] = splitmix64(&x)
    s[1] = splitmix64(&x)
    s[2] = splitmix64(&x)
    s[3] = splitmix64(&x)
