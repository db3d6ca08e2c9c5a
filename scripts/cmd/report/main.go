// Command report turns the latest results into the charts and the tables of
// the READMEs; scripts/report.sh runs it. It reads
//
//	results/compare/latest/<stage>.txt   compare.sh's benchmarks (required)
//	results/load/latest/<stage>.txt      load.sh's HTTP tests, and its table.md (if present)
//	results/profile/<stage>/top.md       the CPU top table that report.sh made from profile.sh's profiles
//
// and writes docs/charts/*.svg and the generated blocks of README.md (stages,
// charts, load) and of every stage's README.md (benchstat, profile). Text
// outside the blocks is never touched.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

func main() {
	var o options
	flag.StringVar(&o.root, "root", ".", "the repository: README.md and the stage folders")
	flag.StringVar(&o.compare, "compare", "results/compare/latest", "compare.sh's results")
	flag.StringVar(&o.load, "load", "results/load/latest", "load.sh's results, if any")
	flag.StringVar(&o.profiles, "profiles", "results/profile", "folder of <stage>/top.md profile tables, if any")
	flag.StringVar(&o.charts, "charts", "docs/charts", "where the charts go, under -root")
	flag.StringVar(&o.png, "png", "", "also draw the charts as PNG into this folder, to look at them")
	flag.Parse()
	if err := o.run(); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct{ root, compare, load, profiles, charts, png string }

func (o options) run() error {
	compare, err := readResultSet(o.compare)
	if err != nil {
		return err
	}
	load, loadTable, err := o.readLoad()
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
	blocks := []block{
		{"stages", stagesTable(compare, func(s string) string { return describe(o.root, s) })},
		{"charts", chartsBlock(o.charts, charts, compare)},
	}
	if loadTable != "" {
		blocks = append(blocks, block{"load", loadBlock(loadTable, load)})
	}
	o.update(filepath.Join(o.root, "README.md"), blocks)
	for i, s := range compare.stages {
		readme := filepath.Join(o.root, s.name, "README.md")
		if _, err := os.Stat(readme); s.name == "floor" || err != nil {
			continue // the floor and a stage without a chapter have nowhere to go
		}
		stat, err := benchstatBlock(compare, i, goToolBenchstat)
		if err != nil {
			return err
		}
		blocks := []block{{"benchstat", stat}}
		if top, err := os.ReadFile(filepath.Join(o.profiles, s.name, "top.md")); err == nil {
			blocks = append(blocks, block{"profile", string(top)})
		}
		o.update(readme, blocks)
	}
	return nil
}

// readLoad reads load.sh's results and table, or nothing if there are none.
func (o options) readLoad() (*resultSet, string, error) {
	if _, err := os.Stat(o.load); errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	load, err := readResultSet(o.load)
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
func (o options) update(path string, blocks []block) {
	err := updateFile(path, blocks...)
	var names []string
	for _, b := range blocks {
		names = append(names, b.name)
	}
	fmt.Printf("updated %s %v\n", path, names)
	if err != nil {
		fmt.Fprintf(os.Stderr, "report: warning: %v\n", err)
	}
}
