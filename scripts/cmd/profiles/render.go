package main

import (
	"fmt"
	"io"

	"github.com/google/pprof/profile"
	"golang.org/x/perf/benchunit"

	"example.com/userperf/scripts/internal/results"
)

// legend explains what the normalizer merged, under every table, for a
// reader who then opens go tool pprof -http and sees the runtime unfolded.
const legend = "The runtime is folded into the code that led to it: a run of runtime frames " +
	"counts as its entry point (the allocator's helpers under an append as runtime.growslice, " +
	"the collector's background marking, which no code here calls, as runtime.gcBgMarkWorker), " +
	"and runtime.memmove (copy and append), ==, clear and preemption (runtime.asyncPreempt) " +
	"count at the function that ran them. go tool pprof -http shows them unfolded."

// writeTop writes the first n functions of s by flat share, and one line for
// all the others, like perf report.
func writeTop(w io.Writer, s shares, n int, markdown bool) {
	top, other, others := s.topRows(n)
	if markdown {
		fmt.Fprintln(w, "| flat % | cum % | function |")
		fmt.Fprintln(w, "|---:|---:|:---|")
		for _, r := range top {
			fmt.Fprintf(w, "| %.1f | %.1f | `%s` |\n", s.percent(r.flat), s.percent(r.cum), r.name)
		}
		if others > 0 {
			fmt.Fprintf(w, "| %.1f | | %s |\n", s.percent(other), functions(others, "other"))
		}
		return
	}
	fmt.Fprintf(w, "%8s %8s  %s\n", "flat%", "cum%", "function")
	for _, r := range top {
		fmt.Fprintf(w, "%7.2f%% %7.2f%%  %s\n", s.percent(r.flat), s.percent(r.cum), r.name)
	}
	if others > 0 {
		fmt.Fprintf(w, "%7.2f%% %8s  (%s)\n", s.percent(other), "", functions(others, "other"))
	}
}

// writeMoves writes the first n moves between the profiles of stages a and b.
func writeMoves(w io.Writer, a, b string, ms []move, n int, markdown bool) {
	rest := max(len(ms)-n, 0)
	ms = ms[:min(n, len(ms))]
	if markdown {
		fmt.Fprintf(w, "| %s flat %% | %s flat %% | change (points) | function |\n", a, b)
		fmt.Fprintln(w, "|---:|---:|---:|:---|")
		for _, m := range ms {
			fmt.Fprintf(w, "| %.1f | %.1f | %+.1f | `%s` |\n", m.before, m.after, m.change(), m.name)
		}
		if rest > 0 {
			fmt.Fprintf(w, "| | | | %s that moved less |\n", functions(rest, "more"))
		}
		return
	}
	wa, wb := max(len(a), 8), max(len(b), 8)
	fmt.Fprintf(w, "%*s  %*s  %7s  %s\n", wa, a, wb, b, "change", "function")
	for _, m := range ms {
		fmt.Fprintf(w, "%*.2f%%  %*.2f%%  %+7.2f  %s\n", wa-1, m.before, wb-1, m.after, m.change(), m.name)
	}
	if rest > 0 {
		fmt.Fprintf(w, "%*s  %*s  %7s  (%s that moved less)\n", wa, "", wb, "", "", functions(rest, "more"))
	}
}

// functions is "1 other function" or "3 other functions".
func functions(n int, adjective string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s function", adjective)
	}
	return fmt.Sprintf("%d %s functions", n, adjective)
}

// describe says how much a profile holds of one measure: "4.91s of samples
// in 7.23s", "1.2GiB allocated (sampled)".
func describe(p *profile.Profile, m measure, total int64) string {
	switch m {
	case cpuTime:
		return fmt.Sprintf("%s of samples in %s", results.Duration(float64(total)/1e9), results.Duration(float64(p.DurationNanos)/1e9))
	case allocatedBytes:
		return benchunit.Scale(float64(total), benchunit.Binary) + "B allocated (sampled)"
	default:
		return benchunit.Scale(float64(total), benchunit.Decimal) + " objects allocated (sampled)"
	}
}

// perOp formats a benchmark's time per operation: "253.9µs/op".
func perOp(sec float64) string { return results.Duration(sec) + "/op" }
