package figures

import (
	"fmt"
	"slices"
	"strings"

	"example.com/userperf/scripts/internal/results"
)

// MinSamples is the fewest samples for which benchstat gives a confidence interval at
// results.Confidence; with fewer it prints "± ∞", which no page may show (provenance.UpdateFile).
const MinSamples = 6

// LoadCaption begins the caption under a load run's tables in its table.md, which report keeps.
const LoadCaption = "GET /users?role=R"

// LoadTables are the tables of a load run's files, without the saturated test's latencies (mostly
// queueing): where every figure has MinSamples samples, benchstat's, a row per stage (with
// stageColumns, a column per stage, against the first), then each step's verdicts; else the medians alone.
func LoadTables(files []*results.File, stageColumns bool) (string, error) {
	if fewest(files) >= MinSamples {
		args := []string{"-table", "", "-row", ".file", "-col", ".name,/matches,/writes"}
		if stageColumns {
			args = []string{"-table", "", "-row", ".name,/matches,/writes", "-col", ".file"}
		}
		args = append(args, "-filter", "-(.name:HTTPSaturated AND .unit:(p50-sec OR p99-sec))")
		for _, f := range files {
			args = append(args, f.Name+"="+f.Path)
		}
		tables, err := Benchstat(args)
		return tables + LoadVerdicts(files), err
	}
	var tables []string
	for _, unit := range []string{"p50-sec", "p95-sec", "p99-sec", "write-p50-sec", "req/s", "errors"} {
		header := []string{unit}
		for _, m := range files[0].Measurements() {
			saturated := strings.HasPrefix(m.Bench, "HTTPSaturated") && strings.HasPrefix(m.Unit, "p")
			if m.Unit == unit && !saturated { // a saturated test's latencies are mostly its queue
				header = append(header, m.Bench)
			}
		}
		format := Count
		if strings.HasSuffix(unit, "-sec") {
			format = results.Duration
		}
		var rows [][]string
		nonzero := false // with errors: a read failed
		for _, f := range files {
			row := []string{f.Name}
			for _, b := range header[1:] {
				row = append(row, Cell(f, b, unit, format))
				nonzero = nonzero || slices.ContainsFunc(f.Values(b, unit), func(v float64) bool { return v > 0 })
			}
			rows = append(rows, row)
		}
		switch {
		case len(header) == 1:
		case unit == "errors" && !nonzero:
			tables = append(tables, "errors: no failed read in any test.")
		default:
			tables = append(tables, Table(header, rows))
		}
	}
	return fmt.Sprintf("The median of %d round(s) per figure, fewer than the %d for a confidence interval: medians alone "+
		"(`--rounds %d` for benchstat's tables).\n\n%s", fewest(files), MinSamples, MinSamples, strings.Join(tables, "\n\n")), nil
}

// LoadVerdicts are the first lines of each step's verdicts against the step before it, in p50 and p99
// at the fixed rate, held against the noise band of the run's A/A pair (FIRST.again.txt) if it has one.
func LoadVerdicts(files []*results.File) string {
	var lines []string
	steps := Steps(files)
	for i := 1; i < len(steps); i++ {
		previous, f := steps[i-1], steps[i]
		for _, m := range f.Measurements() {
			if !strings.HasPrefix(m.Bench, "HTTPFixedRate") || (m.Unit != "p50-sec" && m.Unit != "p99-sec") {
				continue
			}
			c, err := results.CompareIn(m.Unit, strings.TrimSuffix(m.Unit, "-sec")+" latency", previous, nil, f, m.Bench)
			if err != nil {
				continue // a stage without that test
			}
			verdict := c.InRun(files[0], m.Bench).Verdict(previous.Name)
			lines = append(lines, fmt.Sprintf("- `%s` %s: %s", m.Bench, f.Name, results.FirstLine(verdict)))
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "\n\nEach step against the one before, at the fixed rate ([measuring.md](measuring.md) gives the rule; faster: a shorter latency):\n\n" +
		strings.Join(lines, "\n")
}

// fewest is the fewest samples that any figure of files has.
func fewest(files []*results.File) int {
	n := -1
	for _, f := range files {
		for _, m := range f.Measurements() {
			if k := len(f.Values(m.Bench, m.Unit)); n < 0 || k < n {
				n = k
			}
		}
	}
	return max(n, 0)
}
