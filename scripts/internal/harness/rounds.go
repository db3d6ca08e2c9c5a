package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// Run is one measurement of benchmark rounds: drift on a shared machine
// must hit every stage alike, so each test binary is built first, then every
// round runs each benchmark once. Its results go to Dir, results/KIND/STAMP;
// an exit before Keep removes them: half a measurement is none.
type Run struct {
	Dir    string
	Rounds int
	c      *Cmd
	bin    string
	start  time.Time
	kept   bool
}

// NewRun starts a run of rounds rounds in a new results/kind/<stamp>/.
// Whether other programs kept the machine busy is not guessed beforehand:
// compare's A/A floor measures what the noise did to the run itself.
func (c *Cmd) NewRun(kind string, rounds int) *Run {
	r := &Run{Rounds: rounds, c: c, start: time.Now()}
	parent := filepath.Join("results", kind)
	c.Fatal(os.MkdirAll(parent, 0o755))
	for {
		r.Dir = filepath.Join(parent, time.Now().UTC().Format("20060102T150405Z"))
		err := os.Mkdir(r.Dir, 0o755)
		if err == nil {
			break
		} else if !errors.Is(err, fs.ErrExist) {
			c.Fatal(err)
		}
		time.Sleep(time.Second) // another run took this second
	}
	var err error
	r.bin, err = os.MkdirTemp("", "userperf-bin-")
	c.Fatal(err)
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

// Build builds the test binary of each package folder in one go command,
// which builds them in parallel, and says how far it is every 15 seconds.
func (r *Run) Build(dirs ...string) {
	args := []string{"test", "-c", "-o", r.bin + string(filepath.Separator)}
	for _, d := range dirs {
		args = append(args, "./"+d)
	}
	fmt.Printf("== building %d test binaries\n", len(dirs))
	err := Progress(func() string {
		built, _ := filepath.Glob(filepath.Join(r.bin, "*.test"+exe))
		return fmt.Sprintf("%d of %d built", len(built), len(dirs))
	}, func() error { return Go(args...) })
	r.c.Fatal(err)
}

// Bench runs the benchmarks bench of package folder dir once, in dir as go
// test does, with Build's binary, shows label as round round of the run, and
// appends the results to file. A benchmark that fails, panics or matches
// nothing stops the command.
func (r *Run) Bench(round int, dir, bench, benchtime, file, label string) {
	fmt.Printf("\r   round %2d/%d  %-24s  elapsed %s ", round, r.Rounds, label, Elapsed(r.start))
	binary, _ := filepath.Abs(filepath.Join(r.bin, filepath.Base(dir)+".test"+exe))
	cmd := exec.Command(binary, "-test.run", "^$", "-test.bench", bench, "-test.benchtime", benchtime,
		"-test.count", "1", "-test.benchmem")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "\n%s\n", out)
		r.c.Fatal(fmt.Errorf("the benchmarks of %s failed (output above)", dir))
	}
	if !benchResult.Match(out) {
		cmd := exec.Command(binary, "-test.list", "^Benchmark")
		cmd.Dir = dir
		list, _ := cmd.CombinedOutput()
		r.c.Fatal(fmt.Errorf("no benchmark matched %s in %s; its benchmarks:\n%s", bench, dir, list))
	}
	var kept bytes.Buffer
	for _, line := range strings.SplitAfter(string(out), "\n") {
		if resultLine.MatchString(line) {
			kept.WriteString(line)
		}
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.Write(kept.Bytes())
		err = errors.Join(err, f.Close())
	}
	r.c.Fatal(err)
}

var (
	benchResult = regexp.MustCompile(`(?m)^Benchmark\S+\s+\d+\s`)
	resultLine  = regexp.MustCompile(`^(Benchmark|goos:|goarch:|pkg:|cpu:)`)
)

// Keep keeps the run's results and points results/KIND/latest at them: a
// link, or where the system makes none (Windows, most often), a copy.
func (r *Run) Keep() {
	r.kept = true
	latest := filepath.Join(filepath.Dir(r.Dir), "latest")
	os.RemoveAll(latest)
	if err := os.Symlink(filepath.Base(r.Dir), latest); err != nil {
		r.c.Fatal(os.CopyFS(latest, os.DirFS(r.Dir)))
	}
	fmt.Printf("\r   %d rounds done in %s%40s\n", r.Rounds, Elapsed(r.start), "")
}
