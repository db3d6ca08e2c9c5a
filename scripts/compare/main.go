// Command compare puts the stages side by side, measured in one run on this
// machine; the usage below says how and why.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

const usage = `
compare: the stages side by side, measured in one run on this machine.

  go run ./scripts/compare                      every stage in go.work and the floor
  go run ./scripts/compare --thorough           20 rounds of 500ms instead of 10 of 150ms
  go run ./scripts/compare stage0-linear stage1-index
  go run ./scripts/compare --hold-cores stage0-linear stage1-index   while this process holds every core

Options: --rounds N (at least 6), --benchtime D (a go test -benchtime), --bench REGEXP (default:
^Benchmark(ListByRole|ServeHTTP|Write|Build)$; ^BenchmarkMixed$ measures reads and writes
mixed), --thorough, --hold-cores.

It builds every stage's test binary, then runs the benchmarks in rounds, one sample per stage per
round, in a rotating order, so that drift hits every stage alike; the first stage runs twice a
round, under a second label, for the run's floor (A/A). It prints benchstat's tables, the floor, and
each stage's verdict against the first at ListByRole/users=10000/matches=100, on CPU time where the
system gives it (MEASURING.md says why). Results: results/compare/<stamp>/, results/compare/latest.
A failing benchmark or Ctrl-C keeps nothing. USERPERF_MILLION=1 adds a million users; the command
line a result records names it, and USERPERF_PARALLEL_MIN.
`

func main() {
	c := harness.New("compare", usage)
	thorough := c.Flags.Bool("thorough", false, "")
	rounds := c.Flags.Int("rounds", 10, "")
	benchtime := c.Flags.String("benchtime", "150ms", "")
	bench := c.Flags.String("bench", "^Benchmark(ListByRole|ServeHTTP|Write|Build)$", "")
	hold := c.Flags.Bool("hold-cores", false, "")
	picked := c.Parse()
	c.Record("USERPERF_PARALLEL_MIN", "USERPERF_MILLION")
	if *thorough {
		*rounds, *benchtime = 20, "500ms"
	}
	if *rounds < 6 {
		c.Usage("--rounds %d: benchstat needs at least 6 samples for a p-value; use --rounds 6 or more", *rounds)
	}
	if _, err := regexp.Compile(*bench); err != nil {
		c.Usage("--bench %s: %v", *bench, err)
	}
	list, err := pick(c.Root, picked)
	if err != nil {
		c.Usage("%v", err)
	}

	run := c.NewRun("compare", *rounds)
	header := c.Header() + fmt.Sprintf("compare-settings: rounds=%d, benchtime=%s, bench=%s, hold-cores=%v\n", *rounds, *benchtime, *bench, *hold)
	var dirs []string
	for _, s := range list {
		dirs = append(dirs, s.Dir)
	}
	run.Build(dirs...)
	file := func(name string) string { return filepath.Join(run.Dir, name+".txt") }
	again := stages.Stage{Name: list[0].Name + ".again", Dir: list[0].Dir} // the A/A label
	measured := append(slices.Clone(list), again)
	for _, name := range append([]string{"machine"}, stages.Names(measured)...) {
		c.Fatal(os.WriteFile(file(name), []byte(header), 0o644))
	}
	if *hold {
		stop := harness.HoldCores(4 * time.Hour)
		c.Cleanup(stop)
		defer stop()
	}
	fmt.Printf("== %d rounds x %d stages and %s again, -benchtime %s, interleaved\n", *rounds, len(list), list[0].Name, *benchtime)
	for round := range *rounds {
		for k := range measured {
			s := measured[(round+k)%len(measured)] // rotate who goes first
			run.Bench(round+1, s.Dir, *bench, *benchtime, file(s.Name), s.Name)
		}
	}
	run.Keep()

	table, err := tables(list, file)
	c.Fatal(err)
	noise, err := floor(list, file)
	c.Fatal(err)
	table += noise
	fmt.Print(table)
	c.Fatal(os.WriteFile(file("benchstat"), []byte(table), 0o644))
	first, err := results.Read(file(list[0].Name)) // a file with results: its header is read with them
	c.Fatal(err)
	fmt.Printf("\nmeasured on: %s\n", harness.MeasuredOn(first.Config))
	fmt.Printf("results: %s (benchstat.txt, one .txt per stage); charts and tables: go run ./scripts/report\n", run.Dir)
	c.Exit(0)
}

