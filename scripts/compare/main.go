// Command compare measures stages side by side, in one run on this machine,
// and says for each whether it is faster than the first.
//
// Usage:
//
//	go run ./scripts/compare [flags] [STAGE...]
//
// Without a STAGE it measures every stage of go.work and the floor. It
// builds each stage's test binary, then runs rounds of one sample per stage
// (the quickest of three short runs) in an order that rotates from round to
// round, so that a drift of the machine hits every stage alike. The first
// stage runs twice a round, under a second label: the A/A pair, whose CI
// says whether the run's CIs hold its noise (docs/measuring.md). It prints benchstat's tables, one column a
// stage, the floor, and each stage's verdict against the first at
// ListByRole/users=10000/matches=100, decided on CPU time where the system
// reports it (docs/measuring.md says why). The samples are kept in
// results/compare/<stamp>/, which results/compare/latest names; a failure
// or Ctrl-C keeps nothing. With USERPERF_MILLION=1 the benchmarks add a
// million users.
//
// The flags are:
//
//	--rounds N
//		Rounds of samples (default 10; benchstat needs at least 6).
//	--benchtime D
//		The go test -benchtime of one sample (default 150ms).
//	--thorough
//		20 rounds of 500ms.
//	--bench REGEXP
//		The benchmarks run (default ^Benchmark(ListByRole|ServeHTTP|Write|Build|Bare)$,
//		Bare being the floor's bare Echo handler; ^BenchmarkMixed$ mixes reads and
//		writes).
//	--hold-cores
//		Keep every core busy with another process meanwhile, as a loaded machine would.
//	--go RELEASES
//		Two Go releases or more, comma-separated (go1.26.8,go1.27.3): each stage is
//		built by each release (GOTOOLCHAIN, which downloads a release it lacks) and
//		compared with itself, all in the same interleaved rounds. The verdicts say
//		"12% slower", "12% faster" or "cannot tell on this machine", per stage, of
//		each later release against the first. Results go to results/toolchains/;
//		go run ./scripts/report toolchains writes the results page's block.
//
// # Examples
//
//	go run ./scripts/compare stage0-linear stage1-index
//	go run ./scripts/compare --rounds 6 --benchtime 100ms --bench '^BenchmarkListByRole$' stage3-parallel ex4
//	go run ./scripts/compare --go go1.26.8,go1.27.3 stage6-blocks
package main

