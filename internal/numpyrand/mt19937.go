package numpyrand

// MT19937 parameters (Matsumoto and Nishimura, 1998).
const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

// mt19937 is the Mersenne Twister state: 624 words and the read position.
type mt19937 struct {
	key [mtN]uint32
	pos int
}

// seed initialises m as the reference init_genrand(s), which is what numpy's
// legacy mt19937_seed does for an integer seed.
func (m *mt19937) seed(s uint32) {
	m.key[0] = s
	for i := 1; i < mtN; i++ {
		prev := m.key[i-1]
		m.key[i] = 1812433253*(prev^(prev>>30)) + uint32(i)
	}
	m.pos = mtN
}

// generate refills the whole state block (the reference "next_state").
func (m *mt19937) generate() {
	k := &m.key
	for i := 0; i < mtN; i++ {
		y := (k[i] & mtUpperMask) | (k[(i+1)%mtN] & mtLowerMask)
		v := k[(i+mtM)%mtN] ^ (y >> 1)
		if y&1 != 0 {
			v ^= mtMatrixA
		}
		k[i] = v
	}
	m.pos = 0
}

// uint32 returns the next tempered 32-bit output.
func (m *mt19937) uint32() uint32 {
	if m.pos >= mtN {
		m.generate()
	}
	y := m.key[m.pos]
	m.pos++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}
