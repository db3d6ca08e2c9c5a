// Package profiles makes the top tables of what scripts/profile saves in
// results/profile/<stage>/: each function's share of a profile, from the
// folded profiles (fold.go) read with pprof's profile package, and the
// change of each share from one stage to another, as pprof's -normalize
// -diff_base shows it.
package profiles

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
	"golang.org/x/perf/benchunit"

	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
)

// tables are the tables that Write can make: the profile file, the sample type it sums, the title.
var tables = map[string]struct{ file, sampleType, title string }{
	"cpu":     {"cpu", "cpu", "CPU time"},
	"bytes":   {"mem", "alloc_space", "Allocated bytes"},
	"objects": {"mem", "alloc_objects", "Allocated objects"},
}

const legend = "The runtime's work for a function (allocating, ==, copy, preemption) counts at that function, " +
	"but for append growing a slice (runtime.growslice, with what it allocates); the collector's background " +
	"marking (runtime.gcBgMarkWorker) and sweeping (runtime.bgsweep), which no code here calls, count as one " +
	"row each. go tool pprof on cpu.pprof shows the runtime unfolded."

// Write writes the tables names of one stage's profiles in dirs[0], or of
// the change from dirs[0] to dirs[1], n functions each, after writing the
// folded profiles there; bench.txt names the benchmark, its package, the
// machine and the commit. A stage's tables in markdown are made here; the
// others are pprof's own -top (of a change, -normalize -diff_base: how
// each function's share changed).
func Write(w io.Writer, dirs, names []string, n int, markdown bool) error {
	var configs []map[string]string
	folded := map[string]*profile.Profile{} // by the path of the folded profile
	for _, dir := range dirs {
		bench, err := results.Read(filepath.Join(dir, "bench.txt"))
		if err != nil {
			return err
		}
		for _, file := range []string{"cpu", "mem"} {
			path := filepath.Join(dir, file+".folded.pprof")
			if folded[path], err = foldFile(filepath.Join(dir, file+".pprof"), path, bench.Config["pkg"]); err != nil {
				return err
			}
		}
		configs = append(configs, bench.Config)
	}
	a, b, bench := dirs[0], dirs[len(dirs)-1], configs[0]["profile-bench"]
	for _, name := range names {
		t, ok := tables[name]
		if !ok {
			return fmt.Errorf("unknown table %q: want cpu, bytes or objects", name)
		}
		profile := func(dir string) string { return filepath.Join(dir, t.file+".folded.pprof") }
		if markdown && a == b {
			rows, total, err := shares(folded[profile(b)], t.sampleType)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s of `%s` in %s, %s in all:\n\n", t.title, bench, filepath.Base(b), total)
			writeMarkdown(w, top(rows, n))
			continue
		}
		args := []string{"tool", "pprof", "-top", "-nodefraction=0", "-sample_index=" + t.sampleType, fmt.Sprint("-nodecount=", n)}
		title := fmt.Sprintf("%s of %s in %s", t.title, bench, filepath.Base(b))
		if a != b {
			args = append(args, "-normalize", "-diff_base="+profile(a))
			title = fmt.Sprintf("%s of %s, change of each function's share from %s to %s", t.title, bench, filepath.Base(a), filepath.Base(b))
		}
		fmt.Fprintf(w, "%s:\n", title)
		pprof := exec.Command("go", append(args, profile(b))...)
		pprof.Stdout, pprof.Stderr = w, os.Stderr
		if err := pprof.Run(); err != nil {
			return fmt.Errorf("go %s: %v", strings.Join(pprof.Args[1:], " "), err)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, legend)
	for _, config := range configs {
		fmt.Fprintln(w, provenance.Line(config))
	}
	return nil
}

// row is a function's share of a profile's total, in percent: of the
// samples where it is the leaf (flat), and of those where it is anywhere
// on the stack (cum), counted once per sample however often it recurs.
type row struct {
	function  string
	flat, cum float64
}

// shares are every function's shares of the samples of sampleType in p,
// and their total, formatted as pprof does (4.58s, 512MB).
func shares(p *profile.Profile, sampleType string) (map[string]*row, string, error) {
	index := slices.IndexFunc(p.SampleType, func(t *profile.ValueType) bool { return t.Type == sampleType })
	if index < 0 {
		return nil, "", fmt.Errorf("a profile has no %s samples", sampleType)
	}
	rows, total := map[string]*row{}, int64(0)
	for _, s := range p.Sample {
		v := s.Value[index]
		total += v
		seen := map[string]bool{}
		for i, loc := range s.Location {
			for j, line := range loc.Line { // the innermost first: Line[0] of Location[0] is the leaf
				name := line.Function.Name
				if rows[name] == nil {
					rows[name] = &row{function: name}
				}
				if i == 0 && j == 0 {
					rows[name].flat += float64(v)
				}
				if !seen[name] {
					seen[name], rows[name].cum = true, rows[name].cum+float64(v)
				}
			}
		}
	}
	for _, r := range rows {
		r.flat, r.cum = 100*r.flat/float64(max(total, 1)), 100*r.cum/float64(max(total, 1))
	}
	return rows, amount(float64(total), p.SampleType[index].Unit), nil
}

// amount formats v of a profile's unit as the tables of results do: 4.580s, 1.465GiB.
func amount(v float64, unit string) string {
	switch unit {
	case "nanoseconds":
		return results.Duration(v / 1e9)
	case "bytes":
		return benchunit.Scale(v, benchunit.Binary) + "B"
	}
	return benchunit.Scale(v, benchunit.Decimal)
}

// top are the n rows of the largest flat share, as pprof -top ranks them.
func top(rows map[string]*row, n int) []*row {
	list := slices.SortedFunc(maps.Values(rows), func(a, b *row) int {
		return cmp.Or(cmp.Compare(b.flat, a.flat), cmp.Compare(b.cum, a.cum), cmp.Compare(a.function, b.function))
	})
	return list[:min(n, len(list))]
}

// writeMarkdown writes rows as a markdown table, then the share of the
// functions it leaves out.
func writeMarkdown(w io.Writer, rows []*row) {
	fmt.Fprint(w, "| flat % | cum % | function |\n|---:|---:|:---|\n")
	others := 100.0
	for _, r := range rows {
		others -= r.flat
		fmt.Fprintf(w, "| %.2f | %.2f | `%s` |\n", r.flat, r.cum, r.function)
	}
	if others >= 0.005 {
		fmt.Fprintf(w, "| %.2f | | all other functions |\n", others)
	}
	fmt.Fprintln(w)
}
