package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// floorName is the pseudo-stage that every stage is compared with.
const floorName = "floor"

// Benchmark names of the two tests, with their settings as sub-benchmark
// keys so that benchstat can group and filter by them, like the in-process
// benchmarks' users=U/matches=M.
func fixedRateName(rate, matches int) string {
	return fmt.Sprintf("BenchmarkHTTPFixedRate/rate=%d/matches=%d", rate, matches)
}

func saturatedName(conns, matches int) string {
	return fmt.Sprintf("BenchmarkHTTPSaturated/conns=%d/matches=%d", conns, matches)
}

// fixedRateLine is one round of the open-loop test in Go benchmark format:
// the iterations are the requests sent, the values are latencies in
// nanoseconds (benchstat shows them as seconds) and the failed requests.
func fixedRateLine(name string, s summary) string {
	return fmt.Sprintf("%s %d %d p50-ns %d p95-ns %d p99-ns %d max-ns %d errors",
		name, s.requests, s.p50.Nanoseconds(), s.p95.Nanoseconds(), s.p99.Nanoseconds(), s.max.Nanoseconds(), s.errors)
}

// saturatedLine is one round of the closed-loop test in Go benchmark format.
func saturatedLine(name string, s summary) string {
	return fmt.Sprintf("%s %d %.1f req/s %d p50-ns %d p99-ns",
		name, s.requests, s.perSecond, s.p50.Nanoseconds(), s.p99.Nanoseconds())
}

// row is one line of the final table: one stage at one result size.
type row struct {
	stage     string
	matches   int
	fixed     summary // over every round of the open-loop test
	saturated summary // over every round of the closed-loop test
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

// formatLatency prints d with three significant digits in the unit that
// suits it: 87.3µs, 1.25ms, 2.10s.
func formatLatency(d time.Duration) string {
	switch {
	case d >= time.Second:
		return threeDigits(d.Seconds()) + "s"
	case d >= time.Millisecond:
		return threeDigits(float64(d)/float64(time.Millisecond)) + "ms"
	default:
		return threeDigits(float64(d)/float64(time.Microsecond)) + "µs"
	}
}

func threeDigits(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}
