// Package results reads and writes the scripts' result files: Go benchmark
// format, one file per stage, headed by configuration lines
// ("machine-cpu: ...", "commit: ...", "command: ...") that say where, when
// and by which command the figures were measured. The header is what
// machine_info in scripts/lib.sh prints; benchfmt reads it as the file's
// configuration.
package results

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"

	"example.com/userperf/scripts/internal/stages"
)

// File is one result file.
type File struct {
	Name string // the file name without .txt: the stage it measured
	Path string
	// Config holds the file's configuration lines: those of the header,
	// and go test's own (goos, pkg, cpu).
	Config  map[string]string
	samples map[Measurement][]float64
}

// Measurement names one benchmark, without the Benchmark prefix and the
// -GOMAXPROCS suffix (ListByRole/users=10000/matches=100), and one unit as
// benchfmt tidies it (ns/op becomes sec/op, p50-ns becomes p50-sec).
type Measurement struct{ Bench, Unit string }

// notStages are the files of a results folder that measure no stage.
var notStages = map[string]bool{"machine.txt": true, "benchstat.txt": true}

// ReadDir reads every stage's file in dir, in the stages' order.
func ReadDir(dir string) ([]*File, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	var files []*File
	for _, p := range paths {
		if notStages[filepath.Base(p)] {
			continue
		}
		f, err := Read(p)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no stage results (*.txt)", dir)
	}
	slices.SortFunc(files, func(a, b *File) int { return stages.Compare(a.Name, b.Name) })
	return files, nil
}

// Read reads one result file.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &File{
		Name:    strings.TrimSuffix(filepath.Base(path), ".txt"),
		Path:    path,
		Config:  map[string]string{},
		samples: map[Measurement][]float64{},
	}
	r := benchfmt.NewReader(bytes.NewReader(data), path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			for _, c := range rec.Config {
				f.Config[c.Key] = strings.TrimSpace(string(c.Value))
			}
			bench := BenchName(rec.Name)
			for _, v := range rec.Values {
				m := Measurement{bench, v.Unit}
				f.samples[m] = append(f.samples[m], v.Value)
			}
		}
	}
	return f, r.Err()
}

// headerEnd stands after a header read on its own: benchfmt hands out the
// configuration only with a result.
const headerEnd = "\nBenchmarkHeaderEnd 1 1 x\n"

// ReadHeader reads a file of configuration lines alone, such as the
// machine.txt that the scripts write before measuring.
func ReadHeader(path string) ([]benchfmt.Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := benchfmt.NewReader(io.MultiReader(bytes.NewReader(data), strings.NewReader(headerEnd)), path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			return rec.Clone().Config, nil
		}
	}
	return nil, fmt.Errorf("%s: not a header: %v", path, r.Err())
}

// WriteFile writes results to path, each with header as its configuration,
// so that the file starts with the header's lines.
func WriteFile(path string, header []benchfmt.Config, results []*benchfmt.Result) error {
	var b bytes.Buffer
	w := benchfmt.NewWriter(&b)
	for _, r := range results {
		r = r.Clone()
		r.Config = header
		if err := w.Write(r); err != nil {
			return err
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// BenchName is a benchmark's name without its -GOMAXPROCS suffix, so that
// the same benchmark has the same name on any machine.
func BenchName(n benchfmt.Name) string {
	base, parts := n.Parts()
	name := string(base)
	for _, p := range parts {
		if p[0] == '/' {
			name += string(p)
		}
	}
	return name
}

// NameKeys splits a benchmark name into its base and its key=value
// sub-benchmark parts: ListByRole, {users: 10000, matches: 100}.
func NameKeys(bench string) (base string, keys map[string]string) {
	b, parts := benchfmt.Name(bench).Parts()
	keys = map[string]string{}
	for _, p := range parts {
		if k, v, ok := strings.Cut(string(p[1:]), "="); ok && p[0] == '/' {
			keys[k] = v
		}
	}
	return string(b), keys
}

// Median is the centre that benchstat prints for the samples of bench in
// unit: their median, as it assumes nothing about their distribution.
func (f *File) Median(bench, unit string) (float64, bool) {
	v := f.samples[Measurement{bench, unit}]
	if len(v) == 0 {
		return 0, false
	}
	s := benchmath.NewSample(v, &benchmath.DefaultThresholds)
	return benchmath.AssumeNothing.Summary(s, 0.95).Center, true
}

// Runs is how many samples the file has of bench in unit.
func (f *File) Runs(bench, unit string) int {
	return len(f.samples[Measurement{bench, unit}])
}

// Measurements lists what the file measured, sorted.
func (f *File) Measurements() []Measurement {
	var ms []Measurement
	for m := range f.samples {
		ms = append(ms, m)
	}
	slices.SortFunc(ms, func(a, b Measurement) int {
		return strings.Compare(a.Bench+" "+a.Unit, b.Bench+" "+b.Unit)
	})
	return ms
}
