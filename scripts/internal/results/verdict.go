package results

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"
)

// Deciding is the unit that decides between files, and its name: the CPU
// time where every file has it, as it holds while other programs take the
// cores; else the wall time.
func Deciding(bench string, files ...*File) (unit, name string) {
	if slices.ContainsFunc(files, func(f *File) bool { return len(f.Values(bench, "cpu-sec/op")) == 0 }) {
		return "sec/op", "wall time"
	}
	return "cpu-sec/op", "CPU time"
}

// Comparison is how one stage compares with another at one benchmark, in the deciding unit.
//
// The rule: the speed is the median of every ratio of a base sample over an other sample, with
// the 95% confidence interval (CI) that the rank test of benchstat (Mann-Whitney's U) gives it:
// its Hodges-Lehmann estimate, in ratios. The A/A pair, the base's binary measured twice in the
// same rounds, has a speed and a CI of its own. Where that CI holds 1x, the run's CIs carry its
// noise, and a step is decided when its CI leaves out 1x. Where it does not, identical code came
// out apart by more than its samples explain (the machine changed in a way that interleaving
// did not spread), and that distance, either way, is the noise band [1/(1+Band), 1+Band] that a
// step's CI must lie wholly outside. The stages are alike when the CI lies within the smallest
// step's reach; else the run cannot tell.
type Comparison struct {
	Unit, UnitName string
	Ratio, Lo, Hi  float64   // the speed (above 1, the other is faster) and its 95% CI
	AA             bool      // an A/A pair measured the noise band
	Noise          Interval  // the A/A pair's speed and its 95% CI
	Decided        bool      // [Lo, Hi] leaves out 1x and lies wholly outside the noise band
	Same           bool      // not decided, and [Lo, Hi] within [1/(1+SmallestStep), 1+SmallestStep]
	Samples        [2]int    // how many samples of the base and of the other
	Spreads        [2]string // how widely the base's and the other's samples spread: "±4% reliable"
	P              float64   // benchstat's p-value of the two samples, for the curious: the rule does not use it
	Counts         []Count   // allocs/op and B/op, where both files have them
}

// Interval is a speed, a ratio of times, and its 95% confidence interval.
type Interval struct{ Ratio, Lo, Hi float64 }

// SmallestStep is the gap that the smallest step of the exercises puts between two stages
// (1.2x faster), a little less: a CI within 1 ± SmallestStep rules out every step.
const SmallestStep = 0.15

// BusyBand is how far from 1x the A/A pair's CI may reach before a run warns that the machine
// was too busy to tell much.
const BusyBand = 0.5

// Count is a count per operation, as the base's median over the other's (above 1, the other
// allocates less). Where each file repeats one number in every round, the count is exact and
// any difference is decided; else (B/op, with pools and the collector) it is decided as a time.
type Count struct {
	Unit    string // allocs/op or B/op
	Ratio   float64
	Exact   bool // each file repeated one number
	Decided bool
	Lo, Hi  float64 // the CI of a count decided as a time
	Band    float64 // and its noise band
}

// Compare compares other with base at bench by the rule of Comparison, with again, base's
// binary measured a second time in the same rounds (nil for none: the noise band is 0, and
// a step is decided when its CI leaves out 1x).
func Compare(base, again, other *File, bench string) (Comparison, error) {
	unit, name := Deciding(bench, base, other)
	return CompareIn(unit, name, base, again, other, bench)
}

// CompareIn is Compare in unit, named name: a latency of the load tests ("p99-sec", "p99 latency").
func CompareIn(unit, name string, base, again, other *File, bench string) (Comparison, error) {
	a, b := base.Values(bench, unit), other.Values(bench, unit)
	if len(a) == 0 || len(b) == 0 {
		return Comparison{}, fmt.Errorf("no %s of %s in %s and %s", unit, bench, base.Name, other.Name)
	}
	speed := Speed(a, b)
	c := Comparison{Unit: unit, UnitName: name, Ratio: speed.Ratio, Lo: speed.Lo, Hi: speed.Hi,
		Samples: [2]int{len(a), len(b)}, Spreads: [2]string{Spread(a), Spread(b)}}
	if again != nil && len(again.Values(bench, unit)) > 0 {
		c.AA, c.Noise = true, Speed(a, again.Values(bench, unit))
	}
	c.P = benchmath.AssumeNothing.Compare(sample(a), sample(b)).P
	c.decide()
	for _, u := range []string{"allocs/op", "B/op"} {
		x, y := base.Values(bench, u), other.Values(bench, u)
		if len(x) == 0 || len(y) == 0 {
			continue
		}
		n := Count{Unit: u, Ratio: countRatio(Median(x), Median(y)), Exact: slices.Min(x) == slices.Max(x) && slices.Min(y) == slices.Max(y)}
		if n.Exact {
			n.Decided = x[0] != y[0]
		} else if slices.Contains(x, 0) || slices.Contains(y, 0) {
			// A ratio cannot divide by zero; where every sample of one lies below every
			// sample of the other (none allocated, the other always did), that decides it.
			n.Decided = slices.Max(x) < slices.Min(y) || slices.Max(y) < slices.Min(x)
		} else {
			s := Speed(x, y)
			n.Lo, n.Hi = s.Lo, s.Hi
			if again != nil && len(again.Values(bench, u)) > 0 && !slices.Contains(again.Values(bench, u), 0) {
				n.Band = noiseBand(Speed(x, again.Values(bench, u)))
			}
			n.Decided = clear(s.Lo, s.Hi, n.Band)
		}
		c.Counts = append(c.Counts, n)
	}
	return c, nil
}

