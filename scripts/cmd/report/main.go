// Command report turns the latest results into the charts and the tables of
// the READMEs; scripts/report.sh runs it from the repository's root.
//
//	report          from results/compare/latest, results/load/latest (if any) and the
//	                profiles in results/profile (if any), write docs/charts/*.svg, README.md's
//	                blocks (stages, charts, load) and each chapter's (benchstat, profile)
//	report check    list the blocks and charts that no longer measure the code; exit 1 if any
//	report block [-file F -name N] -- BENCHSTAT_ARGS...
//	                benchstat's tables as a generated block, with their provenance
//	report room FILE...
//	                the workshop room's table and chart (results/room) of scripts/handin.sh's files
//
// Text outside the blocks is never touched. Every block and chart ends with
// the provenance line of its results: machine, date, commit and command.
package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"

	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

func main() {
	var err error
	switch sub := append(os.Args[1:], "")[0]; sub {
	case "check":
		var ok bool
		if ok, err = provenance.Check(os.Stdout, "."); err == nil && !ok {
			os.Exit(1)
		}
	case "block":
		err = handBlock(os.Args[2:])
	case "room":
		err = room(filepath.Join("results", "room"), os.Args[2:])
	case "":
		err = generate(".")
	default:
		err = fmt.Errorf("unknown subcommand %q: want check, block, room or none", sub)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(2)
	}
}

// goCommand runs go (benchstat, cmd/profiles) and returns its output; tests replace it.
var goCommand = func(args ...string) (string, error) {
	out, err := exec.Command("go", args...).Output()
	if e, ok := err.(*exec.ExitError); ok {
		err = fmt.Errorf("go %s: %v: %s", commandLine(args), err, e.Stderr)
	}
	return string(out), err
}

// generate writes the charts and blocks of the repository at root.
func generate(root string) error {
	compare, err := results.ReadDir(filepath.Join(root, "results", "compare", "latest"))
	if err != nil {
		return err
	}
	loadDir := filepath.Join(root, "results", "load", "latest")
	load, err := results.ReadDir(loadDir)
	if err != nil { // load.sh not run, or interrupted: the rest still gets its figures
		fmt.Fprintf(os.Stderr, "report: warning: no load table or chart: %v\n", err)
	}
	list, err := stages.Shown(root)
	if err != nil {
		return err
	}
	byName := map[string]stages.Stage{} // none for results that outlived their stage
	for _, s := range list {
		byName[s.Name] = s
	}
	var drawn []chart
	for _, c := range charts(compare, load) {
		if ok, err := c.save(filepath.Join(root, "docs", "charts")); err != nil {
			return err
		} else if ok {
			drawn = append(drawn, c)
		}
	}
	readme := []provenance.Block{
		{Name: "stages", Content: stagesTable(root, byName, compare)},
		{Name: "charts", Content: chartsBlock(drawn, compare, load)},
	}
	if table, err := os.ReadFile(filepath.Join(loadDir, "table.md")); err == nil && load != nil {
		readme = append(readme, provenance.Block{Name: "load", Content: strings.TrimSpace(string(table)) + "\n\n" + provenance.Line(load[0].Config) + "\n"})
	}
	update(filepath.Join(root, "README.md"), readme...)
	for i, f := range compare {
		chapter := chapter(root, byName[f.Name])
		if doc, _ := os.ReadFile(chapter); !strings.Contains(string(doc), "<!-- BEGIN GENERATED: ") {
			continue // the floor, a stage without a chapter, and a learner's notes have nowhere to go
		}
		stat, err := benchstatBlock(compare, i)
		if err != nil {
			return err
		}
		update(chapter, provenance.Block{Name: "benchstat", Content: stat})
		// The CPU table of the profile that profile.sh saved, if any.
		profile := filepath.Join(root, "results", "profile", f.Name)
		if _, err := os.Stat(filepath.Join(profile, "cpu.pprof")); err == nil {
			table, err := goCommand("run", "./scripts/cmd/profiles", "top", "-markdown", "-tables", "cpu", profile)
			if err != nil {
				return err
			}
			update(chapter, provenance.Block{Name: "profile", Content: table})
		}
	}
	return nil
}

