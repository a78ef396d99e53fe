// Package numpyrand reproduces numpy's legacy random stream
// (numpy.random.RandomState, MT19937) bit for bit, and on top of it the
// instance generator the authors used for the LCQP experiments (Table 4),
// draw for draw.
//
// The stream follows numpy's frozen legacy implementation (identical in every
// numpy release since 1.16):
//
//   - Seeding: RandomState(seed) / numpy.random.seed(seed) with an integer
//     seed uses the Mersenne Twister reference init_genrand (Knuth's linear
//     recurrence with multiplier 1812433253), not init_by_array; the latter is
//     used only for array seeds. Seeding clears the cached Gaussian.
//   - random_sample: a 53-bit double (a>>5)*2^26 + (b>>6), divided by 2^53,
//     from two consecutive 32-bit outputs a and b.
//   - Gaussians: the Marsaglia polar method on 2u-1 pairs, returning f*x2 and
//     caching f*x1 for the next call; the cache survives calls to other
//     methods (rand, shuffle) and is cleared only by reseeding.
//   - shuffle of a list: for i = n-1 down to 1, swap x[i] and x[j] with
//     j = random_interval(i), which draws 32-bit outputs masked to the
//     smallest all-ones mask >= i and rejects values > i.
//   - Arrays are filled in C order (last index fastest).
//
// A RandomState is not safe for concurrent use. Nothing in this package reads
// global state: two RandomStates built with the same seed give the same
// stream.
package numpyrand
