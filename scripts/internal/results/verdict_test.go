package results

import (
	"strings"
	"testing"
)

// file is a result file of one benchmark, with wall and CPU times.
func file(name string, wall, cpu []float64) *File {
	samples := map[Measurement][]float64{{"B", "sec/op"}: wall}
	if cpu != nil {
		samples[Measurement{"B", "cpu-sec/op"}] = cpu
	}
	return NewFile(name, nil, samples)
}

func TestVerdicts(t *testing.T) {
	steady := []float64{100, 101, 99, 100, 102, 98}
	half := []float64{50, 51, 49, 50, 51, 49}
	wild := []float64{60, 150, 80, 200, 95, 140} // as wide as a busy machine's wall times
	for _, c := range []struct {
		name       string
		base, new  *File
		again      *File
		wantPrefix string
		wantAlso   string
	}{
		{"twice as fast in CPU time, whatever the wall time did", file("a", wild, steady), file("b", wild, half), nil,
			"2.0x faster than a", "(CPU time, floor ±2%, reliable)"},
		{"slower", file("a", steady, half), file("b", half, steady), nil, "2.0x slower than a", "reliable)"},
		{"no CPU time: the wall time decides", file("a", steady, nil), file("b", half, nil), nil, "2.0x faster than a", "(wall time,"},
		{"the same code", file("a", steady, steady), file("b", steady, steady), nil, "no difference from a: cannot tell on this machine", ""},
		{"a 10% gain under a 40% A/A floor", file("a", nil, steady), file("b", nil, []float64{90, 91, 89, 90, 92, 88}),
			file("a.again", nil, []float64{140, 141, 139, 140, 142, 138}), "no difference from a: cannot tell", "floor ±40%"},
		{"unstable samples", file("a", steady, steady), file("b", wild, wild), nil, "", "unstable)"},
	} {
		got, err := Compare(c.base, c.again, c.new, "B")
		line := got.Verdict(c.base.Name)
		if err != nil || !strings.HasPrefix(line, c.wantPrefix) || !strings.Contains(line, c.wantAlso) {
			t.Errorf("%s: %q, %v; want %q ... %q", c.name, line, err, c.wantPrefix, c.wantAlso)
		}
	}
	if _, err := Compare(file("a", steady, nil), nil, file("b", nil, steady), "C"); err == nil {
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
