package results

import "testing"

func TestGrowth(t *testing.T) {
	small := []float64{100, 104, 96, 102, 98, 100}
	for _, c := range []struct {
		name        string
		large       []float64
		ratio       float64
		least, most float64 // where the bound must lie
	}{
		// The same spread, no growth: the bound lies above 1, within the samples' own spread.
		{"none", small, 1, 1, 1.09},
		{"doubled", scaled(small, 2), 2, 2, 2.17},
		// A wide spread widens the bound: it reaches toward the largest sample over the smallest.
		{"wide", []float64{100, 200, 90, 110, 300, 95}, 1.05, 1.5, 3.2},
	} {
		ratio, most := Growth(small, c.large, Confidence)
		if ratio < c.ratio-0.01 || ratio > c.ratio+0.01 || most < c.least || most > c.most {
			t.Errorf("%s: Growth = %.3f, at most %.3f; want %.2f, at most in [%.2f, %.2f]", c.name, ratio, most, c.ratio, c.least, c.most)
		}
		if again, most2 := Growth(small, c.large, Confidence); again != ratio || most2 != most {
			t.Errorf("%s: two calls differ: %v %v against %v %v", c.name, again, most2, ratio, most)
		}
	}
	if r, m := Growth(nil, small, Confidence); r != 0 || m != 0 {
		t.Errorf("Growth of no samples = %v, %v", r, m)
	}
}
