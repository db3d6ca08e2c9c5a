package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"example.com/userperf/scripts/internal/results"
)

// floorName is the pseudo-stage that every stage is compared with.
const floorName = "floor"

// Benchmark names of the two tests, without the Benchmark prefix (benchfmt
// adds it), with their settings as sub-benchmark keys so that benchstat can
// group and filter by them, like the in-process benchmarks' users=U/matches=M.
func fixedRateName(rate, matches int) string {
	return fmt.Sprintf("HTTPFixedRate/rate=%d/matches=%d", rate, matches)
}

func saturatedName(conns, matches int) string {
	return fmt.Sprintf("HTTPSaturated/conns=%d/matches=%d", conns, matches)
}

// fixedRateResult is one round of the open-loop test as a Go benchmark
// result: the iterations are the requests sent, the values are latencies in
// nanoseconds (benchstat shows them as seconds) and the failed requests.
func fixedRateResult(name string, s summary) *benchfmt.Result {
	return &benchfmt.Result{Name: benchfmt.Name(name), Iters: int(s.requests), Values: []benchfmt.Value{
		{Value: float64(s.p50.Nanoseconds()), Unit: "p50-ns"},
		{Value: float64(s.p95.Nanoseconds()), Unit: "p95-ns"},
		{Value: float64(s.p99.Nanoseconds()), Unit: "p99-ns"},
		{Value: float64(s.max.Nanoseconds()), Unit: "max-ns"},
		{Value: float64(s.errors), Unit: "errors"},
	}}
}

// saturatedResult is one round of the closed-loop test as a Go benchmark
// result.
func saturatedResult(name string, s summary) *benchfmt.Result {
	return &benchfmt.Result{Name: benchfmt.Name(name), Iters: int(s.requests), Values: []benchfmt.Value{
		{Value: math.Round(s.perSecond*10) / 10, Unit: "req/s"},
		{Value: float64(s.p50.Nanoseconds()), Unit: "p50-ns"},
		{Value: float64(s.p99.Nanoseconds()), Unit: "p99-ns"},
	}}
}

// row is one line of the final table: one stage at one result size.
type row struct {
	stage     string
	matches   int
	fixed     summary // the open-loop test, over its rounds (overRounds)
	saturated summary // the closed-loop test, over its rounds
}

// writeTable prints rows as an aligned text table, or as a markdown table.
// When the floor is among the rows, a column gives each stage's fixed-rate
// p50 as a multiple of the floor's at the same result size: how far the
// stage is from the limit of this HTTP path.
func writeTable(w io.Writer, rows []row, markdown bool) {
	floorP50 := map[int]time.Duration{}
	for _, r := range rows {
		if r.stage == floorName {
			floorP50[r.matches] = r.fixed.p50
		}
	}
	header := []string{"stage", "matches", "p50", "p95", "p99", "max", "errors", "saturated req/s"}
	if len(floorP50) > 0 {
		header = append(header, "p50 ÷ floor")
	}
	cells := [][]string{header}
	for _, r := range rows {
		line := []string{
			r.stage, fmt.Sprint(r.matches),
			formatLatency(r.fixed.p50), formatLatency(r.fixed.p95), formatLatency(r.fixed.p99), formatLatency(r.fixed.max),
			fmt.Sprint(r.fixed.errors + r.saturated.errors),
			fmt.Sprintf("%.0f", r.saturated.perSecond),
		}
		if len(floorP50) > 0 {
			ratio := "–"
			if f := floorP50[r.matches]; f > 0 {
				ratio = fmt.Sprintf("%.2fx", float64(r.fixed.p50)/float64(f))
			}
			line = append(line, ratio)
		}
		cells = append(cells, line)
	}
	if markdown {
		writeMarkdown(w, cells)
	} else {
		writeAligned(w, cells)
	}
}

// writeAligned pads every column to its widest cell; text columns are
// left-aligned and number columns right-aligned.
func writeAligned(w io.Writer, cells [][]string) {
	widths := make([]int, len(cells[0]))
	for _, line := range cells {
		for i, c := range line {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, line := range cells {
		var b strings.Builder
		for i, c := range line {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i > 0 {
				b.WriteString("  ")
			}
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

func writeMarkdown(w io.Writer, cells [][]string) {
	fmt.Fprintln(w, "| "+strings.Join(cells[0], " | ")+" |")
	align := make([]string, len(cells[0]))
	for i := range align {
		align[i] = "---:"
	}
	align[0] = "---"
	fmt.Fprintln(w, "| "+strings.Join(align, " | ")+" |")
	for _, line := range cells[1:] {
		fmt.Fprintln(w, "| "+strings.Join(line, " | ")+" |")
	}
}

// formatLatency prints d as every table of the project does: 1.436ms.
func formatLatency(d time.Duration) string { return results.Duration(d.Seconds()) }

// overRounds summarizes the rounds of one test as benchstat summarizes their
// result files: the median over the rounds of each percentile and of the
// throughput. The slowest request is the slowest of all rounds, and every
// request and error is counted.
func overRounds(rounds []summary) summary {
	var s summary
	for _, r := range rounds {
		s.requests += r.requests
		s.errors += r.errors
		s.max = max(s.max, r.max)
		if s.firstError == "" {
			s.firstError = r.firstError
		}
	}
	latency := func(of func(summary) time.Duration) time.Duration {
		return time.Duration(median(rounds, func(r summary) float64 { return float64(of(r)) }))
	}
	s.p50 = latency(func(r summary) time.Duration { return r.p50 })
	s.p95 = latency(func(r summary) time.Duration { return r.p95 })
	s.p99 = latency(func(r summary) time.Duration { return r.p99 })
	s.perSecond = median(rounds, func(r summary) float64 { return r.perSecond })
	s.sentPerSecond = median(rounds, func(r summary) float64 { return r.sentPerSecond })
	return s
}

// median is the median of of(r) over rounds, the mean of the middle two for
// an even count, as benchstat takes it; 0 for no rounds.
func median(rounds []summary, of func(summary) float64) float64 {
	if len(rounds) == 0 {
		return 0
	}
	values := make([]float64, len(rounds))
	for i, r := range rounds {
		values[i] = of(r)
	}
	slices.Sort(values)
	mid := len(values) / 2
	if len(values)%2 == 1 {
		return values[mid]
	}
	return (values[mid-1] + values[mid]) / 2
}
