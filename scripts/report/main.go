// Command report turns the latest results into the charts and the tables
// of docs/results.md and of the chapters, so that no figure on a page is
// typed by hand, and says which figures are stale.
//
// Usage:
//
//	go run ./scripts/report [--profiles]
//	go run ./scripts/report --check
//	go run ./scripts/report block [--file F.md --name N] [--from COMMAND] -- BENCHSTAT_ARGS...
//	go run ./scripts/report toolchains|growth [--file F.md] [RUN]
//	go run ./scripts/report chapter [STAGE [RUN]]
//	go run ./scripts/report timings [--file F.md] [WALL...]
//	go run ./scripts/report rehearsal [--file F.md]
//
// Without a subcommand it rewrites docs/charts/*.svg, the blocks stages,
// charts, load and mixed of docs/results.md, and each chapter's benchstat
// and profile blocks, from the latest runs of compare, load and profile
// that measured every stage and benchmark, naming each file it rewrote;
// then it does what --check does. A subcommand writes its block into F.md,
// or prints it without --file:
//
//	block       benchstat's tables, as block N; a result file not found as given is
//	            one of the latest run of --from: FILE.txt is results/compare/latest/FILE.txt
//	toolchains  a run of compare --go (RUN, else results/toolchains/latest) as
//	            block toolchains: each stage's CPU time per Go release
//	growth      a run of compare with a million users (RUN, else results/compare/latest) as
//	            block million: how many times each stage's time grew from 1,000 to 1,000,000 users
//	chapter     prints the table of STAGE's chapter, or of every chapter (the stage
//	            against the one before it), from a run of compare that measured both
//	timings     how long commands took, from the wall.txt files they write (WALL, else
//	            results/test/wall.txt and results/compare/latest/wall.txt), as block timings
//	rehearsal   the wall times of check --rehearse, as block rehearsal
//
// The flags are:
//
//	--profiles
//		Profile every stage first (go run ./scripts/profile).
//	--check
//		List the generated blocks and charts whose measured code changed after
//		the commit they record; exit 1 if any is stale, 2 if it cannot tell.
//	--file F.md, --name N
//		The page where a subcommand writes its block, and block's name.
//	--from COMMAND
//		The command (compare, load or serialize) whose latest run block reads
//		its files from (default compare).
//
// # Examples
//
//	go run ./scripts/report
//	go run ./scripts/report chapter stage2-noclone
//	go run ./scripts/report block -- -filter '.name:ListByRole' stage0-linear.txt stage1-index.txt
package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"go/build"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/figures"
	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/profiles"
	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

func main() {
	c := harness.New("report")
	withProfiles := c.Flags.Bool("profiles", false, "")
	checkOnly := c.Flags.Bool("check", false, "")
	file := c.Flags.String("file", "", "")
	name := c.Flags.String("name", "", "")
	from := c.Flags.String("from", "compare", "")
	args := c.Parse() // from here on in the root, so that the paths that report names are short
	if len(args) > 0 {
		c.Fatal(subcommand(c, args[0], args[1:], *file, *name, *from))
		return
	}
	if !*checkOnly {
		list, err := stages.Shown(c.Root)
		for _, s := range list {
			if *withProfiles && s.Name != stages.Floor {
				profile := exec.Command("go", "run", "./scripts/profile", s.Name)
				profile.Stderr = os.Stderr // its progress; the tables go to the chapter
				c.Fatal(profile.Run())
			}
		}
		c.Fatal(err)
		rewritten, err := generate(".")
		for _, path := range rewritten {
			fmt.Println("report: rewrote", filepath.ToSlash(path))
		}
		if len(rewritten) == 0 {
			fmt.Println("report: rewrote no file: every figure was as the latest runs give it")
		}
		c.Fatal(err)
	}
	ok, err := provenance.Check(os.Stdout, c.Root)
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "report:", err)
		c.Exit(2)
	case !*checkOnly:
		fmt.Println("review with: git diff docs README.md")
	case !ok:
		c.Exit(1)
	}
}

// usages are the subcommands' arguments, for a mistake in them.
var usages = map[string]string{
	"block":      "block [--file FILE.md --name NAME] [--from compare] -- BENCHSTAT_ARGS...",
	"toolchains": "toolchains [--file FILE.md] [RUN]",
	"growth":     "growth [--file FILE.md] [RUN]",
	"chapter":    "chapter [STAGE [RUN]]",
}

