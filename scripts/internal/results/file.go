// Package results reads and writes the result files (Go benchmark format,
// one per stage, headed by internal/harness's configuration lines) and
// decides between two of them.
package results

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
	"golang.org/x/perf/benchunit"

	"example.com/userperf/scripts/internal/stages"
)

// File is one result file.
type File struct {
	Name, Path string            // Name: the file's without .txt, the stage it measured
	Config     map[string]string // the header's lines, and go test's own (goos, pkg, cpu)
	samples    map[Measurement][]float64
}

// Measurement is a benchmark without Benchmark and -GOMAXPROCS
// (ListByRole/users=10000/matches=100) and a unit as benchfmt tidies it (sec/op).
type Measurement struct{ Bench, Unit string }

// ReadDir reads every stage's file in dir, in the stages' order: every *.txt
// but the header (machine.txt), benchstat.txt and the A/A label (*.again.txt).
func ReadDir(dir string) ([]*File, error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.txt")) // a pattern without errors
	paths = slices.DeleteFunc(paths, func(p string) bool {
		return strings.HasSuffix(p, "machine.txt") || strings.HasSuffix(p, "benchstat.txt") || strings.HasSuffix(p, ".again.txt")
	})
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no stage results (*.txt)", dir)
	}
	files, err := read(paths)
	slices.SortFunc(files, func(a, b *File) int { return stages.Compare(a.Name, b.Name) })
	return files, err
}

// NewFile is a file made by a program, not read: the room's speed-ups.
func NewFile(name string, config map[string]string, samples map[Measurement][]float64) *File {
	return &File{name, "", config, samples}
}

// Read reads one result file.
func Read(path string) (*File, error) {
	files, err := read([]string{path})
	return files[0], err
}

// read reads paths with one benchfmt.Files, as benchstat does, and names a
// benchmark by .fullname without /gomaxprocs, alike on any machine.
func read(paths []string) ([]*File, error) {
	files := make([]*File, len(paths))
	for i, p := range paths {
		files[i] = &File{strings.TrimSuffix(filepath.Base(p), ".txt"), p, map[string]string{}, map[Measurement][]float64{}}
	}
	var parser benchproc.ProjectionParser
	name, err := parser.Parse(".fullname,/gomaxprocs", nil)
	if err != nil {
		return files, err
	}
	in := benchfmt.Files{Paths: paths}
	for in.Scan() {
		switch rec := in.Result().(type) {
		case *benchfmt.SyntaxError:
			return files, rec
		case *benchfmt.Result:
			f := files[slices.Index(paths, rec.GetConfig(".file"))]
			for _, c := range rec.Config {
				f.Config[c.Key] = strings.TrimSpace(string(c.Value))
			}
			delete(f.Config, ".file")
			bench := name.Project(rec).Get(name.Fields()[0])
			for _, v := range rec.Values {
				m := Measurement{bench, v.Unit}
				f.samples[m] = append(f.samples[m], v.Value)
			}
		}
	}
	return files, in.Err()
}

// WriteFile writes header, configuration lines (machine.txt), then results to path.
func WriteFile(path string, header []byte, results []*benchfmt.Result) error {
	b := bytes.NewBuffer(slices.Concat(bytes.TrimRight(header, "\n"), []byte("\n\n")))
	w := benchfmt.NewWriter(b)
	for _, r := range results {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// Values are the file's samples of bench in unit.
func (f *File) Values(bench, unit string) []float64 { return f.samples[Measurement{bench, unit}] }

// Median is the centre that benchstat prints for the samples of bench in unit.
func (f *File) Median(bench, unit string) (float64, bool) {
	v := f.Values(bench, unit)
	return Median(v), len(v) > 0
}

// Median is the centre that benchstat prints for values, or 0 for none:
// their median, as it assumes nothing of their distribution.
func Median(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	return summary(values).Center
}

// Measurements lists what the file measured, sorted.
func (f *File) Measurements() []Measurement {
	ms := slices.Collect(maps.Keys(f.samples))
	slices.SortFunc(ms, func(a, b Measurement) int { return strings.Compare(a.Bench+" "+a.Unit, b.Bench+" "+b.Unit) })
	return ms
}

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

// Compare compares other with base at bench. The floor is the wider
// confidence interval of the two, as a share of its median; again, if not
// nil, is base's binary measured a second time, interleaved (the A/A label),
// so its interval and its distance from base count too: they differ by noise alone.
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

// Verdict says c against the stage named base in a line: "2.3x faster than
// stage0-linear", or slower, or "no difference from stage0-linear: cannot
// tell on this machine"; then the unit, the floor and the spread.
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

// Duration formats seconds as benchstat does (178.9µs, 1.436ms, 20.90ns),
// so that a figure reads the same in every table and chart.
func Duration(sec float64) string { return benchunit.Scale(sec, benchunit.Decimal) + "s" }

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
