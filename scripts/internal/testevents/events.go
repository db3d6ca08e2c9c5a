// Package testevents reads what go test -json and go tool test2json print:
// one event a line, saying which test printed each line of output and how
// each test and package ended, so that no command greps test output.
package testevents

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync/atomic"
)

// noise are the packages' lines that go test prints only with -v or -bench.
var noise = regexp.MustCompile(`^(PASS\n|goos: |goarch: |pkg: |cpu: )`)

// Event is one line of go test -json; go doc test2json describes them.
type Event struct {
	Action, Package, Test, Output string
	Elapsed                       float64
}

// Run is what a run of tests printed and how its tests ended.
type Run struct {
	Lines  []Event // every line of output, in order, with the test that printed it
	Failed []Event // the end of each test that failed
	byTest map[string][]string
	tests  atomic.Int32
	pkgs   atomic.Int32
}

// Ended is how many tests and packages have ended; Read may be running.
func (r *Run) Ended() (tests, packages int) { return int(r.tests.Load()), int(r.pkgs.Load()) }

// Read reads the events of in to its end. Every line of output goes to log,
// and to shown what says how it ended: the packages' own lines, the build's
// errors and a failed test's whole output.
func (r *Run) Read(in io.Reader, log, shown io.Writer) error {
	r.byTest = map[string][]string{}
	lines := bufio.NewScanner(in)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var e Event
		if json.Unmarshal(lines.Bytes(), &e) != nil { // the go command's own words
			e.Output = lines.Text() + "\n"
		}
		key, ended := e.Package+" "+e.Test, e.Action == "pass" || e.Action == "fail" || e.Action == "skip"
		switch {
		case e.Output != "":
			io.WriteString(log, e.Output)
			r.Lines = append(r.Lines, e)
			if e.Test == "" && !noise.MatchString(e.Output) {
				io.WriteString(shown, e.Output)
			} else if !strings.HasPrefix(e.Output, "=== ") {
				r.byTest[key] = append(r.byTest[key], e.Output)
			}
		case ended && e.Test == "":
			r.pkgs.Add(1)
		case ended:
			r.tests.Add(1)
			if e.Action == "fail" {
				r.Failed = append(r.Failed, e)
				fmt.Fprint(shown, strings.Join(r.byTest[key], ""))
			}
			delete(r.byTest, key)
		}
	}
	return lines.Err()
}
