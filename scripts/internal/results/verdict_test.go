package results

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
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

const (
	fromAA     = "the floor, the largest difference the A/A pair showed, is"
	fromSpread = "the floor, the stages' own spread, without an A/A pair, is"
)

func TestVerdicts(t *testing.T) {
	steady := []float64{100, 101, 99, 100, 102, 98}
	half := scaled(steady, 0.5)
	tenth := scaled(steady, 0.9)
	wild := []float64{60, 150, 80, 200, 95, 140} // as wide as a busy machine's wall times
	fewer := []float64{53, 53, 53, 53, 53, 53}
	many := []float64{100, 100, 100, 100, 100, 100}
	again40 := file("a.again", nil, scaled(steady, 1.4), nil) // the A/A pair 40% apart
	for _, c := range []struct {
		name       string
		base, new  *File
		again      *File
		wantPrefix string
		wantAlso   string
	}{
		{"twice as fast in CPU time, whatever the wall time did", file("a", wild, steady, nil), file("b", wild, half, nil), nil,
			"2.0x faster than a in CPU time (the slower takes 100% longer; " + fromSpread + " 2%; reliable)", ""},
		{"slower", file("a", steady, half, nil), file("b", half, steady, nil), nil, "2.0x slower than a in CPU time (the slower takes 100% longer;", "reliable)"},
		{"no CPU time: the wall time decides", file("a", steady, nil, nil), file("b", half, nil, nil), nil, "2.0x faster than a in wall time", ""},
		{"the same code", file("a", steady, steady, many), file("b", steady, steady, many), nil,
			"no difference from a in CPU time (the slower takes 0% longer", "; the same allocations"},
		{"an 11% gap under a 40% A/A floor", file("a", nil, steady, nil), file("b", nil, tenth, nil), again40,
			"cannot tell on this machine whether it differs from a in CPU time", "(the slower takes 11% longer; " + fromAA + " 40%"},
		{"a 100% gap over a 40% A/A floor", file("a", nil, steady, nil), file("b", nil, half, nil), again40,
			"2.0x faster than a in CPU time (the slower takes 100% longer; " + fromAA + " 40%", ""},
		{"the allocations decide what the time cannot", file("a", nil, steady, many), file("b", nil, tenth, fewer), again40,
			"47% fewer allocs/op than a, counted exactly; CPU time cannot tell on this machine", ""},
		{"the same allocations where the time cannot tell", file("a", nil, steady, many), file("b", nil, tenth, many), again40,
			"no difference from a in allocations, counted exactly; CPU time cannot tell on this machine (the slower takes 11% longer", ""},
		{"fewer allocations beside a decided time", file("a", nil, steady, many), file("b", nil, half, fewer), nil, "2.0x faster", "; 47% fewer allocs/op"},
		{"unstable samples", file("a", steady, steady, nil), file("b", wild, wild, nil), nil, "", "unstable)"},
		{"over the A/A floor, but the other's samples too wide for the test", file("a", nil, steady, nil), file("b", nil, []float64{40, 150, 60, 200, 70, 65}, nil),
			file("a.again", nil, steady, nil), "cannot tell on this machine", "over the floor, but benchstat's test cannot tell the samples apart: p="},
		{"too few samples for a floor", file("a", nil, steady[:4], nil), file("b", nil, half[:4], nil), nil,
			"cannot tell on this machine", "the floor, the stages' own spread, without an A/A pair, is unknown: it needs 6 samples of each"},
	} {
		got, err := Compare(c.base, c.again, c.new, "B")
		line := got.Verdict(c.base.Name)
		if err != nil || !strings.HasPrefix(line, c.wantPrefix) || !strings.Contains(line, c.wantAlso) {
			t.Errorf("%s: %q, %v; want %q ... %q", c.name, line, err, c.wantPrefix, c.wantAlso)
		}
	}
	if _, err := Compare(file("a", steady, nil, nil), nil, file("b", nil, steady, nil), "C"); err == nil {
		t.Error("a benchmark neither file measured: no error")
	}
}

// printed is a verdict's gap and floor, as it prints them, and the floor's source.
var printed = regexp.MustCompile(`the slower takes ([0-9.]+)% longer; the floor, (.+?), is ([0-9.]+)%`)

// TestVerdictsAgreeWithTheirFigures checks, over a grid of gaps and floors from either
// source, that a line never calls decided a gap that it prints under its floor, and always
// calls decided one printed over it that benchstat's test tells apart.
func TestVerdictsAgreeWithTheirFigures(t *testing.T) {
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
			line := c.Verdict("a")
			m := printed.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("shift %v, A/A %v: %q prints no gap and floor", shift, aa, line)
			}
			gap, _ := strconv.ParseFloat(m[1], 64)
			floor, _ := strconv.ParseFloat(m[3], 64)
			decided := regexp.MustCompile(`^[0-9.]+x (faster|slower) than`).MatchString(line)
			name := fmt.Sprintf("shift %v, A/A %v: %q", shift, aa, line)
			switch {
			case decided != c.Decided:
				t.Errorf("%s: the line's words disagree with Decided=%v", name, c.Decided)
			case decided && gap <= floor:
				t.Errorf("%s: decided, with a gap printed at or under the floor", name)
			case !decided && gap > floor && !untold(line):
				t.Errorf("%s: a gap printed over the floor, not decided, and no p-value at or over 0.05 printed", name)
			case (aa > 0) != (m[2] == "the largest difference the A/A pair showed"):
				t.Errorf("%s: the floor's source is not where it came from", name)
			}
			seen[fmt.Sprintf("decided=%v aa=%v", decided, aa > 0)]++
		}
	}
	// The grid must reach every case, or the test above would pass on fewer than it claims.
	for _, k := range []string{"decided=true aa=true", "decided=false aa=true", "decided=true aa=false", "decided=false aa=false"} {
		if seen[k] == 0 {
			t.Errorf("no case of %s in the grid: %v", k, seen)
		}
	}
}

// untold is whether line says that benchstat's test cannot tell the samples apart, with a p-value that says so.
func untold(line string) bool {
	m := regexp.MustCompile(`benchstat's test cannot tell the samples apart: p=([0-9.]+)`).FindStringSubmatch(line)
	if m == nil {
		return false
	}
	p, err := strconv.ParseFloat(m[1], 64)
	return err == nil && p >= 0.05
}

func TestPercents(t *testing.T) {
	for _, c := range []struct {
		gap, floor float64
		want       string
	}{
		{0.36, 0.45, "36% 45%"},
		{0.452, 0.448, "45.2% 44.8%"},
		{0.45, 0.45, "45% 45%"},
	} {
		if g, f := percents(c.gap, c.floor); g+" "+f != c.want {
			t.Errorf("percents(%v, %v) = %s %s, want %s", c.gap, c.floor, g, f, c.want)
		}
	}
}

func TestTimes(t *testing.T) {
	for r, want := range map[float64]string{0.25: "0.25x", 1.02: "1.02x", 1.84: "1.8x", 22.4: "22x", 3200: "3200x"} {
		if got := Times(r); got != want {
			t.Errorf("Times(%v) = %s, want %s", r, got, want)
		}
	}
}
