package main

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/perf/benchunit"

	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// headline is the benchmark of the README's table: the case study's main
// request, finding and encoding the 100 users of one role among 10,000.
const headline = "ListByRole/users=10000/matches=100"

// throughEcho is the same request through the Echo handler: the column
// that puts the floor, whose in-process ListByRole is a map lookup, on the
// same footing as the stages.
const throughEcho = "ServeHTTP/users=10000/matches=100"

// The columns that appear once the results hold them: what one write
// costs, and what the stage's data structure holds per user.
const (
	writeBench = "Write/users=10000/roles=3" // one Add and one Delete, the case measured at every size
	buildBench = "Build/users=10000"
	heldUnit   = "held-B/user"
)

// has reports whether any of files measured bench in unit.
func has(files []*results.File, bench, unit string) bool {
	for _, f := range files {
		if f.Runs(bench, unit) > 0 {
			return true
		}
	}
	return false
}

// bytesPerUser formats a byte count as benchstat does: 812.0B, 1.465KiB.
func bytesPerUser(b float64) string { return benchunit.Scale(b, benchunit.Binary) + "B" }

// stagesTable is the README's table: for every stage, what it changes and
// how large that change is (diffSize against the previous step), the median
// time of the headline benchmark, the speed-up against the previous stage
// and against the first, the allocations per request, the time of the same
// request through the Echo handler, and, where the results have them, the
// time of one write and the heap held per user.
func stagesTable(files []*results.File, about func(stage string) (change, chapter string), diffSize func(previous, stage string) string) string {
	withWrite, withHeld := has(files, writeBench, "sec/op"), has(files, buildBench, heldUnit)
	head := []string{"stage", "change", "diff", "time/op", "speed-up vs previous", "speed-up vs " + files[0].Name, "allocs/op", "through Echo"}
	align := "|---|---|---:|---:|---:|---:|---:|---:|"
	if withWrite {
		head, align = append(head, "write"), align+"---:|"
	}
	if withHeld {
		head, align = append(head, "held/user"), align+"---:|"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| %s |\n%s\n", strings.Join(head, " | "), align)
	var first, previous float64 // 0 where unknown; previous is the last step's
	previousStep := ""
	runs := 0
	for i, f := range files {
		change, chapter := about(f.Name)
		cells := []string{link(f.Name, chapter), change, "—", "—", "—", "—", "—", "—"}
		// Only a step builds on the one before it; a learner's stage is
		// compared with the first.
		step := stages.IsStep(f.Name)
		if step && previousStep != "" {
			cells[2] = diffSize(previousStep, f.Name)
		}
		t, ok := f.Median(headline, "sec/op")
		if !ok || t <= 0 {
			t = 0
		} else {
			cells[3] = results.Duration(t)
			if i == 0 {
				first = t
			}
			if i > 0 && previous > 0 && step {
				cells[4] = speedup(previous / t)
			}
			if i > 0 && first > 0 && f.Name != stages.Floor {
				cells[5] = speedup(first / t)
			}
			runs = max(runs, f.Runs(headline, "sec/op"))
		}
		if step {
			previous, previousStep = t, f.Name
		}
		if allocs, ok := f.Median(headline, "allocs/op"); ok {
			cells[6] = fmt.Sprintf("%.0f", allocs)
		}
		if te, ok := f.Median(throughEcho, "sec/op"); ok && te > 0 {
			cells[7] = results.Duration(te)
		}
		if withWrite {
			cells = append(cells, cell(f, writeBench, "sec/op", results.Duration))
		}
		if withHeld {
			cells = append(cells, cell(f, buildBench, heldUnit, bytesPerUser))
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintf(&b, "\nDiff: the non-test Go files that differ from the previous stage, and the lines "+
		"added plus the lines removed in them (`git diff --no-index --numstat`). ")
	fmt.Fprintf(&b, "Median of %d runs of `Benchmark%s`: the lookup and the JSON encoding of the 100 users "+
		"with role admin among 10,000, in process. A speed-up is the other stage's time divided by this one's. "+
		"Through Echo: the median of `Benchmark%s`, the same request through the Echo handler. "+
		"The floor serves bytes encoded in advance: the limit of this path, not a step, so it gets no speed-up; "+
		"a stage that is not one of the steps is compared with the first only.",
		runs, headline, throughEcho)
	if withWrite {
		fmt.Fprintf(&b, " Write: the median of `Benchmark%s`, one Add and one Delete of a user with three roles.", writeBench)
	}
	if withHeld {
		fmt.Fprintf(&b, " Held/user: the heap the stage holds per user (`%s` of `Benchmark%s`).", heldUnit, buildBench)
	}
	fmt.Fprintf(&b, "\n%s\n", provenance.Line(files[0].Config))
	return b.String()
}

// cell is f's median of bench in unit, formatted, or a dash.
func cell(f *results.File, bench, unit string, format func(float64) string) string {
	if v, ok := f.Median(bench, unit); ok {
		return format(v)
	}
	return "—"
}

// link is the stage's name linked to its chapter, if it has one.
func link(stage, chapter string) string {
	if chapter == "" {
		return stage
	}
	return fmt.Sprintf("[%s](%s)", stage, chapter)
}

// speedup formats a ratio: 0.25x (four times slower), 4.7x, 16x, 3200x.
func speedup(r float64) string {
	switch {
	case r < 1:
		return fmt.Sprintf("%.2fx", r)
	case r < 10:
		return fmt.Sprintf("%.1fx", r)
	}
	return fmt.Sprintf("%.0fx", r)
}

// chartsBlock shows the charts, which are in dir, in the README, with the
// provenance of the benchmarks and, if a chart comes from them, of the
// load test.
func chartsBlock(dir string, charts []chart, compare, load []*results.File) string {
	var b strings.Builder
	fromLoad := false
	for _, c := range charts {
		fmt.Fprintf(&b, "![%s](%s)\n\n", c.title, path.Join(filepath.ToSlash(dir), c.file))
		fromLoad = fromLoad || c.fromLoad
	}
	if !fromLoad {
		fmt.Fprintf(&b, "%s\n", provenance.Line(compare[0].Config))
		return b.String()
	}
	fmt.Fprintf(&b, "Benchmarks: %s\n\nHTTP: %s\n", provenance.Line(compare[0].Config), provenance.Line(load[0].Config))
	return b.String()
}

// loadBlock is the table that load.sh wrote (table.md: latencies at a fixed
// rate, saturated throughput, each stage against the floor), and where,
// when and by which command it was measured.
func loadBlock(table string, load []*results.File) string {
	return strings.TrimSpace(table) + "\n\n" + provenance.Line(load[0].Config) + "\n"
}
