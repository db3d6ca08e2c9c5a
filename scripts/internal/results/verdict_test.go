package results

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// file is a result file of one benchmark, with wall and CPU times, and allocations if allocs is not nil.
func file(name string, wall, cpu, allocs []float64) *File {
	samples := map[Measurement][]float64{{"B", "sec/op"}: wall}
	if cpu != nil {
		samples[Measurement{"B", "cpu-sec/op"}] = cpu
	}
	if allocs != nil {
		samples[Measurement{"B", "allocs/op"}] = allocs
	}
	return NewFile(name, nil, samples)
}

// scaled is values times k.
func scaled(values []float64, k float64) []float64 {
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = v * k
	}
	return out
}

// line is a verdict's first line as printed: the speed's CI and the noise band, or an A/A pair
// whose CI holds 1x, or no A/A pair.
var line = regexp.MustCompile(`95% CI \[([0-9.]+)x, ([0-9.]+)x\], (?:noise band \[([0-9.]+)x, ([0-9.]+)x\]|A/A CI \[[0-9.]+x, [0-9.]+x\] holds 1x|no A/A pair)`)

// TestRuleAndLine is the table of the rule and its line: for each case, the words of the first
// line, and the CI and noise band that it prints agree with the decision.
func TestRuleAndLine(t *testing.T) {
	steady := []float64{100, 101, 99, 100, 102, 98}
	wild := []float64{60, 150, 80, 200, 95, 140} // as wide as a busy machine's times
	many, fewer := []float64{100, 100, 100, 100, 100, 100}, []float64{53, 53, 53, 53, 53, 53}
	aa := func(k float64) *File { return file("a.again", nil, scaled(steady, k), nil) }
	for _, c := range []struct {
		name          string
		base, new, aa *File
		starts        string // the first line's start
		decided, same bool
		also          string // in the first line
	}{
		{"decided faster", file("a", nil, steady, nil), file("b", nil, scaled(steady, 0.5), nil), aa(1.02),
			"2.00x faster than a in CPU time: decided", true, false, ""},
		{"decided slower", file("a", nil, steady, nil), file("b", nil, scaled(steady, 1.3), nil), aa(1.02),
			"1.30x slower than a in CPU time: decided, speed 0.77x", true, false, ""},
		{"no CPU time: the wall time decides", file("a", steady, nil, nil), file("b", scaled(steady, 0.5), nil, nil), nil,
			"2.00x faster than a in wall time: decided", true, false, "no A/A pair"},
		{"alike", file("a", nil, steady, nil), file("b", nil, steady, nil), aa(1.01),
			"alike within ±15% of a in CPU time: speed 1.00x", false, true, ""},
		{"cannot tell: a step inside the noise band", file("a", nil, steady, nil), file("b", nil, scaled(steady, 0.8), nil), aa(1.4),
			"cannot tell against a in CPU time: speed 1.25x", false, false, ""},
		{"decided: an A/A pair apart within its own CI adds no band", file("a", nil, steady, nil), file("b", nil, scaled(steady, 0.8), nil),
			file("a.again", nil, scaled(wild, 0.9), nil), "1.25x faster than a in CPU time: decided", true, false, "holds 1x"},
		{"cannot tell: samples too wild for a CI clear of 1x", file("a", nil, steady, nil), file("b", nil, wild, nil), aa(1.01),
			"cannot tell against a in CPU time", false, false, ""},
		{"counts only: the allocations decide what the time cannot", file("a", nil, steady, many), file("b", nil, scaled(steady, 0.8), fewer), aa(1.4),
			"cannot tell against a in CPU time", false, false, "; 47% fewer allocs/op, counted exactly"},
		{"counts beside a decided time stay below", file("a", nil, steady, many), file("b", nil, scaled(steady, 0.5), fewer), aa(1.02),
			"2.00x faster than a in CPU time: decided", true, false, ""},
	} {
		got, err := Compare(c.base, c.aa, c.new, "B")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		verdict := got.Verdict(c.base.Name)
		first := FirstLine(verdict)
		if !strings.HasPrefix(first, c.starts) || !strings.Contains(first, c.also) || got.Decided != c.decided || got.Same != c.same {
			t.Errorf("%s: %q (decided %v, alike %v); want it to start %q and hold %q, decided %v, alike %v",
				c.name, first, got.Decided, got.Same, c.starts, c.also, c.decided, c.same)
		}
		if c.decided && strings.Contains(first, "counted exactly") {
			t.Errorf("%s: a decided time puts the counts on the first line: %q", c.name, first)
		}
		agrees(t, c.name, first, got)
	}
	if _, err := Compare(file("a", steady, nil, nil), nil, file("b", nil, steady, nil), "C"); err == nil {
		t.Error("a benchmark neither file measured: no error")
	}
}

