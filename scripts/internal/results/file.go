// Package results reads and writes the result files (Go benchmark format, one per stage,
// headed by internal/harness's configuration lines) and decides between two of them.
package results

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"

	"example.com/userperf/scripts/internal/stages"
)

// File is one result file.
type File struct {
	Name, Path string            // Name: the file's without .txt, the stage it measured
	Config     map[string]string // the header's lines, and go test's own (goos, pkg, cpu)
	samples    map[Measurement][]float64
}

// Headline is the benchmark that the verdicts, the stages table and the profiles
// look at first: one role of a hundred users out of ten thousand, as in the case study.
const Headline = "ListByRole/users=10000/matches=100"

// Matches1000 is the same lookup with the case study's larger result, a thousand users.
const Matches1000 = "ListByRole/users=10000/matches=1000"

// Measurement is a benchmark without Benchmark and -GOMAXPROCS
// (ListByRole/users=10000/matches=100) and a unit as benchfmt tidies it (sec/op).
type Measurement struct{ Bench, Unit string }

// ReadDir reads every stage's file in dir, in the stages' order: every *.txt
// but the header (machine.txt), benchstat.txt, the A/A label (*.again.txt)
// and the command's wall time (WallFile).
func ReadDir(dir string) ([]*File, error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.txt")) // a pattern without errors
	paths = slices.DeleteFunc(paths, func(p string) bool {
		return slices.Contains([]string{"machine.txt", "benchstat.txt", WallFile}, filepath.Base(p)) || strings.HasSuffix(p, ".again.txt")
	})
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no stage results (*.txt)", dir)
	}
	var files []*File
	for _, p := range paths {
		f, err := Read(p)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b *File) int { return stages.Compare(a.Name, b.Name) })
	return files, nil
}

// NewFile is a file made by a program, not read: the room's speed-ups.
func NewFile(name string, config map[string]string, samples map[Measurement][]float64) *File {
	return &File{name, "", config, samples}
}

// gomaxprocs is the suffix of a benchmark's name that differs from machine to machine (-8).
var gomaxprocs = regexp.MustCompile(`-[0-9]+$`)

// Read reads one result file with benchfmt, as benchstat does.
func Read(path string) (*File, error) {
	f := &File{strings.TrimSuffix(filepath.Base(path), ".txt"), path, map[string]string{}, map[Measurement][]float64{}}
	in := benchfmt.Files{Paths: []string{path}}
	for in.Scan() {
		switch rec := in.Result().(type) {
		case *benchfmt.SyntaxError:
			return f, rec
		case *benchfmt.Result:
			for _, c := range rec.Config {
				f.Config[c.Key] = strings.TrimSpace(string(c.Value))
			}
			delete(f.Config, ".file")
			for _, v := range rec.Values {
				m := Measurement{gomaxprocs.ReplaceAllString(string(rec.Name), ""), v.Unit}
				f.samples[m] = append(f.samples[m], v.Value)
			}
		}
	}
	return f, in.Err()
}

// WriteFile writes header, configuration lines (machine.txt), then results to path.
func WriteFile(path string, header []byte, results []*benchfmt.Result) error {
	b := bytes.NewBuffer(slices.Concat(bytes.TrimRight(header, "\n"), []byte("\n\n")))
	w := benchfmt.NewWriter(b)
	for _, r := range results {
		w.Write(r) // a result into a buffer: no error
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// Values are the file's samples of bench in unit.
func (f *File) Values(bench, unit string) []float64 { return f.samples[Measurement{bench, unit}] }

// Measurements lists what the file measured, sorted.
func (f *File) Measurements() []Measurement {
	return slices.SortedFunc(maps.Keys(f.samples), func(a, b Measurement) int {
		return cmp.Or(strings.Compare(a.Bench, b.Bench), strings.Compare(a.Unit, b.Unit))
	})
}

// Duration formats seconds as benchstat does (178.9µs, 1.436ms, 20.90ns),
// so that a figure reads the same in every table and chart.
func Duration(sec float64) string { return benchunit.Scale(sec, benchunit.Decimal) + "s" }
