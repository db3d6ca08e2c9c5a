package results

import (
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

func TestVerdicts(t *testing.T) {
	steady := []float64{100, 101, 99, 100, 102, 98}
	half := []float64{50, 51, 49, 50, 51, 49}
	tenth := []float64{90, 91, 89, 90, 92, 88}
	wild := []float64{60, 150, 80, 200, 95, 140} // as wide as a busy machine's wall times
	fewer := []float64{53, 53, 53, 53, 53, 53}
	many := []float64{100, 100, 100, 100, 100, 100}
	for _, c := range []struct {
		name       string
		base, new  *File
		again      *File
		wantPrefix string
		wantAlso   string
	}{
		{"twice as fast in CPU time, whatever the wall time did", file("a", wild, steady, nil), file("b", wild, half, nil), nil,
			"2.0x faster than a in CPU time (the two differ by 50%; each stage's own samples spread by up to 2%; reliable)", ""},
		{"slower", file("a", steady, half, nil), file("b", half, steady, nil), nil, "2.0x slower than a in CPU time (the two differ by 50%;", "reliable)"},
		{"no CPU time: the wall time decides", file("a", steady, nil, nil), file("b", half, nil, nil), nil, "2.0x faster than a in wall time", ""},
		{"the same code", file("a", steady, steady, many), file("b", steady, steady, many), nil,
			"no difference from a in CPU time (the two differ by 0%", "; the same allocations"},
		{"a 10% gain under a 40% A/A floor", file("a", nil, steady, nil), file("b", nil, tenth, nil),
			file("a.again", nil, []float64{140, 141, 139, 140, 142, 138}, nil), "cannot tell on this machine whether it differs from a in CPU time",
			"(the two differ by 10%; the same stage measured twice differed by up to 40%"},
		{"the allocations decide what the time cannot", file("a", nil, steady, many), file("b", nil, tenth, fewer),
			file("a.again", nil, []float64{140, 141, 139, 140, 142, 138}, nil), "47% fewer allocs/op than a, counted exactly; CPU time cannot tell on this machine", ""},
		{"the same allocations where the time cannot tell", file("a", nil, steady, many), file("b", nil, tenth, many),
			file("a.again", nil, []float64{140, 141, 139, 140, 142, 138}, nil), "no difference from a in allocations, counted exactly; CPU time cannot tell on this machine (the two differ by 10%", ""},
		{"fewer allocations beside a decided time", file("a", nil, steady, many), file("b", nil, half, fewer), nil, "2.0x faster", "; 47% fewer allocs/op"},
		{"unstable samples", file("a", steady, steady, nil), file("b", wild, wild, nil), nil, "", "unstable)"},
	} {
		got, err := Compare(c.base, c.again, c.new, "B")
		line := got.Verdict(c.base.Name)
		if err != nil || !strings.HasPrefix(line, c.wantPrefix) || !strings.Contains(line, c.wantAlso) || strings.Contains(line, "floor") {
			t.Errorf("%s: %q, %v; want %q ... %q, and no word floor", c.name, line, err, c.wantPrefix, c.wantAlso)
		}
	}
	if _, err := Compare(file("a", steady, nil, nil), nil, file("b", nil, steady, nil), "C"); err == nil {
		t.Error("a benchmark neither file measured: no error")
	}
}

func TestTimes(t *testing.T) {
	for r, want := range map[float64]string{0.25: "0.25x", 1.02: "1.02x", 1.84: "1.8x", 22.4: "22x", 3200: "3200x"} {
		if got := Times(r); got != want {
			t.Errorf("Times(%v) = %s, want %s", r, got, want)
		}
	}
}
