package results

import (
	"fmt"
	"math"

	"golang.org/x/perf/benchmath"
)

// Deciding is the unit that a verdict on files decides on, and its name:
// the CPU time where every file has it, as it holds while other programs
// take the cores; else the wall time.
func Deciding(bench string, files ...*File) (unit, name string) {
	for _, f := range files {
		if len(f.Values(bench, "cpu-sec/op")) == 0 {
			return "sec/op", "wall time"
		}
	}
	return "cpu-sec/op", "CPU time"
}

// Floor is the smallest difference, as a share, that a run could tell apart
// at bench in unit. a and again measured the same binary, interleaved like
// the stages, so they differ by noise alone: the floor is the widest of
// their confidence intervals and the distance between their medians. Without
// again, the intervals of a alone.
func Floor(a, again *File, bench, unit string) float64 {
	sa := summary(a.Values(bench, unit))
	floor := spread(sa)
	if again != nil {
		sb := summary(again.Values(bench, unit))
		floor = max(floor, spread(sb), math.Abs(sb.Center/sa.Center-1))
	}
	return floor
}

// Label says how widely values spread, by their standard deviation over
// their mean: under 5% reliable, up to 20% noisy, beyond that unstable.
func Label(values []float64) string {
	s := benchmath.NewSample(values, &benchmath.DefaultThresholds)
	var sum, squares float64
	for _, v := range s.Values {
		sum += v
	}
	mean := sum / float64(len(s.Values))
	for _, v := range s.Values {
		squares += (v - mean) * (v - mean)
	}
	switch cv := math.Sqrt(squares/float64(max(1, len(s.Values)-1))) / mean; {
	case cv < 0.05:
		return "reliable"
	case cv <= 0.20:
		return "noisy"
	}
	return "unstable"
}

// Verdict is how other compares with base at bench, in the deciding unit:
// "2.3x faster than stage0-linear", or slower, when benchstat's test tells
// them apart and the ratio is beyond the run's floor (again is base measured
// a second time, or nil); else "no difference from stage0-linear: cannot
// tell on this machine". Then the unit, the floor and the spread of other's
// figure, in brackets.
func Verdict(base, again, other *File, bench string) (string, error) {
	unit, name := Deciding(bench, base, other)
	a, b := base.Values(bench, unit), other.Values(bench, unit)
	if len(a) == 0 || len(b) == 0 {
		return "", fmt.Errorf("no %s of %s in %s and %s", unit, bench, base.Name, other.Name)
	}
	floor := Floor(base, again, bench, unit)
	sa, sb := summary(a), summary(b)
	times, way := sa.Center/sb.Center, "faster"
	if times < 1 {
		times, way = 1/times, "slower"
	}
	c := benchmath.AssumeNothing.Compare(sample(a), sample(b))
	line := fmt.Sprintf("no difference from %s: cannot tell on this machine", base.Name)
	if c.P < c.Alpha && times-1 > floor {
		line = fmt.Sprintf("%s %s than %s", Times(times), way, base.Name)
	}
	return fmt.Sprintf("%s (%s, floor ±%.0f%%, %s)", line, name, 100*floor, Label(b)), nil
}

// Times writes a ratio as the tables do: 1.04x, 2.3x, 22x.
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

// spread is how far the 95% confidence interval reaches from the median,
// as a share of it: what benchstat prints after ±.
func spread(s benchmath.Summary) float64 { return max(s.Hi-s.Center, s.Center-s.Lo) / s.Center }
