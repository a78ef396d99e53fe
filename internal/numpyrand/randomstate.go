package numpyrand

import "math"

// RandomState is numpy's legacy numpy.random.RandomState: an MT19937 stream
// plus the cached second value of the polar Gaussian method. The zero value
// is not usable; build one with New.
type RandomState struct {
	mt       mt19937
	hasGauss bool
	gauss    float64
}

// New returns a RandomState seeded as numpy.random.seed(seed) (equivalently
// numpy.random.RandomState(seed)) with an integer seed.
func New(seed uint32) *RandomState {
	r := &RandomState{}
	r.Seed(seed)
	return r
}

// Seed reseeds r as numpy.random.seed(seed) does: the MT19937 state is
// rebuilt with init_genrand(seed) and the cached Gaussian is discarded.
func (r *RandomState) Seed(seed uint32) {
	r.mt.seed(seed)
	r.hasGauss = false
	r.gauss = 0
}

// Uint32 returns the next raw 32-bit MT19937 output.
func (r *RandomState) Uint32() uint32 { return r.mt.uint32() }

// RandomSample returns one uniform double in [0, 1), as numpy's
// random_sample: 53 bits built from two 32-bit outputs a and b as
// ((a>>5)*2^26 + (b>>6)) / 2^53.
func (r *RandomState) RandomSample() float64 {
	a := r.mt.uint32() >> 5
	b := r.mt.uint32() >> 6
	return (float64(a)*67108864.0 + float64(b)) / 9007199254740992.0
}

// FillRand overwrites dst with successive RandomSample values.
func (r *RandomState) FillRand(dst []float64) {
	for i := range dst {
		dst[i] = r.RandomSample()
	}
}

// Rand returns n uniform samples in [0, 1), as numpy's rand(n). For a
// multi-dimensional numpy shape, pass the product of the dimensions and read
// the result in C order (last index fastest). It panics if n < 0.
func (r *RandomState) Rand(n int) []float64 {
	out := make([]float64, n)
	r.FillRand(out)
	return out
}

// Gauss returns one standard normal value by numpy's legacy polar method: if
// a value is cached it is returned and the cache cleared; otherwise pairs
// x1, x2 = 2u-1 are drawn until 0 < r2 = x1²+x2² < 1, f = sqrt(-2 ln(r2)/r2),
// f*x1 is cached and f*x2 returned.
func (r *RandomState) Gauss() float64 {
	if r.hasGauss {
		g := r.gauss
		r.hasGauss = false
		r.gauss = 0
		return g
	}
	var x1, x2, r2 float64
	for {
		x1 = 2*r.RandomSample() - 1
		x2 = 2*r.RandomSample() - 1
		r2 = x1*x1 + x2*x2
		if r2 < 1 && r2 != 0 {
			break
		}
	}
	f := math.Sqrt(-2 * math.Log(r2) / r2)
	r.gauss = f * x1
	r.hasGauss = true
	return f * x2
}

// FillNormal overwrites dst with loc + scale*Gauss(), element by element, as
// numpy's legacy normal(loc, scale, size) does.
func (r *RandomState) FillNormal(dst []float64, loc, scale float64) {
	for i := range dst {
		dst[i] = loc + scale*r.Gauss()
	}
}

// Randn returns n standard normal values, as numpy's randn(n) (legacy polar
// method, second value cached across calls). For a multi-dimensional shape,
// pass the product of the dimensions and read the result in C order. It
// panics if n < 0.
func (r *RandomState) Randn(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = r.Gauss()
	}
	return out
}

// Normal returns n values loc + scale*Gauss(), as numpy's legacy
// normal(loc, scale, n). It panics if n < 0.
func (r *RandomState) Normal(loc, scale float64, n int) []float64 {
	out := make([]float64, n)
	r.FillNormal(out, loc, scale)
	return out
}

// Interval returns a uniform integer in [0, max] as numpy's random_interval:
// 32-bit outputs (64-bit ones, built as hi<<32|lo, when max >= 2^32) are
// masked to the smallest all-ones mask covering max, and values above max
// are rejected. Interval(0) consumes no draws and returns 0.
func (r *RandomState) Interval(max uint64) uint64 {
	if max == 0 {
		return 0
	}
	mask := max
	mask |= mask >> 1
	mask |= mask >> 2
	mask |= mask >> 4
	mask |= mask >> 8
	mask |= mask >> 16
	mask |= mask >> 32
	if max <= math.MaxUint32 {
		for {
			if v := uint64(r.mt.uint32()) & mask; v <= max {
				return v
			}
		}
	}
	for {
		hi := uint64(r.mt.uint32())
		lo := uint64(r.mt.uint32())
		if v := (hi<<32 | lo) & mask; v <= max {
			return v
		}
	}
}

// Shuffle permutes x in place as numpy's legacy shuffle of a list (or of a
// 1-d array): for i from len(x)-1 down to 1, x[i] is swapped with
// x[Interval(i)].
func (r *RandomState) Shuffle(x []int) {
	for i := len(x) - 1; i > 0; i-- {
		j := r.Interval(uint64(i))
		x[i], x[j] = x[j], x[i]
	}
}