import (
	"fmt"
	"go/version"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

func main() {
	start := time.Now() // the whole command's wall time, builds included, for the timings block
	c := harness.New("compare")
	thorough := c.Flags.Bool("thorough", false, "")
	rounds := c.Flags.Int("rounds", 10, "")
	benchtime := c.Flags.String("benchtime", "150ms", "")
	bench := c.Flags.String("bench", "^Benchmark(ListByRole|ServeHTTP|Write|Build|Bare)$", "")
	hold := c.Flags.Bool("hold-cores", false, "")
	releases := c.Flags.String("go", "", "")
	picked := c.Parse()
	if *thorough {
		*rounds, *benchtime = 20, "500ms"
	}
	if *rounds < 6 {
		c.Usage("--rounds %d: benchstat needs at least 6 samples for a p-value; use --rounds 6 or more", *rounds)
	}
	toolchains, err := parseToolchains(*releases)
	if err != nil {
		c.Usage("--go %s: %v", *releases, err)
	}
	list, err := stages.Find(c.Root, picked...)
	if len(picked) == 0 {
		list, err = stages.Shown(c.Root)
	}
	if err != nil {
		c.Usage("%v", err)
	}

	kind, builds := "compare", []string{""} // "": the go command's own Go
	if toolchains != nil {
		kind, builds = "toolchains", toolchains
	}
	run := c.NewRun(kind, *rounds)
	header := c.Header() + fmt.Sprintf("compare-settings: rounds=%d, benchtime=%s, bench=%s, hold-cores=%v\n", *rounds, *benchtime, *bench, *hold)
	file := func(name string) string { return filepath.Join(run.Dir, name+".txt") }
	var measured []binary
	for _, s := range list {
		for _, t := range builds {
			measured = append(measured, binary{s, t, results.OnToolchain(s.Name, t)})
		}
	}
	first := measured[0]
	measured = append(measured, binary{first.Folder, first.toolchain, first.label + ".again"}) // the A/A label
	var dirs []string
	for _, s := range list {
		dirs = append(dirs, s.Dir)
	}
	for _, t := range builds {
		run.BuildWith(t, dirs...)
	}
	c.Fatal(os.WriteFile(file("machine"), []byte(withGoVersion(header, strings.Join(toolchains, " and "))), 0o644))
	for _, b := range measured {
		c.Fatal(os.WriteFile(file(b.label), []byte(withGoVersion(header, b.toolchain)), 0o644))
	}
	if *hold {
		c.Cleanup(harness.HoldCores())
	}
	what := fmt.Sprintf("%d stages", len(list))
	if toolchains != nil {
		what += fmt.Sprintf(" x %d Go releases", len(toolchains))
	}
	fmt.Printf("== %d rounds x %s and %s again, -benchtime %s, interleaved\n", *rounds, what, first.label, *benchtime)
	for round := range *rounds {
		for k := range measured {
			b := measured[(round+k)%len(measured)] // rotate who goes first
			run.BenchWith(b.toolchain, round+1, b.Dir, *bench, *benchtime, file(b.label), b.label)
		}
	}
	c.Fatal(results.WriteWall(filepath.Join(run.Dir, results.WallFile), header, time.Since(start)))
	run.Keep()

	base, err := results.Read(file(first.label)) // its header is read with its results
	c.Fatal(err)
	var table, next string
	config := base.Config
	if toolchains == nil {
		table, err = tables(list, file, base, len(picked) > 0)
		next = "(benchstat.txt, one .txt per stage); charts and tables: go run ./scripts/report"
	} else {
		table, err = toolchainTables(list, toolchains, file, base)
		config = results.AcrossToolchains(config, toolchains)
		next = "(benchstat.txt, one .txt per stage and release); the results page's block: go run ./scripts/report toolchains --file docs/results.md"
	}
	c.Fatal(err)
	fmt.Print(table)
	c.Fatal(os.WriteFile(file("benchstat"), []byte(table), 0o644))
	fmt.Printf("\n%s\nresults: %s %s\n", provenance.Line(config), run.Dir, next)
	c.Exit(0)
}

// binary is one test binary of a run and the label of its results: a stage built by a toolchain.
type binary struct {
	stages.Folder
	toolchain, label string
}

// parseToolchains reads --go: "" (none), else two Go releases or more, such as go1.26.8,go1.27.3.
func parseToolchains(value string) ([]string, error) {
	if value == "" {
		return nil, nil
	}
	list := strings.Split(value, ",")
	for i, t := range list {
		switch {
		case !version.IsValid(t):
			return nil, fmt.Errorf("%q is not a Go release; name releases as the go command does, such as go1.26.8,go1.27.3", t)
		case version.Lang(t) == t:
			return nil, fmt.Errorf("%s is a language version, not a release: name one, such as %s.0", t, t)
		case slices.Contains(list[:i], t):
			return nil, fmt.Errorf("%s is named twice", t)
		}
	}
	if len(list) < 2 {
		return nil, fmt.Errorf("name two releases or more, such as go1.26.8,go1.27.3; for one, run GOTOOLCHAIN=%s go run ./scripts/compare", list[0])
	}
	return list, nil
}

// withGoVersion is header with its go-version line saying goVersion, unless that is "".
func withGoVersion(header, goVersion string) string {
	if goVersion == "" {
		return header
	}
	return goVersionLine.ReplaceAllLiteralString(header, "go-version: "+goVersion)
}

var goVersionLine = regexp.MustCompile(`(?m)^go-version: .*$`)

// tables is benchstat's table of the stages, the first as the base (-ignore pkg puts the stages,
// different packages, in the same rows), but for the floor when named is false (every stage: its
// nanoseconds would have every time printed in nanoseconds); then the A/A noise band and each stage's
// verdict against the first.
func tables(list []stages.Folder, file func(string) string, base *results.File, named bool) (string, error) {
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
	return withNoise(out, base, file, func(again *results.File) (string, error) {
		out := fmt.Sprintf("\nVerdicts at %s (docs/measuring.md gives the rule):\n", headline)
		var asked string // a learner's stages at the row that check asks their exercise's question
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
			out += said(s.Name, c.Verdict(base.Name))
			start := results.ExerciseStart(".", s.Dir, "") // the root, where Parse moved
			if row := results.Question(start); start != "" && row != headline && len(other.Values(row, "sec/op")) > 0 {
				if c, err = results.Compare(base, again, other, row); err != nil {
					return "", err
				}
				asked += said(s.Name+" at "+row+", as check asks the exercise from "+start, c.Verdict(base.Name))
			}
		}
		if asked != "" {
			out += "\nThe same at each exercise's own row:\n" + asked
		}
		return out, nil
	})
}

