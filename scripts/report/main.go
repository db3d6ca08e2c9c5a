// Command report turns the latest results into the charts and the tables
// of the READMEs; the usage below says how.
package main

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"example.com/userperf/scripts/internal/figures"
	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/profiles"
	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

const usage = `
report: the latest results as charts and as the READMEs' tables, never typed by hand.

  go run ./scripts/report               from the latest complete runs of compare and load, and results/profile
  go run ./scripts/report --profiles    profile every stage first (go run ./scripts/profile)
  go run ./scripts/report --check       list the stale generated blocks and charts: exit 1 if any, 2 if it cannot tell
  go run ./scripts/report block [--file F.md --name N] -- BENCHSTAT_ARGS...
                                        benchstat's tables as generated block N of F.md, or printed

It writes docs/charts/*.svg, README.md's blocks stages, charts, load and mixed (from the latest
compare run that measured ^BenchmarkMixed$ in every stage), and each chapter's benchstat and
profile, then lists the stale figures as --check does. A run that measured fewer stages or
benchmarks than the tables hold is passed over, and it says so.
`

func main() {
	c := harness.New("report", usage)
	withProfiles := c.Flags.Bool("profiles", false, "")
	checkOnly := c.Flags.Bool("check", false, "")
	file := c.Flags.String("file", "", "")
	name := c.Flags.String("name", "", "")
	args := c.Parse()
	if len(args) > 0 && args[0] == "block" {
		if *name == "" && *file != "" || len(args) == 1 {
			c.Usage("usage: go run ./scripts/report block [--file FILE.md --name NAME] -- BENCHSTAT_ARGS...")
		}
		block, err := figures.BenchstatBlock(args[1:])
		if err == nil && *file == "" {
			_, err = fmt.Print(block)
		} else if err == nil {
			err = provenance.UpdateFile(*file, provenance.Block{Name: *name, Content: block})
		}
		c.Fatal(err)
		return
	} else if len(args) > 0 {
		c.Usage("unknown argument %s (--help lists them)", args[0])
	}
	if *withProfiles && !*checkOnly {
		list, err := stages.Shown(c.Root)
		c.Fatal(err)
		for _, s := range list {
			if s.Name != stages.Floor {
				profile := exec.Command("go", "run", "./scripts/profile", s.Name)
				profile.Stderr = os.Stderr // its progress; the tables go to the chapter
				c.Fatal(profile.Run())
			}
		}
	}
	if !*checkOnly {
		c.Fatal(generate(".")) // the root, where Parse moved: the paths it names are short
	}
	ok, err := provenance.Check(os.Stdout, c.Root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		c.Exit(2)
	}
	if *checkOnly && !ok {
		c.Exit(1)
	} else if !*checkOnly {
		fmt.Println("review with: git diff README.md '*/README.md' docs/charts")
	}
}

// wanted are the benchmarks that a compare run must hold for the tables
// and charts: the README's columns and the charts' second result size.
var wanted = []results.Measurement{{Bench: figures.Headline, Unit: "sec/op"}, {Bench: "ListByRole/users=10000/matches=1000", Unit: "sec/op"},
	{Bench: figures.ThroughEcho, Unit: "sec/op"}, {Bench: figures.WriteBench, Unit: "sec/op"}, {Bench: figures.BuildBench, Unit: figures.HeldUnit}}

