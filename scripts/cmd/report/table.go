package main

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/perf/benchunit"
)

// headline is the benchmark of the README's table: the case study's main
// request, finding and encoding the 100 users of one role among 10,000.
const headline = "ListByRole/users=10000/matches=100"

// throughEcho is the same request through the Echo handler: the column
// that puts the floor, whose in-process ListByRole is a map lookup, on the
// same footing as the stages.
const throughEcho = "ServeHTTP/users=10000/matches=100"

// stagesTable is the README's table: for every stage, what it changes, the
// median time of the headline benchmark, the speed-up against the previous
// stage and against the first, the allocations per request, and the time
// of the same request through the Echo handler.
func stagesTable(rs *resultSet, change func(stage string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| stage | change | time/op | speed-up vs previous | speed-up vs %s | allocs/op | through Echo |\n", rs.stages[0].name)
	b.WriteString("|---|---|---:|---:|---:|---:|---:|\n")
	var first, previous float64 // 0 where unknown
	runs := 0
	for i, s := range rs.stages {
		t, ok := s.median(headline, "sec/op")
		allocs, okAllocs := s.median(headline, "allocs/op")
		cells := []string{link(s.name), change(s.name), "—", "—", "—", "—", "—"}
		if ok && t > 0 {
			cells[2] = seconds(t)
			if i == 0 {
				first = t
			}
			if i > 0 && previous > 0 && s.name != "floor" {
				cells[3] = speedup(previous / t)
			}
			if i > 0 && first > 0 && s.name != "floor" {
				cells[4] = speedup(first / t)
			}
			runs = max(runs, s.runs(headline, "sec/op"))
		} else {
			t = 0
		}
		previous = t
		if okAllocs {
			cells[5] = fmt.Sprintf("%.0f", allocs)
		}
		if te, ok := s.median(throughEcho, "sec/op"); ok && te > 0 {
			cells[6] = seconds(te)
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintf(&b, "\nMedian of %d runs of `Benchmark%s`: the lookup and the JSON encoding of the 100 users "+
		"with role admin among 10,000, in process. A speed-up is the other stage's time divided by this one's. "+
		"Through Echo: the median of `Benchmark%s`, the same request through the Echo handler. "+
		"The floor serves bytes encoded in advance: the limit of this path, not a step, so it gets no speed-up.\n",
		runs, headline, throughEcho)
	fmt.Fprintf(&b, "Measured on %s.\n", rs.machine())
	return b.String()
}

// link is the stage's name linked to its chapter; the floor has none.
func link(stage string) string {
	if stage == "floor" {
		return "floor"
	}
	return fmt.Sprintf("[%s](%s/README.md)", stage, stage)
}

// seconds formats a time as benchstat does: 253.9µs.
func seconds(sec float64) string { return benchunit.Scale(sec, benchunit.Decimal) + "s" }

// speedup formats a ratio: 4.7x, 16x, 3200x.
func speedup(r float64) string {
	if r < 10 {
		return fmt.Sprintf("%.1fx", r)
	}
	return fmt.Sprintf("%.0fx", r)
}

// chartsBlock shows the charts, which are in dir, in the README.
func chartsBlock(dir string, charts []chart, rs *resultSet) string {
	var b strings.Builder
	for _, c := range charts {
		fmt.Fprintf(&b, "![%s](%s)\n\n", c.title, path.Join(filepath.ToSlash(dir), c.file))
	}
	fmt.Fprintf(&b, "Measured on %s.\n", rs.machine())
	return b.String()
}

// loadBlock is the table that load.sh wrote (table.md: latencies at a fixed
// rate, saturated throughput, each stage against the floor), and the command
// that measured it.
func loadBlock(table string, load *resultSet) string {
	return strings.TrimSpace(table) + "\n\nMeasured on " + load.machine() + ".\n"
}
