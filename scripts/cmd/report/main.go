// Command report turns the latest results into the charts and the tables of
// the READMEs; scripts/report.sh runs it.
//
//	report [flags]                  write the charts and the generated blocks
//	report check                    list the blocks and charts that no longer measure the code
//	report block [-file F -name N] -- BENCHSTAT_ARGS...
//	                                benchstat's tables as a generated block, with their provenance
//
// Without a subcommand it reads
//
//	results/compare/latest/<stage>.txt   compare.sh's benchmarks (required)
//	results/load/latest/<stage>.txt      load.sh's HTTP tests, and its table.md (if present)
//	results/profile/<stage>/top.md       the CPU top table that report.sh made from profile.sh's profiles
//
// and writes docs/charts/*.svg and the generated blocks of README.md (stages,
// charts, load) and of every stage's README.md (benchstat, profile). Text
// outside the blocks is never touched. Every block and chart ends with the
// provenance line of its results: machine, date, commit and command.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

func main() {
	var err error
	sub := ""
	if len(os.Args) > 1 {
		sub = os.Args[1]
	}
	switch sub {
	case "check":
		var ok bool
		if ok, err = check(os.Stdout, "."); err == nil && !ok {
			os.Exit(1)
		}
	case "block":
		err = handBlock(os.Stdout, os.Args[2:], goToolBenchstat)
	default:
		err = generate(os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(2)
	}
}

// options are the flags of the command without a subcommand.
type options struct{ root, compare, load, profiles, charts, png string }

func generate(args []string) error {
	var o options
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.StringVar(&o.root, "root", ".", "the repository: README.md and the stage folders")
	fs.StringVar(&o.compare, "compare", "results/compare/latest", "compare.sh's results")
	fs.StringVar(&o.load, "load", "results/load/latest", "load.sh's results, if any")
	fs.StringVar(&o.profiles, "profiles", "results/profile", "folder of <stage>/top.md profile tables, if any")
	fs.StringVar(&o.charts, "charts", "docs/charts", "where the charts go, under -root")
	fs.StringVar(&o.png, "png", "", "also draw the charts as PNG into this folder, to look at them")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unknown subcommand %q: want check or block", fs.Arg(0))
	}
	return o.run()
}

func (o options) run() error {
	compare, err := results.ReadDir(o.compare)
	if err != nil {
		return err
	}
	load, loadTable, err := o.readLoad()
	if err != nil {
		return err
	}
	list, err := stages.Shown(o.root)
	if err != nil {
		return err
	}
	chartDir := filepath.Join(o.root, o.charts)
	charts, err := makeCharts(chartDir, "svg", compare, load)
	if err != nil {
		return err
	}
	for _, c := range charts {
		fmt.Printf("wrote %s\n", filepath.Join(chartDir, c.file))
	}
	if o.png != "" {
		if _, err := makeCharts(o.png, "png", compare, load); err != nil {
			return err
		}
	}
	about := func(name string) (change, chapter string) {
		for _, s := range list {
			if s.Name == name {
				return describe(o.root, s), o.chapter(s)
			}
		}
		return "", "" // measured, but no longer in the workspace
	}
	blocks := []provenance.Block{
		{Name: "stages", Content: stagesTable(compare, about, func(previous, stage string) string {
			return diffSize(o.root, dirOf(list, previous), dirOf(list, stage))
		})},
		{Name: "charts", Content: chartsBlock(o.charts, charts, compare, load)},
	}
	if loadTable != "" {
		blocks = append(blocks, provenance.Block{Name: "load", Content: loadBlock(loadTable, load)})
	}
	o.update(filepath.Join(o.root, "README.md"), blocks)
	for i, f := range compare {
		_, chapter := about(f.Name)
		if chapter == "" || !hasBlocks(filepath.Join(o.root, filepath.FromSlash(chapter))) {
			continue // the floor, a stage without a chapter, and a learner's notes have nowhere to go
		}
		stat, err := benchstatBlock(compare, i, goToolBenchstat)
		if err != nil {
			return err
		}
		blocks := []provenance.Block{{Name: "benchstat", Content: stat}}
		if top, err := os.ReadFile(filepath.Join(o.profiles, f.Name, "top.md")); err == nil {
			blocks = append(blocks, provenance.Block{Name: "profile", Content: string(top)})
		}
		o.update(filepath.Join(o.root, filepath.FromSlash(chapter)), blocks)
	}
	return nil
}

// chapter is the README.md of stage s relative to the root, or "" if it
// has none. The floor is not a step and has no chapter.
func (o options) chapter(s stages.Stage) string {
	path := s.Dir + "/README.md"
	if _, err := os.Stat(filepath.Join(o.root, filepath.FromSlash(path))); s.Name == stages.Floor || err != nil {
		return ""
	}
	return path
}

// hasBlocks reports whether the markdown file at path has a generated
// block: a chapter has; a learner's page of notes does not.
func hasBlocks(path string) bool {
	doc, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	blocks, _ := provenance.Blocks(string(doc))
	return len(blocks) > 0
}

// readLoad reads load.sh's results and table, or nothing if there are none.
func (o options) readLoad() ([]*results.File, string, error) {
	if _, err := os.Stat(o.load); errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	load, err := results.ReadDir(o.load)
	if err != nil { // an interrupted load.sh should not hold the rest back
		fmt.Fprintf(os.Stderr, "report: warning: no load table or chart: %v\n", err)
		return nil, "", nil
	}
	table, err := os.ReadFile(filepath.Join(o.load, "table.md"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, "", err
	}
	return load, string(table), nil
}

// update replaces blocks in one markdown file and says so. A block whose
// markers are missing is reported and skipped: a chapter being written may
// not have them yet, and the others still get their figures.
func (o options) update(path string, blocks []provenance.Block) {
	err := provenance.UpdateFile(path, blocks...)
	var names []string
	for _, b := range blocks {
		names = append(names, b.Name)
	}
	fmt.Printf("updated %s %v\n", path, names)
	if err != nil {
		fmt.Fprintf(os.Stderr, "report: warning: %v\n", err)
	}
}
