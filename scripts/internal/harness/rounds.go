package harness

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/cpuid/v2"

	"example.com/userperf/scripts/internal/provenance"
)

// Header is what a result was measured on and how: the "key: value" lines that head every
// result file. This process's Go and GOMAXPROCS are the benchmarks': one go command builds both.
func (c *Cmd) Header() string {
	commit, err := provenance.Commit(".")
	if err != nil {
		commit = "none"
	}
	return fmt.Sprintf("machine-cpu: %s\nmachine-cores: %d\nmachine-gomaxprocs: %d\nmachine-os: %s/%s\ngo-version: %s\ndate: %s\ncommit: %s\ncommand: %s\n",
		cmp.Or(strings.TrimSpace(cpuid.CPU.BrandName), "unknown"), runtime.NumCPU(), runtime.GOMAXPROCS(0),
		runtime.GOOS, runtime.GOARCH, runtime.Version(), time.Now().UTC().Format(time.RFC3339), commit, c.Line())
}

// Run is one measurement in rounds: drift on a shared machine must hit every
// stage alike, so the test binaries are built first, then each round runs
// every benchmark once. An exit before Keep removes Dir: half a run is none.
type Run struct {
	Dir    string
	Rounds int
	c      *Cmd
	bin    string
	start  time.Time
	kept   bool
}

// NewRun starts a run of rounds rounds in a new results/kind/<stamp>/.
func (c *Cmd) NewRun(kind string, rounds int) *Run {
	bin, err := os.MkdirTemp("", "userperf-bin-")
	c.Fatal(err)
	r := &Run{Rounds: rounds, c: c, bin: bin, start: time.Now()}
	parent := filepath.Join("results", kind)
	c.Fatal(os.MkdirAll(parent, 0o755))
	for {
		r.Dir = filepath.Join(parent, time.Now().UTC().Format("20060102T150405Z"))
		if err := os.Mkdir(r.Dir, 0o755); !errors.Is(err, fs.ErrExist) {
			c.Fatal(err)
			break
		}
		time.Sleep(time.Second) // another run took this second
	}
	c.Cleanup(func() {
		os.RemoveAll(r.bin)
		if !r.kept {
			os.RemoveAll(r.Dir)
			fmt.Fprintf(os.Stderr, "\n%s: stopped before the last round; no results kept\n", c.Name)
		}
	})
	return r
}

// exe is the suffix of a program's file on this system.
var exe = map[bool]string{true: ".exe"}[runtime.GOOS == "windows"]

// Build builds the test binaries of the package folders dirs in parallel, in one go command.
func (r *Run) Build(dirs ...string) { r.BuildWith("", dirs...) }

// BuildWith is Build with toolchain, a Go release such as go1.27.3 that the go command
// downloads if it has not yet, or "" for its own Go; each toolchain's binaries have a folder.
func (r *Run) BuildWith(toolchain string, dirs ...string) {
	out := filepath.Join(r.bin, toolchain)
	args := []string{"test", "-c", "-o", out + string(filepath.Separator)}
	for _, d := range dirs {
		args = append(args, "./"+d)
	}
	env, with := []string(nil), ""
	if toolchain != "" {
		env, with = []string{"GOTOOLCHAIN=" + toolchain}, " with "+toolchain
	}
	fmt.Printf("== building %d test binaries%s\n", len(dirs), with)
	err := Progress(func() string {
		built, _ := filepath.Glob(filepath.Join(out, "*.test"+exe))
		return fmt.Sprintf("%d of %d built", len(built), len(dirs))
	}, func() error { return GoWith(env, args...) })
	r.c.Fatal(err)
}

// Bench runs the benchmarks bench of package folder dir once, with Build's
// binary, in dir as go test does, and appends the results to file. One that
// fails, panics or matches nothing stops the command.
func (r *Run) Bench(round int, dir, bench, benchtime, file, label string) {
	r.BenchWith("", round, dir, bench, benchtime, file, label)
}