// subcommand runs the subcommand sub with its arguments args.
func subcommand(c *harness.Cmd, sub string, args []string, file, name, from string) error {
	// run is the run that a subcommand reads: its argument at i, else the latest of kind.
	run := func(i int, kind string) string {
		if len(args) > i {
			return args[i]
		}
		return filepath.Join("results", kind, "latest")
	}
	switch {
	case sub == "toolchains" && len(args) <= 1:
		block, err := figures.ToolchainsBlock(run(0, "toolchains"))
		if err != nil {
			return err
		}
		return put(".", file, "toolchains", block)
	case sub == "growth" && len(args) <= 1:
		return growthBlock(".", run(0, "compare"), file)
	case sub == "timings":
		return timingsBlock(".", file, args)
	case sub == "rehearsal":
		return rehearsalBlock(".", file, filepath.Join("results", "rehearsal"))
	case sub == "chapter" && len(args) <= 2:
		tables, err := chapterTables(run(1, "compare"), args[:min(1, len(args))]...)
		if err == nil {
			fmt.Println(tables)
		}
		return err
	case sub == "block" && len(args) > 0 && (name != "" || file == ""):
		return writeBlock(".", file, name, from, args)
	case usages[sub] != "":
		c.Usage("usage: go run ./scripts/report %s", usages[sub])
	}
	c.Usage("unknown argument %s (--help lists them)", sub)
	return nil
}

// itself, the command that writes the blocks, is named under each.
const itself = "go run ./scripts/report"

// generate writes the charts and blocks of the repository at root, and returns the files of docs/ it rewrote.
func generate(root string) ([]string, error) {
	before := docs(root)
	err := writeAll(root)
	after := docs(root)
	return slices.DeleteFunc(slices.Sorted(maps.Keys(after)), func(path string) bool { return bytes.Equal(before[path], after[path]) }), err
}

// docs are the contents of the pages and charts of docs/ at root, by path.
func docs(root string) map[string][]byte {
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md")) // patterns without errors
	charts, _ := filepath.Glob(filepath.Join(root, "docs", "charts", "*.svg"))
	contents := map[string][]byte{}
	for _, path := range append(pages, charts...) {
		contents[path], _ = os.ReadFile(path)
	}
	return contents
}