// generate writes the charts and blocks of the repository at root.
func generate(root string) error {
	list, err := stages.Shown(root)
	if err != nil {
		return err
	}
	byName := map[string]stages.Stage{} // none for results that outlived their stage
	for _, s := range list {
		byName[s.Name] = s
	}
	compare, err := completeRun(root, "compare", list, wanted)
	if err != nil {
		return err
	}
	load, err := completeRun(root, "load", list, nil)
	if err != nil {
		return err
	}
	mixed, err := completeRun(root, "compare", list, mixedWanted())
	if err != nil {
		return err
	}
	var readme []provenance.Block
	if mixed != nil {
		block, err := mixedBlock(filepath.Join(root, "docs", "charts"), mixed)
		if err != nil {
			return err
		}
		readme = append(readme, provenance.Block{Name: "mixed", Content: block})
	}
	if compare != nil {
		var drawn []figures.Chart
		for _, c := range figures.Charts(compare, load) {
			if ok, err := c.Save(filepath.Join(root, "docs", "charts")); err != nil {
				return err
			} else if ok {
				drawn = append(drawn, c)
			}
		}
		readme = append(readme, provenance.Block{Name: "stages", Content: stagesTable(root, byName, compare)},
			provenance.Block{Name: "charts", Content: chartsBlock(drawn, compare, load)})
	}
	if load != nil {
		table, err := os.ReadFile(filepath.Join(filepath.Dir(load[0].Path), "table.md"))
		if err != nil {
			return err
		}
		readme = append(readme, provenance.Block{Name: "load", Content: strings.TrimSpace(string(table)) + "\n\n" + provenance.Line(load[0].Config) + "\n"})
	}
	update(filepath.Join(root, "README.md"), readme...)
	for _, s := range list {
		chapter := chapter(root, s)
		if doc, _ := os.ReadFile(chapter); !strings.Contains(string(doc), "<!-- BEGIN GENERATED: ") {
			continue // the floor, a stage without a chapter, and a learner's notes have nowhere to go
		}
		if i := slices.IndexFunc(compare, func(f *results.File) bool { return f.Name == s.Name }); i >= 0 {
			stat, err := benchstatBlock(compare, i)
			if err != nil {
				return err
			}
			update(chapter, provenance.Block{Name: "benchstat", Content: stat})
		}
		// The CPU table of the profile that scripts/profile saved, if any.
		profile := filepath.Join(root, "results", "profile", s.Name)
		if _, err := os.Stat(filepath.Join(profile, "cpu.pprof")); err == nil {
			var table strings.Builder
			if err := profiles.Write(&table, []string{profile}, []string{"cpu"}, 12, true); err != nil {
				return err
			}
			update(chapter, provenance.Block{Name: "profile", Content: table.String()})
		}
	}
	return nil
}

// mixedWanted are the results that the mixed block needs: every share of
// writes and client count of BenchmarkMixed, which a run measures apart.
func mixedWanted() []results.Measurement {
	var wanted []results.Measurement
	for _, c := range figures.MixedClients {
		for _, w := range figures.MixedWrites {
			wanted = append(wanted, results.Measurement{Bench: figures.MixedBench(w, c), Unit: "sec/op"})
		}
	}
	return wanted
}

// mixedBlock is the table of BenchmarkMixed and its chart, saved in dir,
// with the provenance of their results.
func mixedBlock(dir string, files []*results.File) (string, error) {
	block := figures.MixedTable(files)
	chart := figures.MixedChart(files)
	drawn, err := chart.Save(dir)
	if drawn {
		block += fmt.Sprintf("![%s](docs/charts/%s)\n\n", chart.Title, chart.File)
	}
	return block + provenance.Line(files[0].Config) + "\n", err
}

// chartsBlock shows the charts, with the provenance of their results.
func chartsBlock(all []figures.Chart, compare, load []*results.File) string {
	var b strings.Builder
	for _, c := range all {
		fmt.Fprintf(&b, "![%s](docs/charts/%s)\n\n", c.Title, c.File)
	}
	if load == nil {
		return b.String() + provenance.Line(compare[0].Config) + "\n"
	}
	return b.String() + "Benchmarks: " + provenance.Line(compare[0].Config) + "\n\nHTTP: " + provenance.Line(load[0].Config) + "\n"
}

// completeRun reads the newest run in results/kind (compare's or load's)
// that measured every stage of list and every benchmark of wanted, or
// returns nil if none did: a partial run, as a chapter or a check makes,
// would shrink the tables to its stages. It says what it passed over.
func completeRun(root, kind string, list []stages.Stage, wanted []results.Measurement) ([]*results.File, error) {
	runs, _ := filepath.Glob(filepath.Join(root, "results", kind, "2*")) // the stamps, not latest
	skipped := ""
	for i := len(runs) - 1; i >= 0; i-- {
		files, err := results.ReadDir(runs[i])
		if err != nil {
			return nil, err
		}
		missing := slices.DeleteFunc(stages.Names(list), func(name string) bool {
			return slices.ContainsFunc(files, func(f *results.File) bool { return f.Name == name })
		})
		for _, m := range wanted {
			if !slices.ContainsFunc(files, func(f *results.File) bool { return len(f.Values(m.Bench, m.Unit)) > 0 }) {
				missing = append(missing, "Benchmark"+m.Bench)
			}
		}
		if len(missing) == 0 && skipped != "" {
			fmt.Fprintf(os.Stderr, "report: %s; the figures are from %s, the latest run that measured them all\n", skipped, runs[i])
		}
		if len(missing) == 0 {
			return files, nil
		}
		skipped = cmp.Or(skipped, fmt.Sprintf("%s did not measure %s", runs[i], strings.Join(missing, ", ")))
	}
	fmt.Fprintf(os.Stderr, "report: warning: no run in results/%s measured every stage and benchmark (%s): its figures are left as they are\n",
		kind, cmp.Or(skipped, "there is none"))
	return nil, nil
}