// update replaces blocks in a markdown file; missing markers (a chapter
// being written) are reported, and the other blocks still updated.
func update(path string, blocks ...provenance.Block) {
	if err := provenance.UpdateFile(path, blocks...); err != nil {
		fmt.Fprintf(os.Stderr, "report: warning: %v\n", err)
	}
}

// The README table's benchmarks: the case study's main request, the same
// through Echo (where the floor compares), a write, and the heap per user.
const (
	headline    = "ListByRole/users=10000/matches=100"
	throughEcho = "ServeHTTP/users=10000/matches=100"
	writeBench  = "Write/users=10000/roles=3" // one Add and one Delete
	buildBench  = "Build/users=10000"
	heldUnit    = "held-B/user"
)

// stagesTable is the README's table, per stage; its caption says what each column is.
func stagesTable(root string, byName map[string]stages.Stage, files []*results.File) string {
	columns := slices.DeleteFunc([]column{
		{"allocs/op", headline, "allocs/op", count, ""},
		{"through Echo", throughEcho, "sec/op", results.Duration,
			"Through Echo: the median of `Benchmark" + throughEcho + "`, the same request through the Echo handler."},
		{"write", writeBench, "sec/op", results.Duration,
			"Write: the median of `Benchmark" + writeBench + "`, one Add and one Delete of a user with three roles."},
		{"held/user", buildBench, heldUnit, byteSize,
			"Held/user: the heap the stage holds per user (`" + heldUnit + "` of `Benchmark" + buildBench + "`)."},
	}, func(c column) bool {
		return !slices.ContainsFunc(files, func(f *results.File) bool { return len(f.Values(c.bench, c.unit)) > 0 })
	})
	head, align := "| stage | change | diff | time/op | speed-up vs previous | speed-up vs "+files[0].Name+" |", "|---|---|---:|---:|---:|---:|"
	notes := ""
	for _, c := range columns {
		head, align, notes = head+" "+c.head+" |", align+"---:|", strings.TrimSpace(notes+" "+c.note)
	}
	rows := []string{head, align}
	first, _ := files[0].Median(headline, "sec/op")
	var previous *results.File // the last step
	for i, f := range files {
		s := byName[f.Name]
		row := []string{f.Name, describe(root, s), "—", "—", "—", "—"}
		if chapter(root, s) != "" {
			row[0] = fmt.Sprintf("[%s](%s/README.md)", f.Name, s.Dir)
		}
		// Only a step builds on the one before it; a learner's stage and
		// the floor are compared with the first stage, or with nothing.
		step := stages.IsStep(f.Name)
		t, _ := f.Median(headline, "sec/op")
		if step && previous != nil {
			row[2] = diffSize(root, byName[previous.Name].Dir, s.Dir)
			if p, _ := previous.Median(headline, "sec/op"); p > 0 && t > 0 {
				row[4] = speedup(p / t)
			}
		}
		if t > 0 {
			row[3] = results.Duration(t)
			if i > 0 && first > 0 && f.Name != stages.Floor {
				row[5] = speedup(first / t)
			}
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
		"with role admin among 10,000, in process. A speed-up is the other stage's time divided by this one's. "+
		"The floor serves bytes encoded in advance: the limit of this path, not a step, so it gets no speed-up; "+
		"a stage that is not one of the steps is compared with the first only. %s\n%s\n",
		len(files[0].Values(headline, "sec/op")), headline, notes, provenance.Line(files[0].Config))
}

// column is a column of medians, for the results that have it.
type column struct {
	head, bench, unit string
	format            func(float64) string
	note              string // what it shows, said under the table
}

func count(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

// byteSize formats a byte count as benchstat does: 812.0B, 1.465KiB.
func byteSize(b float64) string { return benchunit.Scale(b, benchunit.Binary) + "B" }

// speedup formats a ratio: 0.25x (four times slower), 4.7x, 16x, 3200x.
func speedup(r float64) string {
	return strconv.FormatFloat(r, 'f', min(2, max(0, 1-int(math.Floor(math.Log10(r))))), 64) + "x"
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
	list := exec.Command("go", "list", "-f", "{{.Doc}}", "./"+s.Dir)
	list.Dir = root
	doc, err := list.Output()
	if _, what, ok := strings.Cut(string(doc), " is "); ok && err == nil && s.Dir != "" {
		what, _, _ = strings.Cut(strings.TrimSpace(what), ":")
		return strings.TrimSuffix(what, ".")
	}
	return ""
}

// diffSize is the non-test Go code that differs between folders a and b as git
// diff --no-index counts it, "5 files, 157 lines" added plus removed, or "?".
func diffSize(root, a, b string) string {
	diff := exec.Command("git", "diff", "--no-index", "--no-renames", "--numstat", "--", a, b)
	diff.Dir = root
	out, err := diff.Output() // exit status 1 means "they differ", unless git complains
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
		args := []string{"-ignore", "pkg", "-filter", ".unit:(sec/op OR allocs/op)"}
		what := "on its own"
		if base != nil {
			args = append(args, base.Name+"="+base.Path)
			what = "against " + base.Name
		}
		tables, err := benchstat(append(args, files[i].Name+"="+files[i].Path))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s %s:\n\n%s\n\n", files[i].Name, what, tables)
	}
	return b.String() + provenance.Line(files[i].Config) + "\n", nil // compare.sh measured them together
}

// handBlock is the block subcommand: benchstat's tables of the arguments after
// "--", with the command and the result files' provenance, into -file or printed.
func handBlock(args []string) error {
	flags := flag.NewFlagSet("block", flag.ContinueOnError)
	file := flags.String("file", "", "the markdown file that has the block's markers (none: print the block)")
	name := flags.String("name", "", "the block's name, as in <!-- BEGIN GENERATED: name -->")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *name == "" && *file != "" || flags.NArg() == 0 {
		return errors.New("usage: report block [-file FILE.md -name NAME] -- BENCHSTAT_ARGS...")
	}
	// The inputs are the arguments that name files, as path or label=path.
	var files []*results.File
	for _, arg := range flags.Args() {
		eq := strings.Index(arg, "=")
		label, input := arg[:max(eq, 0)], arg[eq+1:]
		if info, err := os.Stat(input); err != nil || info.IsDir() {
			continue // a flag, or its value
		}
		f, err := results.Read(input)
		if err != nil {
			return err
		}
		f.Name = cmp.Or(label, f.Name)
		files = append(files, f)
	}
	if len(files) == 0 {
		return fmt.Errorf("no result file among the benchstat arguments %q", flags.Args())
	}
	tables, err := benchstat(flags.Args())
	if err != nil {
		return err
	}
	// One provenance line if the files were measured together, or else one
	// per file, after its name.
	var each []string
	for _, f := range files {
		each = append(each, f.Name+": "+provenance.Line(f.Config))
	}
	block := tables + "\n\n" + strings.Join(each, "\n\n") + "\n"
	if slices.IndexFunc(files, func(f *results.File) bool { return provenance.Line(f.Config) != provenance.Line(files[0].Config) }) < 0 {
		block = tables + "\n\n" + provenance.Line(files[0].Config) + "\n"
	}
	if *file == "" {
		_, err := fmt.Print(block)
		return err
	}
	return provenance.UpdateFile(*file, provenance.Block{Name: *name, Content: block})
}

// benchstat returns benchstat's tables, without the configuration lines
// that a provenance line says, and the command.
func benchstat(args []string) (string, error) {
	out, err := goCommand(append([]string{"tool", "benchstat"}, args...)...)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimRight(out, "\n "), "\n")
	lines = lines[max(0, slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "│") })):]
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return fmt.Sprintf("```\n%s\n```\n\n`go tool benchstat %s`", strings.Join(lines, "\n"), commandLine(args)), nil
}

// plainWord is an argument that a shell takes as it is.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./=:,+@%-]+$`)

// commandLine is args as a command line to paste into a shell.
func commandLine(args []string) string {
	quoted := slices.Clone(args)
	for i, a := range quoted {
		if !plainWord.MatchString(a) {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}