// said is stage's verdict as compare prints it: the stage's name, then the verdict's lines indented.
func said(stage, verdict string) string {
	return "  " + stage + ":\n    " + strings.ReplaceAll(verdict, "\n", "\n    ") + "\n"
}

// withNoise returns out followed by the A/A pair's table of base (noiseTable) and, where base measured
// the headline row, what verdicts says given again, base measured a second time, and the warning
// of a busy machine where the noise band is wide.
func withNoise(out string, base *results.File, file func(string) string, verdicts func(again *results.File) (string, error)) (string, error) {
	again, err := results.Read(file(base.Name + ".again"))
	if err != nil {
		return "", err
	}
	aa, err := noiseTable(base, again)
	if err != nil {
		return "", err
	}
	out += aa
	if len(base.Values(headline, "sec/op")) == 0 {
		return out, nil // no verdicts on other benchmarks: they answer other questions
	}
	noise, err := results.Compare(base, again, again, headline)
	if err != nil {
		return "", err
	}
	out += fmt.Sprintf("\nAt %s, the %s.\n", headline, noise.NoiseLine())
	v, err := verdicts(again)
	if noise.Busy() != "" {
		v += "\nWarning: " + noise.Busy() + ".\n"
	}
	return out + v, err
}

// headline is the row that verdicts are given on, where it was measured.
const headline = results.Headline

// noiseTable is benchstat's table of base and again, the same binary measured twice, interleaved.
func noiseTable(base, again *results.File) (string, error) {
	aa, err := harness.GoOutput("tool", "benchstat", "-ignore", "pkg", "-filter", ".unit:(sec/op OR cpu-sec/op)",
		base.Name+"="+base.Path, base.Name+",again="+again.Path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("\nThe A/A pair: %s measured twice, interleaved; any difference is noise, which the verdicts are held against:\n%s",
		base.Name, withoutConfig(aa)), nil
}

// withoutConfig is benchstat's output without the configuration lines above its first table.
func withoutConfig(out string) string {
	above := out[:max(strings.Index(out, "│"), 0)]
	return out[strings.LastIndex(above, "\n")+1:]
}

// toolchainTables is benchstat's tables of each stage on each toolchain, a column per toolchain and the
// first as the base, CPU time first; then the A/A noise band and, per stage, each later toolchain's verdict.
func toolchainTables(list []stages.Folder, toolchains []string, file func(string) string, base *results.File) (string, error) {
	benchstat := func(filter string) (string, error) {
		args := []string{"tool", "benchstat", "-filter", filter, "-ignore", "pkg", "-col", "go-version", "-row", ".file,.fullname"}
		for _, s := range list {
			for _, t := range toolchains {
				args = append(args, s.Name+"="+file(results.OnToolchain(s.Name, t))) // .file: the stage
			}
		}
		return harness.GoOutput(args...)
	}
	cpu, err := benchstat(".unit:cpu-sec/op")
	if err != nil {
		return "", err
	}
	rest, err := benchstat("-.unit:cpu-sec/op")
	if err != nil {
		return "", err
	}
	out := cpu + "\n" + withoutConfig(rest)
	if cpu == "" { // no CPU time on this system
		out = rest
	}
	return withNoise(out, base, file, func(again *results.File) (string, error) {
		noise, err := results.Compare(base, again, again, headline) // its band: the A/A's
		if err != nil {
			return "", err
		}
		out := fmt.Sprintf("\nVerdicts at %s, each stage against itself on %s:\n", headline, toolchains[0])
		for _, s := range list {
			first, err := results.Read(file(results.OnToolchain(s.Name, toolchains[0])))
			if err != nil {
				return "", err
			}
			for _, t := range toolchains[1:] {
				other, err := results.Read(file(results.OnToolchain(s.Name, t)))
				if err != nil {
					return "", err
				}
				c, err := results.Compare(first, nil, other, headline)
				if err != nil {
					return "", err
				}
				out += said(s.Name, toolchainVerdict(c.WithNoise(noise.Noise), t, toolchains[0]))
			}
		}
		return out, nil
	})
}

// toolchainVerdict says c, other's results against base's of the same stage, as every verdict's first
// line says it: "go1.27.3 vs go1.26.8: 1.2x slower than go1.26.8 in CPU time: decided, ...".
func toolchainVerdict(c results.Comparison, other, base string) string {
	return other + " vs " + base + ": " + results.FirstLine(c.Verdict(base))
}
