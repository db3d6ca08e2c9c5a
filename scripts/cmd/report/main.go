// Command report turns the latest results into the charts and the tables of
// the READMEs; scripts/report.sh runs it from the repository's root.
//
//	report          from results/compare/latest, results/load/latest (if any) and the
//	                profiles in results/profile (if any), write docs/charts/*.svg, README.md's
//	                blocks (stages, charts, load) and each chapter's (benchstat, profile)
//	report check    list the blocks and charts that no longer measure the code; exit 1 if any
//	report block [-file F -name N] -- BENCHSTAT_ARGS...
//	                benchstat's tables as a generated block, with their provenance
//
// Text outside the blocks is never touched. Every block and chart ends with
// the provenance line of its results: machine, date, commit and command.
package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

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
	case "":
		err = generate(".")
	default:
		err = fmt.Errorf("unknown subcommand %q: want check, block or none", sub)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(2)
	}
}

// goCommand runs the go command and returns its output: benchstat, and
// cmd/profiles for the profiles' tables. Tests replace it.
var goCommand = func(args ...string) (string, error) {
	out, err := exec.Command("go", args...).Output()
	if e, ok := err.(*exec.ExitError); ok {
		err = fmt.Errorf("go %s: %v: %s", commandLine(args), err, e.Stderr)
	}
	return string(out), err
}

// generate writes the charts and the generated blocks of the repository
// at root from its results.
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
	var drawn []chart
	dir := filepath.Join(root, "docs", "charts")
	for _, c := range charts(compare, load) {
		if ok, err := c.save(dir); err != nil {
			return err
		} else if ok {
			drawn = append(drawn, c)
		}
	}
	readme := []provenance.Block{
		{Name: "stages", Content: stagesTable(root, list, compare)},
		{Name: "charts", Content: chartsBlock(drawn, compare, load)},
	}
	if table, err := os.ReadFile(filepath.Join(loadDir, "table.md")); err == nil && load != nil {
		readme = append(readme, provenance.Block{Name: "load", Content: strings.TrimSpace(string(table)) + "\n\n" + provenance.Line(load[0].Config) + "\n"})
	}
	update(filepath.Join(root, "README.md"), readme...)
	for i, f := range compare {
		chapter := chapter(root, stage(list, f.Name))
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

// update replaces blocks in one markdown file. A block whose markers are
// missing is reported and skipped: a chapter being written may not have
// them yet, and the others still get their figures.
func update(path string, blocks ...provenance.Block) {
	if err := provenance.UpdateFile(path, blocks...); err != nil {
		fmt.Fprintf(os.Stderr, "report: warning: %v\n", err)
	}
}

// benchstatBlock compares stage i of files with the stage before it and
// with the first stage (the first shows its own figures), in the tables a
// chapter discusses: time and allocations.
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

// handBlock is the block subcommand: it runs benchstat with the arguments
// after "--" and puts its tables, the command and the provenance of the
// result files among them into one generated block of a markdown file, or
// prints them, without -file.
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
		label, path := arg[:max(eq, 0)], arg[eq+1:]
		if info, err := os.Stat(path); err != nil || info.IsDir() {
			continue // a flag, or its value
		}
		f, err := results.Read(path)
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
	block := tables + "\n\n" + provenanceOf(files...)
	if *file == "" {
		_, err := fmt.Print(block)
		return err
	}
	return provenance.UpdateFile(*file, provenance.Block{Name: *name, Content: block})
}

// benchstat runs go tool benchstat and returns its tables as a block shows
// them, followed by the command: without the configuration lines above the
// first table, which the block's provenance line says in one line.
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

// provenanceOf is the provenance of figures from files: one line if they
// were measured together, as compare.sh's are, or else one line per file,
// after its name.
func provenanceOf(files ...*results.File) string {
	var each []string
	together := true
	for _, f := range files {
		together = together && provenance.Line(f.Config) == provenance.Line(files[0].Config)
		each = append(each, f.Name+": "+provenance.Line(f.Config))
	}
	if together {
		return provenance.Line(files[0].Config) + "\n"
	}
	return strings.Join(each, "\n\n") + "\n"
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
