package results

import (
	"fmt"
	"math"

	"golang.org/x/perf/benchmath"
)

// Deciding is the unit that decides between files, and its name: the CPU
// time where every file has it, as it holds while other programs take the
// cores; else the wall time.
func Deciding(bench string, files ...*File) (unit, name string) {
	for _, f := range files {
		if len(f.Values(bench, "cpu-sec/op")) == 0 {
			return "sec/op", "wall time"
		}
	}
	return "cpu-sec/op", "CPU time"
}

// Comparison is how one stage compares with another at one benchmark, in the deciding unit.
type Comparison struct {
	Unit, UnitName string
	Ratio          float64 // the base's median over the other's: above 1, the other is faster
	Floor          float64 // the smallest share this run could tell apart (see Compare)
	Decided        bool    // benchstat's test tells them apart, and the ratio is beyond the floor
	Label          string  // how widely the other's samples spread
}

// Compare compares other with base at bench. The floor is the wider confidence interval of the
// two, as a share of its median; again, if not nil, is base's binary measured a second time,
// interleaved (the A/A label), so its interval and its distance from base count too: noise alone.
func Compare(base, again, other *File, bench string) (Comparison, error) {
	unit, name := Deciding(bench, base, other)
	a, b := base.Values(bench, unit), other.Values(bench, unit)
	if len(a) == 0 || len(b) == 0 {
		return Comparison{}, fmt.Errorf("no %s of %s in %s and %s", unit, bench, base.Name, other.Name)
	}
	sa, sb := summary(a), summary(b)
	floor := max(spread(sa), spread(sb))
	if again != nil && len(again.Values(bench, unit)) > 0 {
		s := summary(again.Values(bench, unit))
		floor = max(floor, spread(s), math.Abs(s.Center/sa.Center-1))
	}
	ratio := sa.Center / sb.Center
	test := benchmath.AssumeNothing.Compare(sample(a), sample(b))
	beyond := max(ratio, 1/ratio)-1 > floor
	return Comparison{unit, name, ratio, floor, test.P < test.Alpha && beyond, Label(b)}, nil
}

// Verdict says c against the stage named base in a line: "2.3x faster than stage0-linear", or slower,
// or "no difference from stage0-linear: cannot tell on this machine"; then the unit, floor and spread.
func (c Comparison) Verdict(base string) string {
	line := fmt.Sprintf("no difference from %s: cannot tell on this machine", base)
	switch {
	case c.Decided && c.Ratio >= 1:
		line = fmt.Sprintf("%s faster than %s", Times(c.Ratio), base)
	case c.Decided:
		line = fmt.Sprintf("%s slower than %s", Times(1/c.Ratio), base)
	}
	return fmt.Sprintf("%s (%s, floor ±%.0f%%, %s)", line, c.UnitName, 100*c.Floor, c.Label)
}

// Label says how widely values spread, by their standard deviation over
// their mean: under 5% reliable, up to 20% noisy, beyond that unstable.
func Label(values []float64) string {
	var sum, squares float64
	for _, v := range values {
		sum += v
	}
	mean := sum / float64(len(values))
	for _, v := range values {
		squares += (v - mean) * (v - mean)
	}
	switch cv := math.Sqrt(squares/float64(max(1, len(values)-1))) / mean; {
	case cv < 0.05:
		return "reliable"
	case cv <= 0.20:
		return "noisy"
	}
	return "unstable"
}

// Times formats a ratio in every table, chart and verdict: 0.25x (four
// times slower), 1.04x, 2.3x, 22x.
func Times(r float64) string {
	switch {
	case r >= 10:
		return fmt.Sprintf("%.0fx", r)
	case r < 1.05:
		return fmt.Sprintf("%.2fx", r)
	}
	return fmt.Sprintf("%.1fx", r)
}

func sample(values []float64) *benchmath.Sample {
	return benchmath.NewSample(values, &benchmath.DefaultThresholds)
}

func summary(values []float64) benchmath.Summary {
	return benchmath.AssumeNothing.Summary(sample(values), 0.95)
}

// spread is how far the 95% confidence interval reaches from the median, as
// a share of it: what benchstat prints after ±.
func spread(s benchmath.Summary) float64 { return max(s.Hi-s.Center, s.Center-s.Lo) / s.Center }