// writeAll writes docs/results.md's blocks and charts, which answer every chapter's questions, from the
// latest complete runs, and each chapter's.
func writeAll(root string) error {
	list, err := stages.Shown(root)
	if err != nil {
		return err
	}
	compare, err1 := completeRun(root, "compare", list, wanted)
	load, err2 := completeRun(root, "load", list, nil)
	mixed, err3 := completeRun(root, "compare", list, figures.MixedWanted())
	errs := []error{err1, err2, err3}
	var page []provenance.Block
	// add adds the results page's block name: text, the charts that had results to draw, the provenance of files.
	add := func(name, text string, files []*results.File, charts ...figures.Chart) {
		for _, c := range charts {
			drawn, err := c.Save(filepath.Join(root, "docs", "charts"))
			if errs = append(errs, err); drawn {
				text += fmt.Sprintf("![%s](charts/%s)\n\n", c.Title, c.File) // beside the page
			}
		}
		page = append(page, provenance.Block{Name: name, Content: text + provenance.Line(files[0].Config, itself) + "\n"})
	}
	if mixed != nil {
		add("mixed", figures.MixedTable(mixed), mixed, figures.MixedChart(mixed))
	}
	if compare != nil {
		page = append(page, provenance.Block{Name: "stages", Content: stagesTable(root, list, compare)})
		add("charts", "", compare, figures.Charts(compare)...)
	}
	if load != nil {
		table, err := loadBlock(load)
		errs = append(errs, err)
		add("load", table, load, figures.LoadChart(load))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	update(filepath.Join(root, "docs", "results.md"), page...)
	for _, s := range list {
		chapter, _ := chapter(root, s)
		if doc, _ := os.ReadFile(chapter); !strings.Contains(string(doc), "<!-- BEGIN GENERATED: ") {
			continue // the floor, a stage without a chapter, and a learner's notes have nowhere to go
		}
		if slices.ContainsFunc(compare, func(f *results.File) bool { return f.Name == s.Name }) {
			stat, err := chapterBlock(compare, s.Name)
			if err != nil {
				return err
			}
			update(chapter, provenance.Block{Name: "benchstat", Content: stat})
		}
		profile := filepath.Join(root, "results", "profile", s.Name) // what scripts/profile saved, if anything
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

// completeRun reads the newest run in results/kind that measured every stage of list and benchmark of
// wanted, or nil: a partial run, as a chapter or a check makes, would shrink the tables.
func completeRun(root, kind string, list []stages.Folder, wanted []results.Measurement) ([]*results.File, error) {
	runs, _ := filepath.Glob(filepath.Join(root, "results", kind, "2*")) // the stamps, not latest
	skipped := ""
	for _, run := range slices.Backward(runs) {
		files, err := results.ReadDir(run)
		if err != nil {
			return nil, err
		}
		missing := slices.DeleteFunc(stages.Names(list), func(name string) bool {
			return slices.ContainsFunc(files, func(f *results.File) bool { return f.Name == name })
		})
		for _, m := range wanted {
			if !slices.ContainsFunc(files, func(f *results.File) bool { return len(f.Values(m.Bench, m.Unit)) > 0 }) {
				missing = append(missing, "Benchmark"+m.Bench+" in "+m.Unit)
			}
		}
		if len(missing) == 0 {
			if skipped != "" {
				fmt.Fprintf(os.Stderr, "report: %s; the figures are from %s, the latest run that measured them all\n", skipped, run)
			}
			return files, nil
		}
		skipped = cmp.Or(skipped, fmt.Sprintf("%s did not measure %s", run, strings.Join(missing, ", ")))
	}
	fmt.Fprintf(os.Stderr, "report: warning: no run in results/%s measured every stage and benchmark (%s): its figures are left as they are\n",
		kind, cmp.Or(skipped, "there is none"))
	return nil, nil
}

// loadBlock is the load block's text: the tables of a load run, made again from its files, so that a run
// of fewer rounds than a confidence interval needs shows its medians alone, and the caption of its table.md.
func loadBlock(load []*results.File) (string, error) {
	table, err := os.ReadFile(filepath.Join(filepath.Dir(load[0].Path), "table.md"))
	caption := ""
	if i := strings.LastIndex(string(table), figures.LoadCaption); i >= 0 {
		caption = strings.TrimSpace(string(table[i:])) + "\n\n"
	}
	tables, err2 := figures.LoadTables(load, false)
	return tables + "\n\n" + caption, errors.Join(err, err2)
}

// writeBlock writes benchstat's tables of args as block name of file, under root, or prints them if
// file is "". A result file not there as given is one of the latest run of from, and the block's
// command names each file by its name in its run: it makes the block again once such a run is made.
func writeBlock(root, file, name, from string, args []string) error {
	latest := filepath.Join(root, "results", from, "latest")
	args, shown := slices.Clone(args), slices.Clone(args) // shown: as the block's command gives them
	for i, arg := range args {
		eq := strings.Index(arg, "=")
		label, input := arg[:eq+1], arg[eq+1:]
		if strings.HasPrefix(arg, "-") || !strings.HasSuffix(input, ".txt") {
			shown[i] = harness.Quote(arg)
			continue // a flag, or its value
		}
		if _, err := os.Stat(input); err != nil {
			input = filepath.Join(latest, input)
			args[i] = label + input
		} else if run := filepath.Dir(input); filepath.Base(filepath.Dir(filepath.Dir(run))) == "results" {
			from = filepath.Base(filepath.Dir(run)) // a file of a run given by its path: results/load/<stamp>/x.txt
		}
		shown[i] = harness.Quote(label + filepath.Base(input))
	}
	var then []string // the command that makes the block again
	if file != "" {
		more := []string{"--name", name}
		if from != "compare" {
			more = append(more, "--from", from)
		}
		then = append(then, by("block", file, append(more, "--")...)+" "+strings.Join(shown, " "))
	}
	content, err := figures.BenchstatBlock(args, then...)
	if err != nil {
		return err
	}
	return put(root, file, name, content)
}

// update replaces blocks in a markdown file, and warns of missing markers (a chapter being written).
func update(path string, blocks ...provenance.Block) {
	if err := provenance.UpdateFile(path, blocks...); err != nil {
		fmt.Fprintf(os.Stderr, "report: warning: %v\n", err)
	}
}

// put writes content as block name of file, under root, or prints it if file is "".
func put(root, file, name, content string) error {
	if file == "" {
		_, err := fmt.Print(content)
		return err
	}
	return provenance.UpdateFile(filepath.Join(root, file), provenance.Block{Name: name, Content: content})
}

// by is the command that writes a block again: report's subcommand sub, its --file, then more words.
func by(sub, file string, more ...string) string {
	words := []string{itself, sub}
	if file != "" {
		words = append(words, "--file", filepath.ToSlash(file))
	}
	return strings.Join(append(words, more...), " ")
}

// columns are the stages table's medians after its speed-ups: allocs/op, through Echo, write, held/user.
var columns = []struct {
	results.Measurement
	format func(float64) string
}{
	{results.Measurement{Bench: results.Headline, Unit: "allocs/op"}, figures.Count},
	{results.Measurement{Bench: figures.ThroughEcho, Unit: "sec/op"}, results.Duration},
	{results.Measurement{Bench: figures.WriteBench, Unit: "sec/op"}, results.Duration},
	{results.Measurement{Bench: figures.BuildBench, Unit: figures.HeldUnit}, figures.ByteSize},
}

// wanted are the benchmarks that a compare run must hold: the stages table's columns, the charts' second size.
var wanted = []results.Measurement{{Bench: results.Headline, Unit: "sec/op"}, {Bench: results.Matches1000, Unit: "sec/op"},
	columns[0].Measurement, columns[1].Measurement, columns[2].Measurement, columns[3].Measurement}

// stagesTable is the results page's tables, a row per stage (its time and speed-ups; then its
// allocations, the request through Echo, a write and the heap it holds), and their caption.
func stagesTable(root string, list []stages.Folder, files []*results.File) string {
	byName := map[string]stages.Folder{} // none for results that outlived their stage
	for _, s := range list {
		byName[s.Name] = s
	}
	speed := []string{figures.Row("stage", "change", "diff", "time/op", "CPU/op", "spread", "speed-up vs previous", "speed-up vs "+files[0].Name),
		"|---|---|---:|---:|---:|---|---:|---:|"}
	var costs [][]string
	var previous *results.File // the last step
	for i, f := range files {
		s, cpu := byName[f.Name], f.Values(results.Headline, "cpu-sec/op")
		page, change := chapter(root, s)
		row := []string{f.Name, change, "—", figures.Cell(f, results.Headline, "sec/op", results.Duration),
			figures.Cell(f, results.Headline, "cpu-sec/op", results.Duration), "—", "—", "—"}
		if page != "" {
			row[0] = fmt.Sprintf("[%s](%s)", f.Name, filepath.Base(page)) // beside the results page
		}
		if len(cpu) > 0 {
			row[5] = results.Spread(cpu)
		}
		// Only a step builds on the one before it; the others are compared with the first, or with nothing.
		if stages.IsStep(f.Name) {
			if previous != nil {
				row[2], row[6] = diffSize(root, byName[previous.Name].Dir, s.Dir), speedup(files[0], previous, f)
			}
			previous = f
		}
		if i > 0 && f.Name != stages.Floor {
			row[7] = speedup(files[0], files[0], f)
		}
		cost := []string{row[0]}
		for _, c := range columns {
			cost = append(cost, figures.Cell(f, c.Bench, c.Unit, c.format))
		}
		speed, costs = append(speed, figures.Row(row...)), append(costs, cost)
		if bare := figures.Cell(f, bareEcho, "sec/op", results.Duration); f.Name == stages.Floor && bare != "—" {
			costs = append(costs, []string{"bare Echo: a plain Echo handler, one route, the same bytes, no limits", "—", bare, "—", "—"})
		}
	}
	_, unitName := results.Deciding(results.Headline, files...)
	return strings.Join(speed, "\n") + "\n\n" + figures.Table([]string{"stage", "allocs/op", "through Echo", "write", "held/user"}, costs) +
		fmt.Sprintf("\n\nDiff: the non-test Go files that differ from the previous stage, "+
			"and their lines added plus removed (`git diff --no-index --numstat`). Median of %d runs of `Benchmark%s` (the "+
			"lookup and the JSON encoding of the 100 users with role admin among 10,000, in process): time/op is the wall time "+
			"a client waits, CPU/op the work it costs, which holds while other programs take the cores; spread, how widely the "+
			"CPU times spread (reliable under %.0f%%, noisy up to %.0f%%, unstable beyond; [measuring.md](measuring.md) says what to do about each). "+
			"A speed-up is the median of the other stage's %s over this one's, where its 95%% confidence interval leaves out 1x "+
			"and the run's noise band, if its A/A pair (the first stage measured twice) came out apart beyond that pair's own CI; `~`: a step this run "+
			"could not decide. The floor, bytes encoded in advance, is the limit of this path and not a step: no speed-up; a "+
			"stage that is no step is compared with the first only. Through Echo, write, held/user: the medians of `Benchmark%s` "+
			"(the same request through the Echo handler; bare Echo, the floor's bytes through a plain Echo handler), `Benchmark%s` "+
			"(one Add and one Delete of a user with three roles) and `%s` of `Benchmark%s` (the heap the stage holds per user).\n%s\n",
			len(files[0].Values(results.Headline, "sec/op")), results.Headline, 100*results.Reliable, 100*results.Noisy, unitName, figures.ThroughEcho,
			figures.WriteBench, figures.HeldUnit, figures.BuildBench, provenance.Line(files[0].Config, itself))
}

// bareEcho is the floor's pre-built bytes through a plain Echo handler, with no API layer (common/bench/bare.go).
const bareEcho = "Bare"

// speedup is how many times faster f is than base, held against the run's noise band; "~" where it cannot tell, or "—".
func speedup(first, base, f *results.File) string {
	c, err := figures.InRun(first, base, f, results.Headline)
	switch {
	case err != nil:
		return "—"
	case !c.Decided:
		return "~"
	}
	return results.Times(c.Ratio)
}

// chapter is the chapter of s, docs/<name>.md, or "" for none, and what s changes, as the chapter's
// title ("# Stage 1: an index") or else the package comment ("Command floor is the limit...: ...") says.
func chapter(root string, s stages.Folder) (page, change string) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", s.Name+".md"))
	if err == nil && s.Name != "" && s.Name != stages.Floor {
		page = filepath.Join(root, "docs", s.Name+".md")
	}
	title, _, _ := strings.Cut(string(doc), "\n")
	if _, what, ok := strings.Cut(title, ": "); ok && strings.HasPrefix(title, "# ") && page != "" {
		return page, strings.TrimSpace(what)
	}
	pkg, err := build.ImportDir(filepath.Join(root, filepath.FromSlash(s.Dir)), 0)
	if _, what, ok := strings.Cut(pkg.Doc, " is "); ok && err == nil {
		what, _, _ = strings.Cut(what, ":")
		return page, strings.TrimSuffix(what, ".")
	}
	return page, ""
}

// diffSize is the non-test Go code that differs between folders a and b, "5 files, 157 lines" added plus removed, or "?".
func diffSize(root, a, b string) string {
	// Exit status 1 means "they differ", unless git complains.
	out, err := exec.Command("git", "-C", root, "diff", "--no-index", "--no-renames", "--numstat", "--", a, b).Output()
	if e, ok := err.(*exec.ExitError); err != nil && (!ok || e.ExitCode() != 1 || len(e.Stderr) > 0) || a == "" || b == "" {
		return "?"
	}
	files, lines := 0, 0
	for _, row := range strings.Split(string(out), "\n") { // added, removed, {a => b}/x.go or a/gone.go => /dev/null
		var added, removed int
		name := strings.TrimSuffix(row, " => /dev/null")
		if _, err := fmt.Sscan(row, &added, &removed); err == nil && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			files, lines = files+1, lines+added+removed
		}
	}
	return fmt.Sprintf("%d files, %d lines", files, lines)
}

// chapterBlock is the benchstat block of stage's chapter from the compare run of files: the stage
// against the step before it (the first step on its own), in time and allocations, then its verdicts
// at the two rows that the chapters ask about, held against the run's noise band as compare's are.
// The comparison with the first stage is the results page's.
func chapterBlock(files []*results.File, stage string) (string, error) {
	shown := slices.DeleteFunc(slices.Clone(files), func(f *results.File) bool { return !stages.IsStep(f.Name) && f.Name != stage })
	i := slices.IndexFunc(shown, func(f *results.File) bool { return f.Name == stage })
	if i < 0 {
		return "", fmt.Errorf("%s has no results of %s (it has %s)", filepath.Dir(files[0].Path), stage, strings.Join(names(files), ", "))
	}
	f, args, what, verdicts := shown[i], []string{"-ignore", "pkg", "-filter", ".unit:(sec/op OR cpu-sec/op OR allocs/op)"}, "on its own", ""
	if i > 0 {
		previous := shown[i-1]
		args, what = append(args, previous.Name+"="+previous.Path), "against "+previous.Name
		for _, bench := range []string{results.Headline, results.Matches1000} {
			if c, err := figures.InRun(files[0], previous, f, bench); err == nil { // else a run without that row
				verdicts += fmt.Sprintf("- `%s`: %s %s\n", bench, f.Name, strings.ReplaceAll(c.Verdict(previous.Name), "\n  ", "\n  - "))
			}
		}
	}
	if verdicts != "" {
		verdicts = "Verdicts against the run's noise band ([measuring.md](measuring.md#the-aa-pair-measure-one-thing-twice) gives the rule):\n\n" +
			verdicts + "\n"
	}
	tables, err := figures.Benchstat(append(args, f.Name+"="+f.Path))
	if err != nil {
		return "", err
	}
	// compare measured them together
	return fmt.Sprintf("%s %s:\n\n%s\n\n%s%s\n", f.Name, what, tables, verdicts, provenance.Line(f.Config, itself)), nil
}

// names are the stages of files.
func names(files []*results.File) (names []string) {
	for _, f := range files {
		names = append(names, f.Name)
	}
	return names
}

// chapterTables are the benchstat blocks of the chapters of stages, or of every step, from the compare run in dir.
func chapterTables(dir string, stages ...string) (string, error) {
	files, err := results.ReadDir(dir)
	if err != nil {
		return "", err
	}
	if len(stages) == 0 {
		stages = names(figures.Steps(files))
	}
	var tables []string
	for _, stage := range stages {
		table, err := chapterBlock(files, stage)
		if err != nil {
			return "", err
		}
		tables = append(tables, table)
	}
	return strings.Join(tables, "\n"), nil
}

// growthBlock writes the million block of file, under root, or prints it if file is "": from the
// compare run in dir, how many times each stage's time grew from 1,000 to 1,000,000 users, at most.
func growthBlock(root, dir, file string) error {
	files, err := results.ReadDir(dir)
	if err != nil {
		return err
	}
	return put(root, file, "million", figures.GrowthTable(files, 1000, 1000000)+"\n"+provenance.Line(files[0].Config, by("growth", file))+"\n")
}

// timings are the wall-time files of the commands whose times the pages give.
var timings = []string{filepath.Join("results", "test", results.WallFile), filepath.Join("results", "compare", "latest", results.WallFile)}

// timingsBlock writes block timings of file, under root, or prints it if file is "": how long the
// command of each wall file (else of timings') took, the last time it ran to the end, with the provenance of each.
func timingsBlock(root, file string, walls []string) error {
	more := walls // the block's command names the files, unless they are timings'
	if len(walls) == 0 || slices.Equal(walls, timings) {
		walls, more = timings, nil
	}
	var rows [][]string
	var lines []string
	for _, path := range walls {
		wall, f, err := results.ReadWall(filepath.Join(root, path))
		if errors.Is(err, os.ErrNotExist) {
			continue // a command not yet run here
		} else if err != nil {
			return err
		}
		rows = append(rows, []string{"`" + f.Config["command"] + "`", wall.Round(time.Second).String()})
		lines = append(lines, provenance.Line(f.Config, by("timings", file, more...)))
	}
	if len(lines) == 0 {
		return fmt.Errorf("no wall time in %s: run the commands first", strings.Join(walls, " or "))
	}
	return put(root, file, "timings", figures.Table([]string{"command", "wall time"}, rows)+"\n\n"+strings.Join(lines, "\n\n")+"\n")
}

// rehearsalBlock writes block rehearsal of file, under root, or prints it if file is "": the wall times
// that check --rehearse kept in dir, of the preparation and of each exercise's check, alone and three at once.
func rehearsalBlock(root, file, dir string) error {
	var config map[string]string
	wall := func(name string) (string, error) {
		d, f, err := results.ReadWall(filepath.Join(root, dir, name+".txt"))
		if err != nil {
			return "", fmt.Errorf("%w: run go run ./scripts/check --rehearse first", err)
		}
		if config == nil {
			config = f.Config
		}
		return d.Round(time.Second).String(), nil
	}
	prepared, err := wall("prepare")
	if err != nil {
		return err
	}
	rows := []string{"| `go run ./scripts/...` | alone | three at once (the slowest) |", "|---|---:|---:|",
		fmt.Sprintf("| `check --prepare` | %s | |", prepared)}
	for n := 1; n <= 5; n++ {
		alone, err := wall(fmt.Sprintf("ex%d-alone", n))
		if errors.Is(err, os.ErrNotExist) {
			continue // check --rehearse N rehearses some exercises only
		}
		together, err2 := wall(fmt.Sprintf("ex%d-together", n))
		if err = cmp.Or(err, err2); err != nil {
			return err
		}
		rows = append(rows, fmt.Sprintf("| `check ex%d` | %s | %s |", n, alone, together))
	}
	return put(root, file, "rehearsal", strings.Join(rows, "\n")+"\n\n"+provenance.Line(config, by("rehearsal", file))+"\n")
}
