package figures

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"example.com/userperf/common/bench"
	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// Benchstat returns benchstat's tables of args, fenced, without the configuration lines that a provenance line says.
func Benchstat(args []string) (string, error) {
	out, err := harness.GoOutput(append([]string{"tool", "benchstat"}, args...)...)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimRight(out, "\n "), "\n")
	lines = lines[max(0, slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "│") })):]
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return "```\n" + strings.Join(lines, "\n") + "\n```", nil
}

// BenchstatBlock is a generated block of benchstat's tables of args, with the provenance of the
// result files among args (path or label=path), then: one line if they were measured together,
// else one per file. No line names a result file, which a clone lacks.
func BenchstatBlock(args []string, then ...string) (string, error) {
	var each, lines []string // each file's label and provenance line; the lines alone
	args = slices.Clone(args)
	for i, arg := range args {
		eq := strings.Index(arg, "=")
		label, input := arg[:max(eq, 0)], arg[eq+1:]
		if info, err := os.Stat(input); err != nil || info.IsDir() {
			continue // a flag, or its value
		}
		f, err := results.Read(input)
		if err != nil {
			return "", err
		}
		if label == "" { // else benchstat shows the path, which a clone lacks
			label = f.Name
			args[i] = label + "=" + input
		}
		lines = append(lines, provenance.Line(f.Config, then...))
		each = append(each, label+": "+lines[len(lines)-1])
	}
	if len(lines) == 0 {
		return "", fmt.Errorf("no result file among the benchstat arguments %q", args)
	}
	tables, err := Benchstat(args)
	if err != nil {
		return "", err
	}
	if len(slices.Compact(lines)) == 1 { // measured together
		each = lines[:1]
	}
	return tables + "\n\n" + strings.Join(each, "\n\n") + "\n", nil
}

// Table is a markdown table of header and rows: the first column aligned left, the figures right.
func Table(header []string, rows [][]string) string {
	lines := []string{Row(header...), "|---|" + strings.Repeat("---:|", len(header)-1)}
	for _, r := range rows {
		lines = append(lines, Row(r...))
	}
	return strings.Join(lines, "\n")
}

// Row is a row of a markdown table.
func Row(cells ...string) string { return "| " + strings.Join(cells, " | ") + " |" }

// Cell is f's median of bench in unit (results.Median), formatted, or "—" if f has none.
func Cell(f *results.File, bench, unit string, format func(float64) string) string {
	if v := f.Values(bench, unit); len(v) > 0 {
		return format(results.Median(v))
	}
	return "—"
}

// Steps are the steps among files, which build on one another: what a verdict compares with the one before.
func Steps(files []*results.File) []*results.File {
	return slices.DeleteFunc(slices.Clone(files), func(f *results.File) bool { return !stages.IsStep(f.Name) })
}

// InRun compares other with base at bench (results.Compare), against the noise band of the run
// whose first stage is first.
func InRun(first, base, other *results.File, bench string) (results.Comparison, error) {
	c, err := results.Compare(base, nil, other, bench)
	return c.InRun(first, bench), err
}

// MixedBench names BenchmarkMixed's result at writes percent and clients.
func MixedBench(writes, clients int) string {
	return fmt.Sprintf("Mixed/users=10000/writes=%d/clients=%d", writes, clients)
}

// MixedWanted are the results that the mixed block needs: BenchmarkMixed's every share of writes and client count.
func MixedWanted() (wanted []results.Measurement) {
	for _, c := range bench.MixedClients {
		for _, w := range bench.MixedWrites {
			wanted = append(wanted, results.Measurement{Bench: MixedBench(w, c), Unit: "sec/op"})
		}
	}
	return wanted
}

// MixedTable is the medians of BenchmarkMixed, a table per client count (a row per stage, a column
// per share of writes), and for the most clients at the most writes the mean time a read waited;
// under them, where each step stops paying against the one before it, with each client count.
func MixedTable(files []*results.File) string {
	var tables, found []string
	most := bench.MixedWrites[len(bench.MixedWrites)-1]
	for _, c := range bench.MixedClients {
		header := []string{clientsName(c)}
		for _, w := range bench.MixedWrites {
			header = append(header, fmt.Sprintf("%d%% writes", w))
		}
		wait := c == bench.MixedClients[len(bench.MixedClients)-1] // where the clients queue, a read's wait shows
		if wait {
			header = append(header, fmt.Sprintf("read wait, %d%% writes", most))
		}
		var rows [][]string
		for _, f := range files {
			row := []string{f.Name}
			for _, w := range bench.MixedWrites {
				row = append(row, Cell(f, MixedBench(w, c), "sec/op", results.Duration))
			}
			if wait {
				row = append(row, Cell(f, MixedBench(most, c), "read-wait-sec/op", results.Duration))
			}
			rows = append(rows, row)
		}
		tables = append(tables, Table(header, rows))
		for _, x := range crossovers(files, c) {
			what := "pays at every share measured"
			if x.at == 0 {
				what = "does not pay even without writes"
			} else if x.at > 0 {
				what = fmt.Sprintf("stops paying at %d%% writes", bench.MixedWrites[x.at])
			}
			found = append(found, fmt.Sprintf("- %s against %s, %s: %s", x.step, x.previous, clientsName(c), what))
		}
	}
	table := strings.Join(tables, "\n\n") + "\n\n"
	if len(found) == 0 {
		return table
	}
	_, unitName := results.Deciding(MixedBench(0, 1), files...)
	return table + "Crossovers (the first share of writes at which a step is not decidedly faster than the one before it, by " +
		unitName + "; ringed on the chart):\n\n" + strings.Join(found, "\n") + "\n\n"
}

func clientsName(clients int) string {
	if clients == 1 {
		return "one client"
	}
	return fmt.Sprintf("%d clients", clients)
}

// crossover is where step stops paying against previous: at the share bench.MixedWrites[at], or at none if at is -1.
type crossover struct {
	step, previous string
	at             int
}

// crossovers are, with clients, each step's crossover against the step before: the first share
// of writes at which it is not decided faster by the verdicts' rule, against the run's noise band.
func crossovers(files []*results.File, clients int) (found []crossover) {
	steps := Steps(files)
	for i := 1; i < len(steps); i++ {
		previous, step := steps[i-1], steps[i]
		at := slices.IndexFunc(bench.MixedWrites, func(w int) bool {
			c, err := InRun(files[0], previous, step, MixedBench(w, clients))
			return err == nil && !(c.Decided && c.Ratio > 1)
		})
		found = append(found, crossover{step.Name, previous.Name, at})
	}
	return found
}
