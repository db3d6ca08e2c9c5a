// Package results reads and writes the result files (Go benchmark format, one per stage,
// headed by internal/harness's configuration lines) and decides between two of them.
package results

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

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

// OnToolchain names the results of stage measured with the test binary that
// toolchain built (compare --go): stage2-noclone@go1.27.3; with "", this
// machine's go, the stage's name alone.
func OnToolchain(stage, toolchain string) string {
	if toolchain == "" {
		return stage
	}
	return stage + "@" + toolchain
}

// SplitToolchain is the stage and the toolchain of a name that OnToolchain made.
func SplitToolchain(name string) (stage, toolchain string) {
	stage, toolchain, _ = strings.Cut(name, "@")
	return stage, toolchain
}

// AcrossToolchains is config, a header of results measured with each of
// toolchains, whose go-version names them all: for one provenance line.
func AcrossToolchains(config map[string]string, toolchains []string) map[string]string {
	config = maps.Clone(config)
	config["go-version"] = strings.Join(toolchains, " and ")
	return config
}

// questions are the rows of BenchmarkListByRole that answer each exercise's question, by the stage
// it starts from: where what the step changes shows most. Any other stage is asked the headline's.
var questions = map[string]string{
	"stage0-linear":   "ListByRole/users=100000/matches=100", // an index: the scan it skips grows with the users
	"stage1-index":    Matches1000,                           // views, not copies: the copy grows with the matches
	"stage2-noclone":  Matches1000,                           // a reserved body: its growth, with the body
	"stage3-parallel": Matches1000,                           // an appending encoder: the encoding, with the body
	"stage4-append":   Matches1000,                           // encoding once, on write: each request's encoding
}

// Question is the row that answers the question of the exercise starting at base: the row of
// check's verdicts, and of compare's for a learner's stage.
func Question(base string) string {
	if row, ok := questions[base]; ok {
		return row
	}
	return Headline
}

// ExerciseStart is the stage that the exercise of the stage in folder dir starts from: the first
// on its chain of origins (from, a folder, else dir's go.mod's "// origin:", then that one's...)
// that questions names, so that a copy of a copy of stage1-index is asked stage 1's question;
// or "" for none.
func ExerciseStart(root, dir, from string) string {
	walk := cmp.Or(from, stages.Origin(root, dir))
	for n := 0; walk != "" && n < 10; n++ { // the bound stops a loop of origin lines
		if _, ok := questions[path.Base(walk)]; ok {
			return path.Base(walk)
		}
		walk = stages.Origin(root, walk)
	}
	return ""
}

// WallFile is the file that holds how long a command took, beside its results: in
// results/test for scripts/test, in a run's folder for compare.
const WallFile = "wall.txt"

// wallBench is the benchmark name under which a wall time is written, so that
// the file reads as any result file does, header included.
const wallBench = "Wall"

// WriteWall writes header and wall, how long the command took, to path, in benchmark format.
func WriteWall(path, header string, wall time.Duration) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, fmt.Appendf(nil, "%s\nBenchmark%s 1 %d ns/op\n", header, wallBench, wall.Nanoseconds()), 0o644)
}

// ReadWall reads what WriteWall wrote: the wall time, and the file, whose header says by which command.
func ReadWall(path string) (time.Duration, *File, error) {
	f, err := Read(path)
	if err != nil {
		return 0, nil, err
	}
	v := f.Values(wallBench, "sec/op")
	if len(v) != 1 {
		return 0, nil, fmt.Errorf("%s: want one wall time, found %d", path, len(v))
	}
	return time.Duration(v[0] * float64(time.Second)), f, nil
}