// agrees checks that first, the first line of c's verdict, prints a CI and a noise band that
// show its decision: wholly outside the band when decided, reaching into it when not; and
// that it is at most 160 characters long.
func agrees(t *testing.T, name, first string, c Comparison) {
	t.Helper()
	if n := utf8.RuneCountInString(first); n > 160 {
		t.Errorf("%s: %d characters: %q", name, n, first)
	}
	m := line.FindStringSubmatch(first)
	if m == nil {
		t.Errorf("%s: %q prints no CI and noise band", name, first)
		return
	}
	lo, hi := number(m[1]), number(m[2])
	bandLo, bandHi := 1.0, 1.0 // no A/A pair: the band is 1x
	if m[3] != "" {
		bandLo, bandHi = number(m[3]), number(m[4])
	}
	clear := lo > bandHi || hi < bandLo
	decidedWords := regexp.MustCompile(`^[0-9.]+x (faster|slower) than .*: decided`).MatchString(first)
	if clear != c.Decided || decidedWords != c.Decided || strings.Contains(first, "cannot tell") != (!c.Decided && !c.Same) {
		t.Errorf("%s: %q prints a CI %s the noise band, and says decided %v; Decided=%v", name, first,
			map[bool]string{true: "clear of", false: "reaching into"}[clear], decidedWords, c.Decided)
	}
	if c.Same && !(lo >= 1/(1+SmallestStep)-0.005 && hi <= 1+SmallestStep+0.005) {
		t.Errorf("%s: alike, but %q prints a CI beyond ±%v", name, first, SmallestStep)
	}
}

func number(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }

// TestLinesAgreeOverAGrid checks, over a grid of steps and A/A pairs, that each first line agrees
// with its decision as agrees says, and that the grid reaches each outcome with and without a pair.
func TestLinesAgreeOverAGrid(t *testing.T) {
	base := []float64{100, 104, 96, 102, 98, 100, 103, 97}
	seen := map[string]int{}
	for _, shift := range []float64{1, 1.02, 1.05, 1.08, 1.1, 1.2, 1.3, 1.45, 1.6, 2, 7.5, 0.9, 0.7, 0.5} {
		for _, aa := range []float64{0, 1, 1.05, 1.2, 1.45, 1.6} { // 0: no A/A pair
			var again *File
			if aa > 0 {
				again = file("a.again", nil, scaled(base, aa), nil)
			}
			c, err := Compare(file("a", nil, base, nil), again, file("b", nil, scaled(base, 1/shift), nil), "B")
			if err != nil {
				t.Fatal(err)
			}
			first := FirstLine(c.Verdict("stage5-materialized"))
			agrees(t, fmt.Sprintf("shift %v, A/A %v", shift, aa), first, c)
			seen[fmt.Sprintf("decided=%v alike=%v aa=%v", c.Decided, c.Same, aa > 0)]++
		}
	}
	for _, k := range []string{"decided=true alike=false aa=true", "decided=false alike=false aa=true", "decided=false alike=true aa=true",
		"decided=true alike=false aa=false", "decided=false alike=true aa=false"} {
		if seen[k] == 0 {
			t.Errorf("no case of %s in the grid: %v", k, seen)
		}
	}
}