// Band is the half width of c's noise band: 0.08 for [0.93x, 1.08x]; 0 without an A/A pair
// or where its CI holds 1x.
func (c Comparison) Band() float64 {
	if !c.AA {
		return 0
	}
	return noiseBand(c.Noise)
}

// WithNoise is c held against aa, the speed of an A/A pair of the same run measured for another
// stage (the Noise of Compare(first, again, again, bench)), where its band is wider than c's own.
func (c Comparison) WithNoise(aa Interval) Comparison {
	if !c.AA || noiseBand(aa) > c.Band() {
		c.AA, c.Noise = true, aa
		c.decide()
	}
	return c
}

// InRun is c, a comparison at bench of two stages of the run whose first stage's file is first,
// held against that run's A/A pair (first measured again beside it, FIRST.again.txt), where it
// has one: the noise band of the stages that have no A/A pair of their own.
func (c Comparison) InRun(first *File, bench string) Comparison {
	if first.Path == "" {
		return c
	}
	again, err := Read(strings.TrimSuffix(first.Path, ".txt") + ".again.txt")
	if err != nil {
		return c // a run without an A/A pair
	}
	if a, b := first.Values(bench, c.Unit), again.Values(bench, c.Unit); len(a) > 0 && len(b) > 0 {
		c = c.WithNoise(Speed(a, b))
	}
	return c
}

func (c *Comparison) decide() {
	c.Decided = clear(c.Lo, c.Hi, c.Band())
	c.Same = !c.Decided && c.Lo >= 1/(1+SmallestStep) && c.Hi <= 1+SmallestStep
}

// clear is whether [lo, hi] lies wholly outside the noise band of half width band.
func clear(lo, hi, band float64) bool {
	return !math.IsInf(hi, 0) && lo > 0 && (lo > 1+band || hi < 1/(1+band))
}

// noiseBand is the half width of the noise band of an A/A pair: 0 where its CI holds 1x, else
// how far from 1x its speed came out.
func noiseBand(aa Interval) float64 {
	if aa.Lo <= 1 && 1 <= aa.Hi {
		return 0
	}
	return max(aa.Ratio, 1/aa.Ratio) - 1
}

// Speed is how many times faster other's samples are than base's: the median of every ratio
// base[i]/other[j], and its 95% CI, from the ranks as Mann-Whitney's U test (benchstat's)
// counts them: the k-th smallest and largest ratio, where U < k has a chance under 2.5%.
// Too few samples for such a k (under 4 each) give the CI [0, +Inf].
func Speed(base, other []float64) Interval {
	ratios := make([]float64, 0, len(base)*len(other))
	for _, x := range base {
		for _, y := range other {
			ratios = append(ratios, x/y)
		}
	}
	slices.Sort(ratios)
	s := Interval{Ratio: Median(ratios), Lo: 0, Hi: math.Inf(1)}
	if k := leftOut(len(base), len(other)); k > 0 {
		s.Lo, s.Hi = ratios[k-1], ratios[len(ratios)-k]
	}
	return s
}

// leftOutBySizes keeps leftOut's answers: U's exact distribution takes milliseconds for 30
// samples each, and a check asks again after every round.
var leftOutBySizes sync.Map // [2]int{n1, n2} -> int

// leftOut is how many ratios of n1 x n2 samples Speed's CI leaves out at each end.
func leftOut(n1, n2 int) int {
	if k, ok := leftOutBySizes.Load([2]int{n1, n2}); ok {
		return k.(int)
	}
	u, k := stats.UDist{N1: n1, N2: n2}, 0
	for u.CDF(float64(k)) <= (1-Confidence)/2 {
		k++
	}
	leftOutBySizes.Store([2]int{n1, n2}, k)
	return k
}

