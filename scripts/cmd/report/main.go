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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	charts, dir := charts(compare, load), filepath.Join(root, "docs", "charts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range charts {
		if err := c.save(dir); err != nil {
			return err
		}
	}
	readme := []provenance.Block{
		{Name: "stages", Content: stagesTable(root, list, compare)},
		{Name: "charts", Content: chartsBlock(charts, compare, load)},
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

// update replaces blocks in one markdown file and says so. A block whose
// markers are missing is reported and skipped: a chapter being written may
// not have them yet, and the others still get their figures.
func update(path string, blocks ...provenance.Block) {
	for _, b := range blocks {
		fmt.Printf("updated %s, block %s\n", path, b.Name)
	}
	if err := provenance.UpdateFile(path, blocks...); err != nil {
		fmt.Fprintf(os.Stderr, "report: warning: %v\n", err)
	}
}
