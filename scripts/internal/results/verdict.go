package results

import (
	"fmt"
	"math"
	"slices"
	"strings"

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
	Ratio          float64  // the base's median over the other's: above 1, the other is faster
	Floor          float64  // the run's floor, in the measure of Gap (see Compare)
	Twice          bool     // the floor came from an A/A pair: the base's binary measured a second time
	Decided        bool     // benchstat's test tells them apart, and the gap is larger than the floor
	Same           bool     // not decided, and the gap no larger than the floor, which is under SmallestStep
	Label          string   // how widely the other's samples spread
	P              float64  // benchstat's p-value of the two samples; they differ by its test under 0.05
	Exact          []Signal // allocs/op and B/op, where both files have them
}

// SmallestStep is the gap that the smallest step of the exercises puts between two stages
// (1.2x faster: the slower takes 20% longer), a little less: a floor under it would have seen
// each of them, so that two stages no farther apart than the floor show no difference.
const SmallestStep = 0.15

// Signal is a count that the same code repeats to the unit in every round, whatever
// the machine is doing: allocations per operation, bytes allocated per operation.
type Signal struct {
	Unit    string  // allocs/op or B/op
	Ratio   float64 // the base's median over the other's: above 1, the other allocates less
	Decided bool    // every sample of one lies below every sample of the other
}

// Compare compares other with base at bench. A difference is decided only when benchstat's test
// tells the two apart and their gap (Gap) is larger than the run's floor, measured the same way.
// The floor is the largest difference the A/A pair showed, with again (base's binary measured a
// second time, interleaved: the A/A label): the gap between base and again, or how far either's
// 95% confidence interval reaches from its median. Without an A/A pair, it is the stages' own
// spread: how far base's or other's interval reaches.
func Compare(base, again, other *File, bench string) (Comparison, error) {
	unit, name := Deciding(bench, base, other)
	a, b := base.Values(bench, unit), other.Values(bench, unit)
	if len(a) == 0 || len(b) == 0 {
		return Comparison{}, fmt.Errorf("no %s of %s in %s and %s", unit, bench, base.Name, other.Name)
	}
	sa, sb := summary(a), summary(b)
	c := Comparison{Unit: unit, UnitName: name, Ratio: sa.Center / sb.Center, Label: Label(b)}
	c.Floor = max(spread(sa), spread(sb))
	if again != nil && len(again.Values(bench, unit)) > 0 {
		s := summary(again.Values(bench, unit))
		c.Twice, c.Floor = true, max(spread(sa), spread(s), gap(sa.Center/s.Center))
	}
	test := benchmath.AssumeNothing.Compare(sample(a), sample(b))
	c.P, c.Decided = test.P, test.P < test.Alpha && c.Gap() > c.Floor
	c.Same = !c.Decided && c.Gap() <= c.Floor && c.Floor < SmallestStep
	for _, u := range []string{"allocs/op", "B/op"} {
		if x, y := base.Values(bench, u), other.Values(bench, u); len(x) > 0 && len(y) > 0 {
			disjoint := slices.Max(x) < slices.Min(y) || slices.Max(y) < slices.Min(x)
			c.Exact = append(c.Exact, Signal{u, Median(x) / max(Median(y), 1e-9), disjoint && len(x) >= 3 && len(y) >= 3})
		}
	}
	return c, nil
}

// Gap is how much longer the slower of the two takes than the faster, as a share of the
// faster's median: 1.3 for 2.3x faster or slower. It is what Compare holds against the floor.
func (c Comparison) Gap() float64 { return gap(c.Ratio) }

func gap(ratio float64) float64 { return max(ratio, 1/ratio) - 1 }

