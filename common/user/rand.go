package user

// splitMix is SplitMix64 (Steele, Lea and Flood, 2014), rather than
// math/rand, so that a seed means the same users on every Go version.
type splitMix struct{ state uint64 }

func newSplitMix(seed uint64) *splitMix { return &splitMix{state: seed} }

func (r *splitMix) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intN returns a number in [0, n), with a modulo bias below 2^-40 here.
func (r *splitMix) intN(n int) int { return int(r.next() % uint64(n)) }

// shuffle permutes s in place (Fisher-Yates).
func (r *splitMix) shuffle(s []string) {
	for i := len(s) - 1; i > 0; i-- {
		j := r.intN(i + 1)
		s[i], s[j] = s[j], s[i]
	}
}

// sample marks k distinct positions out of n, uniformly (Floyd's algorithm).
func (r *splitMix) sample(n, k int) []bool {
	chosen := make([]bool, n)
	for j := n - k; j < n; j++ {
		t := r.intN(j + 1)
		if chosen[t] {
			t = j
		}
		chosen[t] = true
	}
	return chosen
}