// BenchWith is Bench with the binary that BuildWith built with toolchain.
func (r *Run) BenchWith(toolchain string, round int, dir, bench, benchtime, file, label string) {
	fmt.Printf("\r   round %2d/%d  %-30s  elapsed %s ", round, r.Rounds, label, Elapsed(r.start))
	binary, _ := filepath.Abs(filepath.Join(r.bin, toolchain, filepath.Base(dir)+".test"+exe))
	run := func(args ...string) ([]byte, error) {
		cmd := exec.Command(binary, args...)
		cmd.Dir = dir
		return cmd.CombinedOutput()
	}
	count := "1"
	if d, err := time.ParseDuration(benchtime); err == nil {
		count, benchtime = strconv.Itoa(Tries), (d / Tries).String()
	}
	out, err := run("-test.run", "^$", "-test.bench", bench, "-test.benchtime", benchtime, "-test.count", count, "-test.benchmem")
	if err != nil {
		fmt.Fprintf(os.Stderr, "\n%s\n", out)
		r.c.Fatal(fmt.Errorf("the benchmarks of %s failed (output above)", dir))
	}
	kept := quickest(resultLine.FindAllString(string(out), -1))
	if !slices.ContainsFunc(kept, func(line string) bool { return strings.HasPrefix(line, "Benchmark") }) {
		list, _ := run("-test.list", "^Benchmark")
		r.c.Fatal(fmt.Errorf("no benchmark matched %s in %s; its benchmarks:\n%s", bench, dir, list))
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	r.c.Fatal(err)
	_, err = f.WriteString(strings.Join(kept, ""))
	r.c.Fatal(errors.Join(err, f.Close()))
}

// Tries is how many short runs make one sample of a timed benchmark: the
// sample is the quickest of them, in CPU time where the line has it. Another
// program on the machine only ever adds time (a core taken, a cache emptied,
// the collector's idle workers starved), so the quickest of a few runs moves
// far less from round to round than one run of their length.
const Tries = 3

// quickest keeps, of each benchmark's lines, the one with the least CPU
// time per operation, or wall time where it has none, in the place of
// its first line.
func quickest(lines []string) []string {
	var kept []string
	first := map[string]int{}
	for _, line := range lines {
		name := strings.Fields(line)[0]
		i, seen := first[name]
		switch {
		case !strings.HasPrefix(line, "Benchmark") && seen:
		case !seen:
			first[name] = len(kept)
			kept = append(kept, line)
		case perOp(line) < perOp(kept[i]):
			kept[i] = line
		}
	}
	return kept
}

// perOp is a result line's CPU time per operation, else its wall time.
func perOp(line string) float64 {
	fields := strings.Fields(line)
	for _, unit := range []string{"cpu-ns/op", "ns/op"} {
		if i := slices.Index(fields, unit); i > 0 {
			v, err := strconv.ParseFloat(fields[i-1], 64)
			if err == nil {
				return v
			}
		}
	}
	return math.Inf(1)
}

// resultLine is a line of results or of go test's configuration, not one a benchmark logs.
var resultLine = regexp.MustCompile(`(?m)^(Benchmark\S+\s+\d+\s|goos:|goarch:|pkg:|cpu:).*\n`)

// Keep keeps the results and points results/KIND/latest at them: a link, else (Windows) a copy.
func (r *Run) Keep() {
	r.kept = true
	latest := filepath.Join(filepath.Dir(r.Dir), "latest")
	os.RemoveAll(latest)
	if err := os.Symlink(filepath.Base(r.Dir), latest); err != nil {
		r.c.Fatal(os.CopyFS(latest, os.DirFS(r.Dir)))
	}
	fmt.Printf("\r   %d rounds done in %s%40s\n", r.Rounds, Elapsed(r.start), "")
}

// HoldCores keeps every core busy until stop, as another program would on
// a busy laptop: the benchmarks, in processes of their own, wait for a core.
func HoldCores() (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Go(func() {
			for !done.Load() { // spin
			}
		})
	}
	return func() { done.Store(true); wg.Wait() }
}