// Busy is the warning that c's A/A pair deserves where its CI reaches beyond BusyBand, or "".
func (c Comparison) Busy() string {
	reach := max(c.Noise.Hi, 1/c.Noise.Lo) - 1
	if !c.AA || reach <= BusyBand || math.IsInf(reach, 0) { // an infinite CI: too few samples, not a busy machine
		return ""
	}
	return fmt.Sprintf("the A/A pair's 95%% CI reaches %s from 1x: this machine is busy, and only large steps can be decided; "+
		"close other programs, or measure with --hold-cores, or with more rounds (--rounds 20)", percent(reach))
}

// Verdict says c against the stage named base: a first line (at most 160 characters with stage
// names of 20) with the speed, its CI, the noise band it was held against, and "decided", "alike"
// or "cannot tell"; then lines of detail, each indented by two spaces.
func (c Comparison) Verdict(base string) string {
	ci, band, decimals := figures(c.Lo, c.Hi, c.Band(), c.Decided)
	held := "95% CI " + ci + ", noise band " + band
	if c.Band() == 0 {
		held = "95% CI " + ci + ", " + c.AASaid()
	}
	speed := strconv.FormatFloat(c.Ratio, 'f', 2, 64) + "x" // as precise as the CI
	var first string
	switch {
	case math.IsInf(c.Hi, 0):
		first = fmt.Sprintf("cannot tell against %s in %s: speed %s, %d and %d samples give no 95%% CI; it needs 4 of each",
			base, c.UnitName, speed, c.Samples[0], c.Samples[1])
	case c.Decided && c.Ratio >= 1:
		first = fmt.Sprintf("%s faster than %s in %s: decided, %s", asPrinted(c.Ratio, decimals), base, c.UnitName, held)
	case c.Decided:
		first = fmt.Sprintf("%s slower than %s in %s: decided, speed %s, %s", asPrinted(1/c.Ratio, decimals), base, c.UnitName, speed, held)
	case c.Same:
		first = fmt.Sprintf("alike within ±%s of %s in %s: speed %s, %s", percent(SmallestStep), base, c.UnitName, speed, held)
	default:
		first = fmt.Sprintf("cannot tell against %s in %s: speed %s, %s", base, c.UnitName, speed, held)
	}
	// The first count decided exactly, where the time is not decided; the lines below say the others.
	if i := slices.IndexFunc(c.Counts, func(n Count) bool { return n.Exact && n.Decided }); i >= 0 && !c.Decided {
		first += "; " + c.Counts[i].change() + ", counted exactly"
	}
	var details []string
	if c.AA {
		details = append(details, c.NoiseLine())
	}
	details = append(details, fmt.Sprintf("spread: %s %s, this stage %s; %d and %d samples; benchstat's p=%.3f",
		base, c.Spreads[0], c.Spreads[1], c.Samples[0], c.Samples[1], c.P))
	if !c.Decided && !c.Same && !math.IsInf(c.Hi, 0) {
		details = append(details, "cannot tell: the CI reaches 1x or the noise band; more rounds, or a quieter machine, narrow it")
	}
	for _, n := range c.Counts {
		details = append(details, n.say())
	}
	if w := c.Busy(); w != "" {
		details = append(details, "warning: "+w)
	}
	return first + "\n  " + strings.Join(details, "\n  ")
}

// AASaid is what the A/A pair gave a verdict, in short: "A/A CI [0.95x, 1.04x] holds 1x", a
// noise band, or "no A/A pair".
func (c Comparison) AASaid() string {
	switch {
	case !c.AA:
		return "no A/A pair"
	case c.Band() == 0:
		return fmt.Sprintf("A/A CI [%s, %s] holds 1x", Times(c.Noise.Lo), Times(c.Noise.Hi))
	}
	return fmt.Sprintf("noise band [%s, %s]", Times(1/(1+c.Band())), Times(1+c.Band()))
}

// NoiseLine says what the A/A pair measured and the noise band it gives.
func (c Comparison) NoiseLine() string {
	if c.Band() == 0 {
		return fmt.Sprintf("A/A pair: its speed %s, 95%% CI [%s, %s], holds 1x: the CIs carry the run's noise, and no noise band is added",
			Times(c.Noise.Ratio), Times(c.Noise.Lo), Times(c.Noise.Hi))
	}
	return fmt.Sprintf("noise band: the A/A pair came out %s apart, beyond its own 95%% CI [%s, %s]",
		percent(c.Band()), Times(c.Noise.Lo), Times(c.Noise.Hi))
}

// FirstLine is the first line of a verdict: the one that check's hand-in and the pages' lists keep.
func FirstLine(verdict string) string {
	first, _, _ := strings.Cut(verdict, "\n")
	return first
}