// pick returns the stages named, or every stage that the tables show.
func pick(root string, names []string) ([]stages.Stage, error) {
	if len(names) == 0 {
		return stages.Shown(root)
	}
	return stages.Find(root, names...)
}

// tables is benchstat's table of the stages, one column each, the first as
// the base (-ignore pkg puts the stages, which are different packages, in
// the same rows), then the last stage against the floor in a table of its
// own: the floor's nanoseconds in the same rows would have benchstat print
// every stage's time in nanoseconds too.
func tables(list []stages.Stage, file func(string) string) (string, error) {
	var args []string
	last := ""
	for _, s := range list {
		if s.Name != stages.Floor {
			args, last = append(args, s.Name+"="+file(s.Name)), s.Name
		}
	}
	var out strings.Builder
	if len(args) > 0 {
		table, err := harness.Benchstat(append([]string{"-ignore", "pkg"}, args...)...)
		if err != nil {
			return "", err
		}
		out.WriteString(table)
	}
	if last != "" && len(args) < len(list) {
		table, err := harness.Benchstat("-ignore", "pkg", "-filter", ".name:ServeHTTP",
			last+"="+file(last), stages.Floor+"="+file(stages.Floor))
		if err != nil {
			return "", err
		}
		var rows strings.Builder
		for _, line := range strings.SplitAfter(table, "\n") {
			if !configLine.MatchString(line) { // the table above has shown them
				rows.WriteString(line)
			}
		}
		if strings.TrimSpace(rows.String()) != "" { // none without BenchmarkServeHTTP
			fmt.Fprintf(&out, "\nHow far %s is from the floor (pre-built bytes through the same Echo handler):\n%s", last, rows.String())
		}
	}
	return out.String(), nil
}

var configLine = regexp.MustCompile(`^[a-z][a-z-]*: `)

// headline is the row that verdicts are given on, where it was measured.
const headline = "ListByRole/users=10000/matches=100"

// floor is the A/A table, the first stage against its second label, and
// each other stage's verdict against the first at the headline row.
func floor(list []stages.Stage, file func(string) string) (string, error) {
	base, err := results.Read(file(list[0].Name))
	if err != nil {
		return "", err
	}
	again, err := results.Read(file(list[0].Name + ".again"))
	if err != nil {
		return "", err
	}
	table, err := harness.Benchstat("-ignore", "pkg", "-filter", ".unit:(sec/op OR cpu-sec/op)",
		base.Name+"="+base.Path, base.Name+",again="+again.Path)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	fmt.Fprintf(&out, "\nThe floor: %s measured twice, interleaved (A/A); any difference is noise:\n", base.Name)
	for _, line := range strings.SplitAfter(table, "\n") {
		if !configLine.MatchString(line) {
			out.WriteString(line)
		}
	}
	if _, ok := base.Median(headline, "sec/op"); !ok {
		return out.String(), nil // no verdicts on other benchmarks: they answer other questions
	}
	fmt.Fprintf(&out, "\nVerdicts at %s:\n", headline)
	for _, s := range list[1:] {
		if s.Name == stages.Floor {
			continue // the limit of the path, not a step to decide on
		}
		other, err := results.Read(file(s.Name))
		if err != nil {
			return "", err
		}
		c, err := results.Compare(base, again, other, headline)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&out, "  %-24s %s\n", s.Name, c.Verdict(base.Name))
	}
	return out.String(), nil
}
