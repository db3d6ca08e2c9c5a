package figures

import (
	"fmt"

	"example.com/userperf/scripts/internal/results"
)

// GrowthBench names BenchmarkListByRole's result at users, with 100 matches.
func GrowthBench(users int) string { return fmt.Sprintf("ListByRole/users=%d/matches=100", users) }

// GrowthTable answers "does the time grow with the data?" for each stage: its median at from and at
// to users, and how many times it grew (results.Speed), with the top of its CI.
func GrowthTable(files []*results.File, from, to int) string {
	unit, unitName := results.Deciding(GrowthBench(from), files...)
	level := fmt.Sprintf("%.0f%%", 100*results.Confidence)
	header := []string{"stage", thousands(from) + " users", thousands(to) + " users", "grew", "at most (" + level + " confidence)"}
	var rows [][]string
	for _, f := range files {
		small, large := f.Values(GrowthBench(from), unit), f.Values(GrowthBench(to), unit)
		grew, most := "—", "—"
		if len(small) > 0 && len(large) > 0 {
			g := results.Speed(large, small) // how many times longer the large takes: its CI's top is the most it grew
			grew, most = results.Times(g.Ratio), results.Times(g.Hi)
		}
		rows = append(rows, []string{f.Name, Cell(f, GrowthBench(from), unit, results.Duration), Cell(f, GrowthBench(to), unit, results.Duration), grew, most})
	}
	return Table(header, rows) + fmt.Sprintf("\n\n%s of `BenchmarkListByRole` with 100 matches (the median of %d runs), "+
		"at %s and at %s users; grew: the median of every ratio of a time at the second size over one at the first; at most: "+
		"the top of its %s confidence interval (as in the verdicts), the most that this run lets the growth be.\n", unitName,
		len(files[0].Values(GrowthBench(from), unit)), thousands(from), thousands(to), level)
}

// thousands writes n with commas: 1,000,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