// TestSpeed checks the CI against Mann-Whitney's: with 6 samples each it leaves out the 5 most
// extreme of the 36 ratios at each end; under 4 samples each there is no CI; the samples keep
// their order (benchmath sorts what it is given).
func TestSpeed(t *testing.T) {
	base, other := []float64{3, 1, 2, 6, 5, 4}, []float64{1, 1, 1, 1, 1, 1}
	s := Speed(base, other)
	if s.Ratio != 3.5 || s.Lo != 1 || s.Hi != 6 {
		t.Errorf("Speed of identical others = %+v; want 3.5 in [1, 6]", s)
	}
	other = []float64{1, 2, 3, 4, 5, 6}
	if s := Speed(base, other); s.Ratio != 1 || s.Lo != 0.4 || s.Hi != 2.5 {
		t.Errorf("Speed = %+v; want 1 in the 6th smallest ratio (2/5) and the 6th largest (5/2)", s)
	}
	if base[0] != 3 || Median(base) != 3.5 || base[0] != 3 {
		t.Errorf("a median sorted the samples it was given: %v", base)
	}
	if s := Speed(base[:3], other[:3]); s.Lo != 0 || !math.IsInf(s.Hi, 1) {
		t.Errorf("3 samples each give a CI: %+v", s)
	}
	few := Comparison{UnitName: "CPU time", Ratio: 2, Hi: math.Inf(1), Samples: [2]int{3, 3}}
	if first := FirstLine(few.Verdict("a")); !strings.HasPrefix(first, "cannot tell against a in CPU time: speed 2.00x, 3 and 3 samples give no 95% CI") {
		t.Errorf("too few samples: %q", first)
	}
}

// TestCounts checks that an exact count decides any difference, that a count varying from round
// to round (B/op) is decided as a time, and that no decided difference prints as 0%.
func TestCounts(t *testing.T) {
	steady := []float64{100, 101, 99, 100, 102, 98}
	exact := Count{Unit: "allocs/op", Ratio: 200.0 / 199, Exact: true, Decided: true}
	if got := exact.change(); got != "0.5% fewer allocs/op" {
		t.Errorf("a decided 0.5%% difference reads %q", got)
	}
	f := func(name string, bytes []float64) *File {
		return NewFile(name, nil, map[Measurement][]float64{{"B", "cpu-sec/op"}: steady, {"B", "B/op"}: bytes})
	}
	bytes := []float64{1000, 1010, 990, 1005, 995, 1000}
	c, err := Compare(f("a", bytes), f("a.again", scaled(bytes, 1.01)), f("b", scaled(bytes, 0.5)), "B")
	if err != nil || len(c.Counts) != 1 || c.Counts[0].Exact || !c.Counts[0].Decided {
		t.Fatalf("B/op halved, varying: %+v, %v; want decided, not exact", c.Counts, err)
	}
	if v := c.Verdict("a"); !strings.Contains(v, "B/op: varies from round to round, so decided as a time: 50% fewer B/op") ||
		strings.Contains(FirstLine(v), "B/op") {
		t.Errorf("B/op's line: %q", v)
	}
	c, _ = Compare(f("a", bytes), nil, f("b", scaled(bytes, 0.5)), "B")
	if v := c.Verdict("a"); !strings.Contains(v, "B/op: varies from round to round, so decided as a time: 50% fewer B/op (ratio 2.00x, 95% CI [") ||
		!strings.HasSuffix(v, "], no noise band)") {
		t.Errorf("B/op's line without an A/A pair: %q", v)
	}
	c, _ = Compare(f("a", bytes), f("a.again", scaled(bytes, 1.3)), f("b", scaled(bytes, 0.9)), "B")
	if c.Counts[0].Decided {
		t.Errorf("a 10%% change of B/op inside a 30%% noise band is decided: %+v", c.Counts[0])
	}
	// A stage that allocates nothing against one that always does: no ratio, but decided.
	c, _ = Compare(f("a", bytes), f("a.again", bytes), f("b", make([]float64, len(bytes))), "B")
	if v := c.Verdict("a"); !c.Counts[0].Decided || !strings.Contains(v, "B/op: 100% fewer B/op: zero in some rounds") {
		t.Errorf("B/op from about 1000 to 0: %+v\n%s", c.Counts[0], v)
	}
	if got := (Count{Unit: "allocs/op", Ratio: 222}).change(); got != "99.5% fewer allocs/op" {
		t.Errorf("222 allocations to 1 reads %q", got)
	}
}

