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
	"math"
	"path/filepath"
	"slices"

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
// machine and the commit.
func Write(w io.Writer, dirs, names []string, n int, markdown bool) error {
	var configs []map[string]string
	folded := map[string]*profile.Profile{} // by file, dirs[0]'s first
	for _, dir := range dirs {
		bench, err := results.Read(filepath.Join(dir, "bench.txt"))
		if err != nil {
			return err
		}
		for _, file := range []string{"cpu", "mem"} {
			path := filepath.Join(dir, file+".pprof")
			if folded[path], err = foldFile(path, filepath.Join(dir, file+".folded.pprof"), bench.Config["pkg"]); err != nil {
				return err
			}
		}
		configs = append(configs, bench.Config)
	}
	a, b, bench := filepath.Base(dirs[0]), filepath.Base(dirs[len(dirs)-1]), configs[0]["profile-bench"]
	if markdown {
		bench = "`" + bench + "`"
	}
	for _, name := range names {
		t, ok := tables[name]
		if !ok {
			return fmt.Errorf("unknown table %q: want cpu, bytes or objects", name)
		}
		var each []map[string]*row
		var total string
		for _, dir := range dirs {
			rows, sum, err := shares(folded[filepath.Join(dir, t.file+".pprof")], t.sampleType)
			if err != nil {
				return err
			}
			each, total = append(each, rows), sum
		}
		title, rows, whole := fmt.Sprintf("%s of %s in %s", t.title, bench, b), each[0], 100.0
		if len(dirs) == 2 {
			title, rows, whole = fmt.Sprintf("%s of %s, change of each function's share from %s to %s", t.title, bench, a, b), change(each[0], each[1]), 0
		}
		fmt.Fprintf(w, "%s, %s in all:\n\n", title, total)
		writeRows(w, top(rows, n), whole, markdown, len(dirs) == 2)
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

// change is how each function's shares changed from before to after.
func change(before, after map[string]*row) map[string]*row {
	diff := map[string]*row{}
	for _, side := range []map[string]*row{before, after} {
		for name := range side {
			b, a := cmp.Or(before[name], &row{}), cmp.Or(after[name], &row{})
			diff[name] = &row{name, a.flat - b.flat, a.cum - b.cum}
		}
	}
	return diff
}

// top are the n rows of the largest flat share, or change of it, as pprof -top ranks them.
func top(rows map[string]*row, n int) []*row {
	list := slices.SortedFunc(maps.Values(rows), func(a, b *row) int {
		return cmp.Or(cmp.Compare(math.Abs(b.flat), math.Abs(a.flat)), cmp.Compare(math.Abs(b.cum), math.Abs(a.cum)), cmp.Compare(a.function, b.function))
	})
	return list[:min(n, len(list))]
}

// writeRows writes rows as a markdown or plain table, then the share of
// the functions it leaves out: whole (100%, or for a change 0) less the
// rows' flat shares.
func writeRows(w io.Writer, rows []*row, whole float64, markdown, signed bool) {
	number, line := map[bool]string{false: "%.2f", true: "%+.2f"}[signed], "%7s %7s  %s\n"
	if markdown {
		line = "| %s | %s | %s |\n"
		fmt.Fprint(w, "| flat % | cum % | function |\n|---:|---:|:---|\n")
	} else {
		fmt.Fprintf(w, line, "flat %", "cum %", "function")
	}
	for _, r := range rows {
		whole -= r.flat
		name := map[bool]string{false: r.function, true: "`" + r.function + "`"}[markdown]
		fmt.Fprintf(w, line, fmt.Sprintf(number, r.flat), fmt.Sprintf(number, r.cum), name)
	}
	if math.Abs(whole) >= 0.005 {
		fmt.Fprintf(w, line, fmt.Sprintf(number, whole), "", "all other functions")
	}
	fmt.Fprintln(w)
}