// update replaces blocks in a markdown file; missing markers (a chapter
// being written) are reported, and the other blocks still updated.
func update(path string, blocks ...provenance.Block) {
	if err := provenance.UpdateFile(path, blocks...); err != nil {
		fmt.Fprintf(os.Stderr, "report: warning: %v\n", err)
	}
}

// stagesTable is the README's table, per stage; its caption says what each column is.
func stagesTable(root string, byName map[string]stages.Stage, files []*results.File) string {
	columns := slices.DeleteFunc([]column{
		{"allocs/op", figures.Headline, "allocs/op", figures.Count, ""},
		{"through Echo", figures.ThroughEcho, "sec/op", results.Duration,
			"Through Echo: the median of `Benchmark" + figures.ThroughEcho + "`, the same request through the Echo handler."},
		{"write", figures.WriteBench, "sec/op", results.Duration,
			"Write: the median of `Benchmark" + figures.WriteBench + "`, one Add and one Delete of a user with three roles."},
		{"held/user", figures.BuildBench, figures.HeldUnit, figures.ByteSize,
			"Held/user: the heap the stage holds per user (`" + figures.HeldUnit + "` of `Benchmark" + figures.BuildBench + "`)."},
	}, func(c column) bool {
		return !slices.ContainsFunc(files, func(f *results.File) bool { return len(f.Values(c.bench, c.unit)) > 0 })
	})
	_, unitName := results.Deciding(figures.Headline, files...)
	head := "| stage | change | diff | time/op | CPU/op | spread | speed-up vs previous | speed-up vs " + files[0].Name + " |"
	align := "|---|---|---:|---:|---:|---|---:|---:|"
	notes := ""
	for _, c := range columns {
		head, align, notes = head+" "+c.head+" |", align+"---:|", strings.TrimSpace(notes+" "+c.note)
	}
	rows := []string{head, align}
	// The first stage's second label (compare's A/A), for the floor of the
	// comparisons with it; none in a run made before compare measured it.
	again, _ := results.Read(strings.TrimSuffix(files[0].Path, ".txt") + ".again.txt")
	speedup := func(base, again, f *results.File) string {
		c, err := results.Compare(base, again, f, figures.Headline)
		switch {
		case err != nil:
			return "—"
		case !c.Decided:
			return "~"
		}
		return results.Times(c.Ratio)
	}
	var previous *results.File // the last step
	for i, f := range files {
		s := byName[f.Name]
		row := []string{f.Name, describe(root, s), "—", "—", "—", "—", "—", "—"}
		if chapter(root, s) != "" {
			row[0] = fmt.Sprintf("[%s](%s/README.md)", f.Name, s.Dir)
		}
		// Only a step builds on the one before it; a learner's stage and
		// the floor are compared with the first stage, or with nothing.
		step := stages.IsStep(f.Name)
		if step && previous != nil {
			row[2] = diffSize(root, byName[previous.Name].Dir, s.Dir)
			row[6] = speedup(previous, map[bool]*results.File{true: again}[previous == files[0]], f)
		}
		if t, ok := f.Median(figures.Headline, "sec/op"); ok {
			row[3] = results.Duration(t)
		}
		if t, ok := f.Median(figures.Headline, "cpu-sec/op"); ok {
			row[4], row[5] = results.Duration(t), results.Label(f.Values(figures.Headline, "cpu-sec/op"))
		}
		if i > 0 && f.Name != stages.Floor {
			row[7] = speedup(files[0], again, f)
		}
		if step {
			previous = f
		}
		for _, c := range columns {
			cell := "—"
			if v, ok := f.Median(c.bench, c.unit); ok {
				cell = c.format(v)
			}
			row = append(row, cell)
		}
		rows = append(rows, "| "+strings.Join(row, " | ")+" |")
	}
	return strings.Join(rows, "\n") + fmt.Sprintf("\n\nDiff: the non-test Go files that differ from the previous stage, and the lines "+
		"added plus the lines removed in them (`git diff --no-index --numstat`). "+
		"Median of %d runs of `Benchmark%s`: the lookup and the JSON encoding of the 100 users "+
		"with role admin among 10,000, in process: its wall time (time/op), what a client waits, and its CPU time (CPU/op), "+
		"the work it costs, which holds while other programs take the cores. Spread: how widely the CPU times spread "+
		"(reliable under 5%%, noisy up to 20%%, unstable beyond; MEASURING.md says what to do about each). "+
		"A speed-up is the other stage's "+unitName+" divided by this one's, where benchstat tells them apart and the ratio is beyond "+
		"the run's floor (the widest of their confidence intervals, and for the first stage the distance of its second, A/A, label); "+
		"`~` marks a step that this run could not decide. "+
		"The floor serves bytes encoded in advance: the limit of this path, not a step, so it gets no speed-up; "+
		"a stage that is not one of the steps is compared with the first only. %s\n%s\n",
		len(files[0].Values(figures.Headline, "sec/op")), figures.Headline, notes, provenance.Line(files[0].Config))
}