// TestWithNoise checks that another A/A pair's wider band undecides a step within it, and that a narrower one changes nothing.
func TestWithNoise(t *testing.T) {
	base := file("a", nil, []float64{100, 101, 99, 100, 102, 98}, nil)
	c, err := Compare(base, nil, file("b", nil, []float64{110, 111, 109, 110, 112, 108}, nil), "B")
	if err != nil || !c.Decided || c.AA {
		t.Fatalf("Compare = %+v, %v; want decided, without an A/A pair", c, err)
	}
	if w := c.WithNoise(Interval{1.01, 0.98, 1.03}); !w.Decided || !w.AA || w.Band() > 0.011 {
		t.Errorf("WithNoise(1.01x) = %+v; want decided against a band of 1%%", w)
	}
	if w := c.WithNoise(Interval{1.01, 0.98, 1.03}).WithNoise(Interval{1.005, 0.9, 1.1}); w.Noise.Ratio != 1.01 {
		t.Errorf("a narrower band replaced a wider one: %+v", w.Noise)
	}
	if w := c.WithNoise(Interval{1 / 1.4, 0.6, 0.9}); w.Decided || w.Ratio != c.Ratio || math.Abs(w.Band()-0.4) > 1e-9 {
		t.Errorf("WithNoise(1/1.4x) = %+v; want undecided within a band of 40%%, the same speed", w)
	}
}

// TestBusy checks the warning of a busy machine: where the A/A pair's CI reaches beyond 50%, and not under it.
func TestBusy(t *testing.T) {
	c := Comparison{AA: true, Noise: Interval{1.1, 0.6, 1.7}}
	if w := c.Busy(); !strings.Contains(w, "70% from 1x: this machine is busy") || !strings.Contains(w, "--hold-cores") {
		t.Errorf("Busy = %q", w)
	}
	if w := (Comparison{AA: true, Noise: Interval{1, 0.8, 1.3}}).Busy(); w != "" {
		t.Errorf("a 30%% reach warns: %q", w)
	}
}

func TestTimes(t *testing.T) {
	for r, want := range map[float64]string{0.25: "0.25x", 1.02: "1.02x", 1.84: "1.8x", 22.4: "22x", 3200: "3200x"} {
		if got := Times(r); got != want {
			t.Errorf("Times(%v) = %s, want %s", r, got, want)
		}
	}
}

// TestInRun checks that a comparison without an A/A pair takes its run's, from FIRST.again.txt beside the first
// stage's file, and that a run without one, or a file made by a program, leaves it as it is.
func TestInRun(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, values ...float64) *File {
		text := "cpu: test\n"
		for _, v := range values {
			text += fmt.Sprintf("BenchmarkB-2 1 %g ns/op %g cpu-ns/op\n", v, v)
		}
		path := dir + "/" + name + ".txt"
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	first := write("a", 100, 101, 99, 100, 102, 98)
	other := write("b", 110, 111, 109, 110, 112, 108)
	c, _ := Compare(first, nil, other, "B")
	if got := c.InRun(first, "B"); got.AA || !got.Decided {
		t.Errorf("without a.again.txt: %+v, want it unchanged", got)
	}
	write("a.again", 125, 126, 124, 125, 127, 123) // the A/A pair 25% apart
	if got := c.InRun(first, "B"); !got.AA || got.Decided || math.Abs(got.Band()-0.25) > 0.01 {
		t.Errorf("with a.again.txt 25%% apart: %+v, want undecided within its band", got)
	}
	// A file made by a program has no path, so no pair beside it, even in a folder where a file
	// named as the pair of an empty path is.
	t.Chdir(dir)
	write(".again", 125, 126, 124, 125, 127, 123)
	made := NewFile("a", nil, map[Measurement][]float64{{"B", c.Unit}: first.Values("B", c.Unit)})
	if got := c.InRun(made, "B"); got.AA || !got.Decided {
		t.Errorf("a file made by a program: %+v, want it unchanged", got)
	}
}
