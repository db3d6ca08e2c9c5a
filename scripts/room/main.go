// Command room puts everyone's hand-in file in one table and one chart; the usage below says how.
package main

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/perf/benchfmt"

	"example.com/userperf/scripts/internal/figures"
	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

const usage = `
room: the workshop's room in one table, from everyone's file of go run ./scripts/handin.

  go run ./scripts/room handins/*.txt      (it expands the patterns itself: Windows' shell does not)

Per participant and stage, "WRONG: <the check that failed>", or "ok" with its speed-ups against its
start (vs start) and the exercise's reference (vs ref) on the participant's own machine; then the
room's median and spread. Writes results/room/table.txt and results/room/room.svg here.
`

func main() {
	c := harness.New("room", usage)
	here, err := os.Getwd()
	c.Fatal(err)
	patterns := c.Parse()
	list, err := stages.List(c.Root) // for each exercise's reference
	c.Fatal(err)
	c.Fatal(os.Chdir(here)) // the hand-in files are here, and results/room goes here
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
	reference := func(origin string) string { return stages.Reference(c.Root, list, origin) }
	c.Fatal(room(filepath.Join("results", "room"), paths, reference, c.Line()))
}

// handIn is one participant's file from scripts/handin.
type handIn struct {
	config map[string]string    // its header: participant, machine-cpu, commit, verdict-STAGE ("passed: ...", "FAILED: ...")
	sec    map[string][]float64 // by stage and role ("ex1 mine"): sec/op of the headline
	stage  map[string]string    // by stage and role: the stage measured, if the file says
}

// room prints the table of the hand-in files paths and draws its chart into dir; reference is the
// stage that solves the exercise started at a stage. No time is compared across two machines.
func room(dir string, paths []string, reference func(string) string, command string) error {
	var hands []*handIn
	seen, commits := map[string]bool{}, map[string]int{}
	for _, p := range paths {
		h, err := readHandIn(p)
		if err != nil {
			return err
		}
		hands = append(hands, h)
		commits[h.config["commit"]]++
		for key := range h.config {
			if stage, ok := strings.CutPrefix(key, "verdict-"); ok {
				seen[stage] = true
			}
		}
	}
	exercises := slices.Sorted(maps.Keys(seen))
	var table strings.Builder
	w := tabwriter.NewWriter(io.MultiWriter(os.Stdout, &table), 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintf(w, "participant\tmachine\t%s\n", strings.Join(exercises, "\t"))
	speedups := map[string][]float64{} // by exercise and versus: "ex1 start", "ex1 ref"
	var files []*results.File
	for _, h := range hands {
		cells := []string{h.config["participant"], h.config["machine-cpu"] + ", " + h.config["machine-cores"] + " cores"}
		bars := map[results.Measurement][]float64{}
		for _, ex := range exercises {
			verdict, mine := h.config["verdict-"+ex], results.Median(h.sec[ex+" mine"])
			cell := "—"
			switch {
			case strings.HasPrefix(verdict, "FAILED"):
				cell = "WRONG: " + strings.TrimSuffix(strings.TrimPrefix(verdict, "FAILED: "), ", see above")
			case verdict != "" && mine > 0:
				cell = "ok"
				if o := results.Median(h.sec[ex+" origin"]); o > 0 {
					speedups[ex+" start"] = append(speedups[ex+" start"], o/mine)
					bars[results.Measurement{Bench: ex, Unit: "x"}] = []float64{o / mine}
					cell += ", " + results.Times(o/mine) + " vs start"
				}
				measured, want := h.stage[ex+" reference"], reference(h.stage[ex+" origin"])
				if r := results.Median(h.sec[ex+" reference"]); r > 0 && measured != "" && want != "" && measured != want {
					cell += fmt.Sprintf(", %s vs %s (not %s)", results.Times(r/mine), measured, want)
				} else if r > 0 {
					speedups[ex+" ref"] = append(speedups[ex+" ref"], r/mine)
					cell += ", " + results.Times(r/mine) + " vs ref"
				}
				if strings.Contains(verdict, "cannot tell on this machine") {
					cell += " (cannot tell)"
				}
			case verdict != "":
				cell = "ok, not measured"
			}
			cells = append(cells, cell)
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
		files = append(files, results.NewFile(h.config["participant"], nil, bars))
	}
	median, spread := []string{"room median", "right answers only"}, []string{"room spread", ""}
	for _, ex := range exercises {
		var m, s []string
		for _, versus := range []string{"start", "ref"} {
			if v := speedups[ex+" "+versus]; len(v) > 0 {
				m = append(m, fmt.Sprintf("%s vs %s (%d answer%s)", results.Times(results.Median(v)), versus, len(v), map[bool]string{true: "s"}[len(v) > 1]))
				s = append(s, results.Times(slices.Min(v))+" to "+results.Times(slices.Max(v))+" vs "+versus)
			}
		}
		median, spread = append(median, cmp.Or(strings.Join(m, ", "), "—")), append(spread, cmp.Or(strings.Join(s, ", "), "—"))
	}
	fmt.Fprintf(w, "%s\n%s\n", strings.Join(median, "\t"), strings.Join(spread, "\t"))
	w.Flush()
	// The commit most participants measured at: the charts name one.
	commit := slices.MaxFunc(slices.Sorted(maps.Keys(commits)), func(a, b string) int { return commits[a] - commits[b] })
	files[0].Config = map[string]string{"machine-cpu": "each participant's own machine", "go-version": "their Go",
		"date": time.Now().UTC().Format(time.RFC3339), "commit": commit, "command": command}
	fmt.Println("\nWRONG: a check failed, and its speed does not count; \"vs start\" and \"vs ref\" divide CPU times (else wall times) of one machine:" +
		" above 1x is faster;\n(cannot tell): under the floor, the noise of that machine: ask for a check on a quieter one; \"vs STAGE (not REF)\":" +
		" against another reference than the exercise's, left out of the median; (N answers): the right answers a median counts.")
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

// procs is the -GOMAXPROCS suffix that go test adds to a benchmark's name.
var procs = regexp.MustCompile(`-[0-9]+$`)

// readHandIn reads a hand-in file: its header line by line (benchfmt would
// need a result to carry it), then the headline's results by stage and role.
func readHandIn(path string) (*handIn, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := &handIn{config: map[string]string{}, sec: map[string][]float64{}, stage: map[string]string{}}
	for lines := bufio.NewScanner(f); lines.Scan() && !strings.HasPrefix(lines.Text(), "Benchmark"); {
		if key, value, ok := strings.Cut(lines.Text(), ": "); ok {
			h.config[key] = value
		}
	}
	if h.config["participant"] == "" {
		return nil, fmt.Errorf("%s: no participant line: not a file of scripts/handin", path)
	}
	in := benchfmt.Files{Paths: []string{path}}
	for in.Scan() {
		if r, ok := in.Result().(*benchfmt.Result); ok && procs.ReplaceAllString(string(r.Name.Full()), "") == figures.Headline {
			v, ok := r.Value("cpu-sec/op") // the work, which holds on a busy laptop
			if !ok {
				v, ok = r.Value("sec/op") // a system that gives no CPU time
			}
			if ok {
				key := r.GetConfig("exercise") + " " + r.GetConfig("role")
				h.sec[key], h.stage[key] = append(h.sec[key], v), r.GetConfig("stage")
			}
		}
	}
	return h, in.Err()
}
