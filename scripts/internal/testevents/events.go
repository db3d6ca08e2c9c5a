// Package testevents reads what go test -json and go tool test2json print:
// one event a line, saying which test printed each line and how each test
// and package ended, so that no command greps test output.
package testevents

import (
	"bufio"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"sync/atomic"
)

// Event is one line of go test -json; go doc test2json describes them.
type Event struct {
	Action, Package, Test, Output string
	Elapsed                       float64
}

// Run is what a run of tests printed and how its tests ended.
type Run struct {
	Lines       []Event      // every line of output, in order, with the test that printed it
	Failed      []Event      // the end of each test that failed
	Tests, Pkgs atomic.Int32 // how many have ended so far, while Read runs
}

// noise are the packages' lines that go test prints only with -v or -bench.
var noise = regexp.MustCompile(`^(PASS\n|goos: |goarch: |pkg: |cpu: )`)

// Read reads the events of in to its end. Every line of output goes to log,
// and to shown what says how it ended: the packages' own lines, the build's
// errors and a failed test's whole output.
func (r *Run) Read(in io.Reader, log, shown io.Writer) error {
	byTest := map[string]string{}
	lines := bufio.NewScanner(in)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var e Event
		if json.Unmarshal(lines.Bytes(), &e) != nil { // the go command's own words
			e.Output = lines.Text() + "\n"
		}
		key := e.Package + " " + e.Test
		switch ended := e.Action == "pass" || e.Action == "fail" || e.Action == "skip"; {
		case e.Output != "":
			io.WriteString(log, e.Output)
			r.Lines = append(r.Lines, e)
			if e.Test == "" && !noise.MatchString(e.Output) {
				io.WriteString(shown, e.Output)
			} else if e.Test != "" && !strings.HasPrefix(e.Output, "=== ") {
				byTest[key] += e.Output
			}
		case ended && e.Test == "":
			r.Pkgs.Add(1)
		case ended:
			r.Tests.Add(1)
			if e.Action == "fail" {
				r.Failed = append(r.Failed, e)
				io.WriteString(shown, byTest[key])
			}
			delete(byTest, key)
		}
	}
	return lines.Err()
}
