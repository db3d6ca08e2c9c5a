// Command compare puts the stages side by side, measured in one run on this
// machine; the usage below says how and why.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

const usage = `
compare: the stages side by side, measured in one run on this machine.

  go run ./scripts/compare [--thorough] [--hold-cores] [--rounds N] [--benchtime D] [--bench REGEXP] [STAGE...]

No STAGE: every stage in go.work and the floor. --rounds 10 (at least 6), --benchtime 150ms (a go test
-benchtime); --thorough: 20 rounds of 500ms; --bench ^Benchmark(ListByRole|ServeHTTP|Write|Build)$
(^BenchmarkMixed$ mixes reads and writes); --hold-cores: while this process holds every core.
It builds each stage's test binary, then runs rounds of one sample per stage in a rotating order, so that
drift hits every stage alike, the first stage twice, under a second label, for the run's A/A floor. It
prints benchstat's tables, the floor and each stage's verdict against the first at
ListByRole/users=10000/matches=100, on CPU time where the system gives it (MEASURING.md says why).
Results: results/compare/<stamp>/ and results/compare/latest; a failure or Ctrl-C keeps none.
USERPERF_MILLION=1 adds a million users; the recorded command line names it and USERPERF_PARALLEL_MIN.
`

func main() {
	c := harness.New("compare", usage)
	thorough := c.Flags.Bool("thorough", false, "")
	rounds := c.Flags.Int("rounds", 10, "")
	benchtime := c.Flags.String("benchtime", "150ms", "")
	bench := c.Flags.String("bench", "^Benchmark(ListByRole|ServeHTTP|Write|Build)$", "")
	hold := c.Flags.Bool("hold-cores", false, "")
	picked := c.Parse()
	if *thorough {
		*rounds, *benchtime = 20, "500ms"
	}
	if *rounds < 6 {
		c.Usage("--rounds %d: benchstat needs at least 6 samples for a p-value; use --rounds 6 or more", *rounds)
	}
	list, err := stages.Find(c.Root, picked...)
	if len(picked) == 0 {
		list, err = stages.Shown(c.Root)
	}
	if err != nil {
		c.Usage("%v", err)
	}

	run := c.NewRun("compare", *rounds)
	header := c.Header() + fmt.Sprintf("compare-settings: rounds=%d, benchtime=%s, bench=%s, hold-cores=%v\n", *rounds, *benchtime, *bench, *hold)
	file := func(name string) string { return filepath.Join(run.Dir, name+".txt") }
	measured := append(slices.Clone(list), stages.Stage{Name: list[0].Name + ".again", Dir: list[0].Dir}) // the A/A label
	var dirs []string
	for _, s := range list {
		dirs = append(dirs, s.Dir)
	}
	run.Build(dirs...)
	for _, name := range append([]string{"machine"}, stages.Names(measured)...) {
		c.Fatal(os.WriteFile(file(name), []byte(header), 0o644))
	}
	if *hold {
		c.Cleanup(harness.HoldCores())
	}
	fmt.Printf("== %d rounds x %d stages and %s again, -benchtime %s, interleaved\n", *rounds, len(list), list[0].Name, *benchtime)
	for round := range *rounds {
		for k := range measured {
			s := measured[(round+k)%len(measured)] // rotate who goes first
			run.Bench(round+1, s.Dir, *bench, *benchtime, file(s.Name), s.Name)
		}
	}
	run.Keep()

	base, err := results.Read(file(list[0].Name)) // its header is read with its results
	c.Fatal(err)
	table, err := tables(list, file, base, len(picked) > 0)
	c.Fatal(err)
	fmt.Print(table)
	c.Fatal(os.WriteFile(file("benchstat"), []byte(table), 0o644))
	fmt.Printf("\n%s\nresults: %s (benchstat.txt, one .txt per stage); charts and tables: go run ./scripts/report\n",
		provenance.Line(base.Config), run.Dir)
	c.Exit(0)
}

// tables is benchstat's table of the stages, the first as the base (-ignore pkg puts the stages,
// different packages, in the same rows), but for the floor when named is false (every stage: its
// nanoseconds would have every time printed in nanoseconds); then the A/A floor and each stage's
// verdict against the first.
func tables(list []stages.Stage, file func(string) string, base *results.File, named bool) (string, error) {
	var args []string
	for _, s := range list {
		if s.Name != stages.Floor || named {
			args = append(args, s.Name+"="+file(s.Name))
		}
	}
	out, err := harness.GoOutput(append([]string{"tool", "benchstat", "-ignore", "pkg"}, args...)...)
	if err != nil {
		return "", err
	}
	again, err := results.Read(file(base.Name + ".again"))
	if err != nil {
		return "", err
	}
	aa, err := harness.GoOutput("tool", "benchstat", "-ignore", "pkg", "-filter", ".unit:(sec/op OR cpu-sec/op)",
		base.Name+"="+base.Path, base.Name+",again="+again.Path)
	if err != nil {
		return "", err
	}
	above := aa[:max(strings.Index(aa, "│"), 0)] // the configuration lines, which the first table shows
	out += fmt.Sprintf("\nThe floor: %s measured twice, interleaved (A/A); any difference is noise:\n%s",
		base.Name, aa[strings.LastIndex(above, "\n")+1:])
	if _, ok := base.Median(headline, "sec/op"); !ok {
		return out, nil // no verdicts on other benchmarks: they answer other questions
	}
	out += fmt.Sprintf("\nVerdicts at %s:\n", headline)
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
		out += fmt.Sprintf("  %-24s %s\n", s.Name, c.Verdict(base.Name))
	}
	return out, nil
}

// headline is the row that verdicts are given on, where it was measured.
const headline = results.Headline