// column is a column of medians, for the results that have it.
type column struct {
	head, bench, unit string
	format            func(float64) string
	note              string // what it shows, said under the table
}

// chapter is the README.md of s, or "" if it has none, as the floor.
func chapter(root string, s stages.Stage) string {
	readme := filepath.Join(root, filepath.FromSlash(s.Dir), "README.md")
	if _, err := os.Stat(readme); err != nil || s.Dir == "" || s.Name == stages.Floor {
		return ""
	}
	return readme
}

// describe says what a stage changes: its chapter's title ("# Stage 1: an
// index"), or else its package comment ("Command floor is the limit...: ...").
func describe(root string, s stages.Stage) string {
	readme, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(s.Dir), "README.md"))
	if title, _, _ := strings.Cut(string(readme), "\n"); strings.HasPrefix(title, "# ") && strings.Contains(title, ": ") {
		return strings.TrimSpace(title[strings.Index(title, ": ")+2:])
	}
	doc, err := harness.GoOutput("-C", root, "list", "-f", "{{.Doc}}", "./"+s.Dir)
	if _, what, ok := strings.Cut(doc, " is "); ok && err == nil && s.Dir != "" {
		what, _, _ = strings.Cut(strings.TrimSpace(what), ":")
		return strings.TrimSuffix(what, ".")
	}
	return ""
}

// diffSize is the non-test Go code that differs between folders a and b as git
// diff --no-index counts it, "5 files, 157 lines" added plus removed, or "?".
func diffSize(root, a, b string) string {
	// Exit status 1 means "they differ", unless git complains.
	out, err := exec.Command("git", "-C", root, "diff", "--no-index", "--no-renames", "--numstat", "--", a, b).Output()
	if e, ok := err.(*exec.ExitError); err != nil && (!ok || e.ExitCode() != 1 || len(e.Stderr) > 0) || a == "" || b == "" {
		return "?"
	}
	files, lines := 0, 0
	for _, row := range strings.Split(string(out), "\n") { // added, removed, {a => b}/x.go or a/gone.go => /dev/null
		var added, removed int
		name := path.Base(strings.TrimSuffix(row[strings.LastIndex(row, "\t")+1:], " => /dev/null"))
		if _, err := fmt.Sscan(row, &added, &removed); err == nil && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			files, lines = files+1, lines+added+removed
		}
	}
	return fmt.Sprintf("%d files, %d lines", files, lines)
}

// benchstatBlock compares stage i with the stage before it and the first
// (which shows its own figures) in time and allocations.
func benchstatBlock(files []*results.File, i int) (string, error) {
	var b strings.Builder
	bases := []*results.File{nil} // the first on its own
	if i > 0 {
		bases = []*results.File{files[i-1], files[0]}[:min(i, 2)]
	}
	for _, base := range bases {
		args := []string{"-ignore", "pkg", "-filter", ".unit:(sec/op OR cpu-sec/op OR allocs/op)"}
		what := "on its own"
		if base != nil {
			args = append(args, base.Name+"="+base.Path)
			what = "against " + base.Name
		}
		tables, err := figures.Benchstat(append(args, files[i].Name+"="+files[i].Path))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s %s:\n\n%s\n\n", files[i].Name, what, tables)
	}
	return b.String() + provenance.Line(files[i].Config) + "\n", nil // compare measured them together
}