// change is a count's difference in words: "49% fewer allocs/op", never "0%" for one decided.
func (n Count) change() string {
	if n.Ratio == 0 { // the base made none
		return "more " + n.Unit + ", where the base made none"
	}
	if n.Ratio >= 1 {
		return fmt.Sprintf("%s fewer %s", percent(1-1/n.Ratio), n.Unit)
	}
	return fmt.Sprintf("%s more %s", percent(1/n.Ratio-1), n.Unit)
}

// say is a count's line of detail.
func (n Count) say() string {
	switch {
	case n.Exact && n.Decided:
		return n.Unit + ": " + n.change() + ", counted exactly: each stage repeated one number in every round"
	case n.Exact:
		return n.Unit + ": the same, counted exactly"
	case n.Hi == 0 && n.Decided:
		return n.Unit + ": " + n.change() + ": zero in some rounds, and every sample of one stage below every sample of the other"
	case n.Hi == 0:
		return n.Unit + ": varies from round to round, and is zero in some; cannot tell"
	}
	ci, band, decimals := figures(n.Lo, n.Hi, n.Band, n.Decided)
	what, held := "cannot tell", "noise band "+band
	if n.Decided {
		what = n.change()
	}
	if n.Band == 0 { // the A/A pair's CI held 1x, or there was none
		held = "no noise band"
	}
	return fmt.Sprintf("%s: varies from round to round, so decided as a time: %s (ratio %s, 95%% CI %s, %s)",
		n.Unit, what, asPrinted(n.Ratio, decimals), ci, held)
}

// figures prints an interval and a noise band of half width band, "[1.46x, 1.55x]" and
// "[0.93x, 1.08x]", with as many decimals as it takes for the printed figures to show the
// decision: an interval decided prints clear of the band, one not decided does not.
func figures(lo, hi, band float64, decided bool) (interval, noise string, decimals int) {
	printed := func(x float64) float64 {
		v, _ := strconv.ParseFloat(fmt.Sprintf("%.*f", decimals, x), 64)
		return v
	}
	for decimals = 2; decimals < 6; decimals++ {
		if (printed(lo) > printed(1+band) || printed(hi) < printed(1/(1+band))) == decided {
			break
		}
	}
	return fmt.Sprintf("[%.*fx, %.*fx]", decimals, lo, decimals, hi), fmt.Sprintf("[%.*fx, %.*fx]", decimals, 1/(1+band), decimals, 1+band), decimals
}

// asPrinted is r with the decimals of an interval printed beside it, so that a speed never
// reads outside it; from 10x on, as Times prints it.
func asPrinted(r float64, decimals int) string {
	if r >= 10 {
		return Times(r)
	}
	return fmt.Sprintf("%.*fx", decimals, r)
}

// percent prints a share as a percentage with two significant digits under 10%, so that no
// difference prints as 0%: 0.52%, 4.1%, 49%.
func percent(share float64) string {
	switch p := 100 * share; {
	case p < 10:
		return strconv.FormatFloat(p, 'g', 2, 64) + "%"
	case p > 99 && p < 100: // not "100%" for what is not all of it
		return strconv.FormatFloat(math.Floor(p*10)/10, 'f', -1, 64) + "%"
	}
	return fmt.Sprintf("%.0f%%", 100*share)
}

// Reliable and Noisy are the bounds of Spread: the standard deviation over the mean under
// which samples are reliable, and up to which they are noisy; beyond it, unstable.
const Reliable, Noisy = 0.05, 0.20

// Confidence is the level of every confidence interval: benchstat's default.
const Confidence = 0.95

// Spread says how widely values spread, by their standard deviation over their mean, and
// labels it: under Reliable reliable, up to Noisy noisy, beyond that unstable: "±4% reliable".
func Spread(values []float64) string {
	cv := stats.StdDev(values) / stats.Mean(values)
	label := "unstable"
	switch {
	case cv < Reliable:
		label = "reliable"
	case cv <= Noisy:
		label = "noisy"
	}
	return "±" + percent(cv) + " " + label
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

// countRatio is x over y, two counts' medians: 1 where both are 0, and +Inf where only y is.
func countRatio(x, y float64) float64 {
	switch {
	case y != 0:
		return x / y
	case x == 0:
		return 1
	}
	return math.Inf(1)
}

// sample is values as benchmath takes them: a copy, since it sorts them, and a result file's
// samples must stay in round order for Speed.
func sample(values []float64) *benchmath.Sample {
	return benchmath.NewSample(slices.Clone(values), &benchmath.DefaultThresholds)
}

// Median is the centre that benchstat prints for values (assuming nothing of their
// distribution), or 0 for none: the one median of every table, chart and verdict.
func Median(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	return benchmath.AssumeNothing.Summary(sample(values), Confidence).Center
}
