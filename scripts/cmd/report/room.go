package main

import (
	"bufio"
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

	"example.com/userperf/scripts/internal/results"
)

// roomRow is the one benchmark that the room compares: the case study's request.
const roomRow = "ListByRole/users=10000/matches=100"

// handIn is one participant's file from scripts/handin.sh.
type handIn struct {
	who, machine string
	verdict      map[string]string    // by stage: "passed: ..." or "FAILED: ..."
	sec          map[string][]float64 // by stage and role ("ex1 mine"): sec/op of roomRow
}

// room prints the room's table of every hand-in file in paths and draws its
// chart into dir. Each speed-up divides times measured on one machine, a
// participant's own, so no time is ever compared across machines.
func room(dir string, paths []string) error {
	if len(paths) == 0 {
		return fmt.Errorf("name the hand-in files of scripts/handin.sh")
	}
	var hands []*handIn
	seen := map[string]bool{}
	for _, p := range paths {
		h, err := readHandIn(p)
		if err != nil {
			return err
		}
		hands = append(hands, h)
		for s := range h.verdict {
			seen[s] = true
		}
	}
	exercises := slices.Sorted(maps.Keys(seen))
	var table strings.Builder
	w := tabwriter.NewWriter(io.MultiWriter(os.Stdout, &table), 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintf(w, "participant\tmachine\t%s\n", strings.Join(exercises, "\t"))
	start, ref := map[string][]float64{}, map[string][]float64{}
	var files []*results.File
	for _, h := range hands {
		cells, bars := []string{h.who, h.machine}, map[results.Measurement][]float64{}
		for _, ex := range exercises {
			verdict, mine := h.verdict[ex], results.Median(h.sec[ex+" mine"])
			cell := "—"
			switch {
			case strings.HasPrefix(verdict, "FAILED"):
				cell = "WRONG: " + strings.TrimSuffix(strings.TrimPrefix(verdict, "FAILED: "), ", see above")
			case verdict != "" && mine > 0:
				cell = "ok"
				if o := results.Median(h.sec[ex+" origin"]); o > 0 {
					start[ex] = append(start[ex], o/mine)
					bars[results.Measurement{Bench: ex, Unit: "x"}] = []float64{o / mine}
					cell += ", " + speedup(o/mine) + " vs start"
				}
				if r := results.Median(h.sec[ex+" reference"]); r > 0 {
					ref[ex] = append(ref[ex], r/mine)
					cell += ", " + speedup(r/mine) + " vs ref"
				}
				if strings.Contains(verdict, "too noisy to tell") {
					cell += " (noisy)"
				}
			case verdict != "":
				cell = "ok, not measured"
			}
			cells = append(cells, cell)
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
		files = append(files, results.NewFile(h.who, nil, bars))
	}
	count := fmt.Sprintf("%d participants", len(hands))
	if len(hands) == 1 {
		count = "1 participant"
	}
	for _, stat := range []struct {
		name string
		of   func([]float64) string
	}{{"room median", func(v []float64) string { return speedup(results.Median(v)) }},
		{"room spread", func(v []float64) string { return speedup(slices.Min(v)) + " to " + speedup(slices.Max(v)) }}} {
		cells := []string{stat.name, count}
		for _, ex := range exercises {
			cell := "—"
			if len(start[ex]) > 0 {
				cell = stat.of(start[ex]) + " vs start"
			}
			if len(ref[ex]) > 0 {
				cell += ", " + stat.of(ref[ex]) + " vs ref"
			}
			cells = append(cells, cell)
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	w.Flush()
	var perExercise []series
	for _, ex := range exercises {
		perExercise = append(perExercise, series{ex, ex, "x"})
	}
	files[0].Config = map[string]string{"machine-cpu": "each participant's own machine", "go-version": "their Go",
		"date": time.Now().UTC().Format(time.RFC3339), "command": commandLine(append([]string{"./scripts/room.sh"}, paths...))}
	c := chart{"room.svg", "Speed-up against each exercise's starting stage (" + roomRow + "), only right answers", files,
		[]panel{{"", "speed-up, log scale", true, speedup, perExercise}}}
	fmt.Println("\nWRONG: a check failed, and its speed does not count; \"vs start\" and \"vs ref\" divide times measured on one machine;" +
		"\n(noisy): the check itself said its runs spread too widely to tell; ask for a check on a quieter machine.")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "table.txt"), []byte(table.String()), 0o644); err != nil {
		return err
	}
	if ok, err := c.save(dir); err != nil || !ok {
		return err // no chart when nobody's answer was both right and measured
	}
	fmt.Printf("Chart: %s\n", filepath.Join(dir, c.file))
	return nil
}

// procs is the -GOMAXPROCS suffix that go test adds to a benchmark's name.
var procs = regexp.MustCompile(`-[0-9]+$`)

// readHandIn reads a hand-in file: its header line by line (benchfmt would
// need a result to carry it), then the results of roomRow by stage and role.
func readHandIn(path string) (*handIn, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := &handIn{verdict: map[string]string{}, sec: map[string][]float64{}}
	config := map[string]string{}
	for lines := bufio.NewScanner(f); lines.Scan() && !strings.HasPrefix(lines.Text(), "Benchmark"); {
		if key, value, ok := strings.Cut(lines.Text(), ": "); ok {
			config[key] = value
			if stage, ok := strings.CutPrefix(key, "verdict-"); ok {
				h.verdict[stage] = value
			}
		}
	}
	h.who, h.machine = config["participant"], config["machine-cpu"]+", "+config["machine-cores"]+" cores"
	if h.who == "" {
		return nil, fmt.Errorf("%s: no participant line: not a file of scripts/handin.sh", path)
	}
	in := benchfmt.Files{Paths: []string{path}}
	for in.Scan() {
		if r, ok := in.Result().(*benchfmt.Result); ok && procs.ReplaceAllString(string(r.Name.Full()), "") == roomRow {
			if v, ok := r.Value("sec/op"); ok {
				key := r.GetConfig("exercise") + " " + r.GetConfig("role")
				h.sec[key] = append(h.sec[key], v)
			}
		}
	}
	return h, in.Err()
}
