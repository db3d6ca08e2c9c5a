// Command room shows the workshop's room in one page: everyone's hand-ins
// from go run ./scripts/handin, in one table and one chart.
//
// Usage:
//
//	go run ./scripts/room --serve ADDRESS:PORT
//	go run ./scripts/room FILE...
//
// With --serve it runs on the instructor's machine: the page for the
// projector at http://ADDRESS:PORT/, which takes the hand-ins that
// go run ./scripts/handin --to http://ADDRESS:PORT NAME sends. Without it,
// it reads hand-in files (it expands patterns itself, as Windows' shell
// does not), prints the table and writes results/room/index.html, table.txt
// and room.svg.
//
// The page has a column per exercise (a stage made from an exercise's
// start) and a row per participant: ✓ and the speed-up against the start on
// their own machine, "?" when their check could not tell it from that
// machine's noise, the count that decided where the time could not
// ("−49% allocs"), ✗ when a check failed, and their prediction; then the
// room's medians, and how far the predictions were from the measurements.
//
// The flag is:
//
//	--serve ADDRESS:PORT
//		Serve the page and take hand-ins there; a bare port binds to 127.0.0.1,
//		and the command lists this machine's addresses. The hand-ins are kept in
//		results/room/handins/, one file per participant, and read again at the
//		next start.
//
// # Examples
//
//	go run ./scripts/room --serve 8080                 # loopback: try it, and see your addresses
//	go run ./scripts/room --serve 192.168.1.20:8080    # on the room's network
//	go run ./scripts/room handins/*.txt
package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

func main() {
	c := harness.New("room")
	addr := c.Flags.String("serve", "", "")
	here, err := os.Getwd()
	c.Fatal(err)
	patterns := c.Parse()
	isStart, err := exerciseStarts(c.Root)
	c.Fatal(err)
	dir := filepath.Join("results", "room")
	if *addr != "" {
		if len(patterns) > 0 {
			c.Usage("--serve takes no hand-in files: participants send theirs with go run ./scripts/handin --to URL NAME")
		}
		c.Fatal(serve(*addr, filepath.Join(dir, "handins"), isStart))
		return // stopped by a signal, once the hand-ins being received were kept
	}
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
		c.Usage("name the hand-in files (go run ./scripts/room handins/*.txt), or serve: go run ./scripts/room --serve ADDRESS:PORT")
	}
	c.Fatal(room(dir, paths, isStart))
}

// exerciseStarts returns whether a stage is an exercise's start in the
// workspace at root: a stage with a reference (its solution or the next
// step), or the origin of a solution (a quest's start, which fails the suites).
func exerciseStarts(root string) (func(string) bool, error) {
	list, err := stages.List(root)
	starts := map[string]bool{}
	for _, s := range list {
		if stages.Solution(root, list, s.Name) != "" {
			starts[s.Name] = true
		}
		if origin := stages.Origin(root, s.Dir); strings.HasPrefix(s.Dir, "workshop/solutions/") && origin != "" {
			starts[path.Base(origin)] = true
		}
	}
	return func(stage string) bool { return starts[stage] }, err
}

// room prints the table of the hand-in files paths and writes it, the page and the chart into dir.
func room(dir string, paths []string, isStart func(string) bool) error {
	var handIns []handIn
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h, err := parseHandIn(data)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		h.ID = cmp.Or(h.ID, fmt.Sprint("file", i)) // an older file has no id: each file is one participant
		handIns = append(handIns, h)
	}
	v := view(handIns, isStart)
	var table bytes.Buffer
	printTable(io.MultiWriter(os.Stdout, &table), v)
	fmt.Println("\n✓: the check passed, with the speed-up against the exercise's start on that participant's machine (above 1x: faster);" +
		"\n−49% allocs: the time could not tell, an exact count did; ?: cannot tell, within that machine's noise; ✗: a check failed, and its speed does not count; guess: the prediction;" +
		"\noff: the median factor between a prediction and its measurement.")
	page, err := makePage(v, 0, "")
	err = errors.Join(err, os.MkdirAll(dir, 0o755))
	for name, b := range map[string][]byte{"table.txt": table.Bytes(), "index.html": page, "room.svg": []byte(drawChart(v))} {
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), b, 0o644)
		}
	}
	if err == nil {
		fmt.Printf("The page, for the projector: %s (and the chart alone: room.svg)\n", filepath.Join(dir, "index.html"))
	}
	return err
}

// printTable prints v narrow enough for a terminal.
func printTable(out io.Writer, v roomView) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	line := func(cells ...string) { fmt.Fprintln(w, strings.Join(cells, "\t")) }
	header, median := []string{"participant"}, []string{"room median"}
	for _, ex := range v.Exercises {
		cell := "—"
		if ex.Answers > 0 {
			cell = fmt.Sprintf("%s of %d", results.Times(ex.Median), ex.Answers)
		}
		if ex.Guesses > 0 {
			cell += fmt.Sprintf(", guessed %s, off %s", results.Times(ex.GuessMedian), results.Times(ex.Off))
		}
		header, median = append(header, ex.Name), append(median, cell)
	}
	line(header...)
	for _, h := range v.HandIns {
		cells := []string{h.Name}
		if h.Tag != "" {
			cells[0] += " #" + h.Tag
		}
		for _, c := range h.Cells {
			cells = append(cells, textCell(c))
		}
		line(cells...)
	}
	line(median...)
	w.Flush()
	if len(v.Releases) > 1 { // the page has a median per release; a terminal's row has room for one
		var names []string
		for _, r := range v.Releases {
			names = append(names, releaseLabel(r))
		}
		fmt.Fprintf(out, "The medians mix Go releases (%s), whose ratios differ: the page has one per release.\n", strings.Join(names, ", "))
	}
	for _, h := range v.HandIns { // what failed, which a cell has no room for
		for i, c := range h.Cells {
			if c.Failed != "" {
				fmt.Fprintf(out, "✗ %s, %s: %s\n", h.Name, v.Exercises[i].Name, c.Failed)
			}
		}
	}
}

// textCell is c in a few characters: "✓ 3.1x", "✓ ?1.02x", "✗", "—", then the guess.
func textCell(c cell) string {
	s := "—"
	switch {
	case c.Passed && c.Counted != "":
		s = "✓ " + c.Counted
	case c.Passed && c.Ratio == 0:
		s = "✓"
	case c.Passed && c.Told:
		s = "✓ " + results.Times(c.Ratio)
	case c.Passed:
		s = "✓ ?" + results.Times(c.Ratio)
	case c.Failed != "":
		s = "✗"
	case c.Handed:
		s = "not checked"
	}
	if c.Changed {
		s += " (changed after its check)"
	}
	if c.Guess != "" {
		s += " (guess " + strings.TrimSpace(c.Guess) + ")"
	}
	return s
}
