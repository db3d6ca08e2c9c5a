// Command room puts everyone's hand-in file in one table and one chart; the usage below says how.
package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"example.com/userperf/scripts/internal/figures"
	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
)

const usage = `
room: the workshop's room in one table, from everyone's file of go run ./scripts/handin.

  go run ./scripts/room handins/*.txt      (it expands the patterns itself: Windows' shell does not)

Per participant and stage, "WRONG: <the check that failed>", or "ok" with its speed-ups against its
start (vs start) and the exercise's reference (vs ref) on the participant's own machine; then the
room's median. Writes results/room/table.txt and results/room/room.svg here.
`

func main() {
	c := harness.New("room", usage)
	here, err := os.Getwd()
	c.Fatal(err)
	patterns := c.Parse()
	c.Fatal(os.Chdir(here)) // Parse moved to the root: the hand-in files are here, and results/room goes here
	var paths []string
	for _, p := range patterns {
		matches, _ := filepath.Glob(p) // a plain name matches itself, if it exists
		if len(matches) == 0 {
			c.Usage("no hand-in file matches %s", p)
		}
		paths = append(paths, matches...)
	}
	if len(paths) == 0 {
		c.Usage("name the hand-in files: go run ./scripts/room handins/*.txt")
	}
	c.Fatal(room(filepath.Join("results", "room"), paths, c.Line()))
}

// room prints the table of the hand-in files paths and draws its chart into dir: no ratio spans two machines.
func room(dir string, paths []string, command string) error {
	var hands []map[string]string
	seen, commits := map[string]bool{}, map[string]int{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		h := map[string]string{} // its "key: value" lines
		for _, line := range strings.Split(string(data), "\n") {
			if key, value, ok := strings.Cut(line, ": "); ok {
				h[key] = value
				if stage, ok := strings.CutPrefix(key, "verdict-"); ok {
					seen[stage] = true
				}
			}
		}
		if err != nil || h["participant"] == "" {
			return cmp.Or(err, fmt.Errorf("%s: no participant line: not a file of scripts/handin", p))
		}
		hands = append(hands, h)
		commits[h["commit"]]++
	}
	exercises := slices.Sorted(maps.Keys(seen))
	var table strings.Builder
	w := tabwriter.NewWriter(io.MultiWriter(os.Stdout, &table), 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintf(w, "participant\tmachine\t%s\n", strings.Join(exercises, "\t"))
	speedups := map[string][]float64{} // by exercise and versus: "ex1 start", "ex1 ref"
	var files []*results.File
	for _, h := range hands {
		cells := []string{h["participant"], h["machine-cpu"] + ", " + h["machine-cores"] + " cores"}
		bars := map[results.Measurement][]float64{}
		for _, ex := range exercises {
			verdict, cell := h["verdict-"+ex], "—"
			switch {
			case strings.HasPrefix(verdict, "FAILED"):
				cell = "WRONG: " + strings.TrimSuffix(strings.TrimPrefix(verdict, "FAILED: "), ", see above")
			case verdict != "":
				cell = "ok"
				for _, vs := range [][2]string{{"origin", "start"}, {"reference", "ref"}} {
					if r, err := strconv.ParseFloat(h["speedup-"+ex+"-"+vs[0]], 64); err == nil {
						speedups[ex+" "+vs[1]] = append(speedups[ex+" "+vs[1]], r)
						cell += ", " + results.Times(r) + " vs " + vs[1]
						if vs[1] == "start" { // what the chart shows
							bars[results.Measurement{Bench: ex, Unit: "x"}] = []float64{r}
						}
					}
				}
				for key, value := range h { // a check --against another stage than the exercise's reference
					if other, ok := strings.CutPrefix(key, "speedup-"+ex+"-vs-"); ok {
						r, _ := strconv.ParseFloat(value, 64)
						cell += ", " + results.Times(r) + " vs " + other + " (not the reference: left out of the median)"
					}
				}
				if strings.Contains(verdict, "cannot tell on this machine") {
					cell += " (cannot tell)"
				}
			}
			cells = append(cells, cell)
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
		files = append(files, results.NewFile(h["participant"], nil, bars))
	}
	median := []string{"room median", "right answers only"}
	for _, ex := range exercises {
		var m []string
		for _, vs := range []string{"start", "ref"} {
			if v := speedups[ex+" "+vs]; len(v) > 0 {
				m = append(m, fmt.Sprintf("%s vs %s (%d answer%s)", results.Times(results.Median(v)), vs, len(v), map[bool]string{true: "s"}[len(v) > 1]))
			}
		}
		median = append(median, cmp.Or(strings.Join(m, ", "), "—"))
	}
	fmt.Fprintln(w, strings.Join(median, "\t"))
	w.Flush()
	// The commit most participants measured at: the charts name one.
	commit := slices.MaxFunc(slices.Sorted(maps.Keys(commits)), func(a, b string) int { return commits[a] - commits[b] })
	files[0].Config = map[string]string{"machine-cpu": "each participant's own machine", "go-version": "their Go",
		"date": time.Now().UTC().Format(time.RFC3339), "commit": commit, "command": command}
	fmt.Println("\nWRONG: a check failed, and its speed does not count. \"vs start\" and \"vs ref\" divide CPU times (else wall times)" +
		" of one machine: above 1x is faster;\n(cannot tell): under that machine's noise, check again on a quieter one; (N answers): the right answers a median counts.")
	if err := errors.Join(os.MkdirAll(dir, 0o755), os.WriteFile(filepath.Join(dir, "table.txt"), []byte(table.String()), 0o644)); err != nil {
		return err
	}
	c := figures.RoomChart(files, exercises)
	if ok, err := c.Save(dir); err != nil || !ok {
		return err // no chart when nobody's answer was both right and measured
	}
	fmt.Printf("Chart: %s\n", filepath.Join(dir, c.File))
	return nil
}