// Verdict says c against the stage named base in a line, in plain words: "2.3x faster than
// stage0-linear in CPU time", or slower, or "no difference from", or the exact counts that tell
// them apart, or find them alike, where the time cannot, or "cannot tell on this machine"; then
// the gap that it decided on, the floor it held it against, and where that floor came from.
func (c Comparison) Verdict(base string) string {
	var counts []string
	for _, s := range c.Exact {
		switch {
		case s.Decided && s.Ratio > 1:
			counts = append(counts, fmt.Sprintf("%.0f%% fewer %s", 100*(1-1/s.Ratio), s.Unit))
		case s.Decided:
			counts = append(counts, fmt.Sprintf("%.0f%% more %s", 100*(1/s.Ratio-1), s.Unit))
		}
	}
	gap, floor := percents(c.Gap(), c.Floor)
	apart := fmt.Sprintf("the slower takes %s longer; the floor, %s, is %s; %s", gap, c.FloorSource(), floor, c.Label)
	if math.IsInf(c.Floor, 1) {
		apart = fmt.Sprintf("the slower takes %s longer; the floor, %s, is unknown: it needs 6 samples of each; %s", gap, c.FloorSource(), c.Label)
	}
	if !c.Decided && c.Gap() > c.Floor {
		apart += fmt.Sprintf("; over the floor, but benchstat's test cannot tell the samples apart: p=%.3f", c.P)
	}
	var line string
	switch {
	case c.Decided && c.Ratio >= 1:
		line = fmt.Sprintf("%s faster than %s in %s (%s)", Times(c.Ratio), base, c.UnitName, apart)
	case c.Decided:
		line = fmt.Sprintf("%s slower than %s in %s (%s)", Times(1/c.Ratio), base, c.UnitName, apart)
	case len(counts) > 0:
		return fmt.Sprintf("%s than %s, counted exactly; %s cannot tell on this machine (%s)",
			strings.Join(counts, " and "), base, c.UnitName, apart)
	case c.Same:
		line = fmt.Sprintf("no difference from %s in %s (%s)", base, c.UnitName, apart)
	case len(c.Exact) > 0:
		return fmt.Sprintf("no difference from %s in allocations, counted exactly; %s cannot tell on this machine (%s)", base, c.UnitName, apart)
	default:
		return fmt.Sprintf("cannot tell on this machine whether it differs from %s in %s (%s)", base, c.UnitName, apart)
	}
	switch {
	case len(counts) > 0:
		line += "; " + strings.Join(counts, ", ")
	case len(c.Exact) > 0:
		line += "; the same allocations"
	}
	return line
}

// FloorSource says where c's floor came from: the A/A pair, or the stages' own spread.
func (c Comparison) FloorSource() string {
	if c.Twice {
		return "the largest difference the A/A pair showed"
	}
	return "the stages' own spread, without an A/A pair"
}

// percents prints the gap and the floor in whole percent, or with as many decimals as it takes
// to show which is larger: the figures printed never contradict the decision.
func percents(gap, floor float64) (string, string) {
	for decimals := 0; ; decimals++ {
		g, f := fmt.Sprintf("%.*f%%", decimals, 100*gap), fmt.Sprintf("%.*f%%", decimals, 100*floor)
		if g != f || gap == floor || decimals == 4 {
			return g, f
		}
	}
}

// Reliable and Noisy are the bounds of Label: the standard deviation over the mean under
// which samples are reliable, and up to which they are noisy; beyond it, unstable.
const Reliable, Noisy = 0.05, 0.20

// Confidence is the level of every confidence interval: benchstat's default.
const Confidence = 0.95

// Label says how widely values spread, by their standard deviation over
// their mean: under Reliable reliable, up to Noisy noisy, beyond that unstable.
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
	case cv < Reliable:
		return "reliable"
	case cv <= Noisy:
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
	return benchmath.AssumeNothing.Summary(sample(values), Confidence)
}

// spread is how far the confidence interval reaches from the median, in the measure of Gap: how
// much longer its slower end takes than the median, or the median than its faster end.
func spread(s benchmath.Summary) float64 { return max(gap(s.Hi/s.Center), gap(s.Center/s.Lo)) }
