// Package profiles makes pprof's top tables of what scripts/profile saves in
// results/profile/<stage>/, folded (see fold), for a stage or the change from one to the next.
package profiles

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/google/pprof/profile"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
)

// tables are what Write can make: the profile file, pprof's -sample_index, the title.
var tables = map[string]struct{ file, sampleIndex, title string }{
	"cpu":     {"cpu", "cpu", "CPU time"},
	"bytes":   {"mem", "alloc_space", "Allocated bytes"},
	"objects": {"mem", "alloc_objects", "Allocated objects"},
}

const legend = "The runtime's work for a function (allocating, ==, copy, preemption) counts at that function, " +
	"but for append growing a slice (runtime.growslice, with what it allocates); the collector's background " +
	"marking (runtime.gcBgMarkWorker) and sweeping (runtime.bgsweep), which no code here calls, count as one " +
	"row each. go tool pprof on cpu.pprof shows the runtime unfolded."

// Write writes the tables names, n functions each, of one stage's profiles in dirs[0], or of the change
// in each function's share from dirs[0] to dirs[1] (pprof's -normalize -diff_base), in code blocks if
// markdown. It folds the profiles there first; bench.txt names the benchmark, its package and provenance.
func Write(w io.Writer, dirs, names []string, n int, markdown bool) error {
	var configs []map[string]string
	for _, dir := range dirs {
		bench, err := results.Read(filepath.Join(dir, "bench.txt"))
		if err != nil {
			return err
		}
		if err := errors.Join(fold(dir, "cpu", bench.Config["pkg"]), fold(dir, "mem", bench.Config["pkg"])); err != nil {
			return err
		}
		configs = append(configs, bench.Config)
	}
	a, b, bench, fence := dirs[0], dirs[len(dirs)-1], configs[0]["profile-bench"], ""
	if markdown {
		bench, fence = "`"+bench+"`", "```\n"
	}
	for _, name := range names {
		t, ok := tables[name]
		if !ok {
			return fmt.Errorf("unknown table %q: want cpu, bytes or objects", name)
		}
		args := []string{"tool", "pprof", "-top", "-nodefraction=0", "-sample_index=" + t.sampleIndex, fmt.Sprint("-nodecount=", n)}
		title := fmt.Sprintf("%s of %s in %s", t.title, bench, filepath.Base(b))
		if a != b {
			args = append(args, "-normalize", "-diff_base="+folded(a, t.file))
			title = fmt.Sprintf("%s of %s, change of each function's share from %s to %s", t.title, bench, filepath.Base(a), filepath.Base(b))
		}
		out, err := harness.GoOutput(append(args, folded(b, t.file))...)
		if err != nil {
			return err
		}
		// From the summary line on: above it are the file, the build id and the time.
		table := out[max(0, strings.Index(out, "Showing nodes")):]
		fmt.Fprintf(w, "%s:\n\n%s%s%s\n", title, fence, table, fence)
	}
	fmt.Fprintln(w, legend)
	for _, config := range configs {
		fmt.Fprintln(w, provenance.Line(config))
	}
	return nil
}

// folded is the folded form, next to the original, of the profile file cpu or mem in dir.
func folded(dir, file string) string { return filepath.Join(dir, file+".folded.pprof") }

var (
	// runtimeCode is the Go runtime, and assembly helpers without a package (memeqbody, behind ==).
	runtimeCode = regexp.MustCompile(`^(runtime|internal/runtime/[^.]+|internal/bytealg)\.|^[^.]+$`)
	// sliceGrowth is append growing a slice, which the chapters follow as the cost of a copy.
	sliceGrowth = regexp.MustCompile(`^runtime\.growslice$`)
	// ownGoroutines are the runtime's own goroutines, which no code here calls.
	ownGoroutines = regexp.MustCompile(`^runtime\.(gcBgMarkWorker|bgsweep|bgscavenge)$`)
	// typeArgs name the compiler's shapes: slices.Clone[go.shape.[]string,go.shape.string].
	typeArgs = regexp.MustCompile(`\[.*\]`)
)

// fold writes the folded form of dir's profile file (cpu or mem) of the package mainPkg, as legend says.
// Named main.findByRole, not example.com/userperf/stage0-linear.findByRole, each stage's functions
// line up with the others' for pprof's -diff_base.
func fold(dir, file, mainPkg string) error {
	data, err := os.ReadFile(filepath.Join(dir, file+".pprof"))
	if err != nil {
		return err
	}
	p, err := profile.ParseData(data)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, file+".pprof"), err)
	}
	for _, fn := range p.Function {
		name, ok := strings.CutPrefix(fn.Name, mainPkg+".")
		if ok {
			name = "main." + name
		}
		fn.Name = typeArgs.ReplaceAllString(strings.TrimPrefix(name, "example.com/userperf/"), "[...]")
	}
	p.PruneFrom(ownGoroutines)
	p.Prune(runtimeCode, sliceGrowth)
	var out bytes.Buffer
	return errors.Join(p.Write(&out), os.WriteFile(folded(dir, file), out.Bytes(), 0o644))
}
