// Package testevents reads the events of go test -json and go tool test2json, which say which
// test printed each line and how each ended: no command greps test output.
package testevents

import (
	"bufio"
	"cmp"
	"encoding/json"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"time"
)

// Event is one line of go test -json; go doc test2json describes them.
type Event struct{ Action, Package, Test, Output string }

// Run is what a run of tests printed and how its tests ended.
type Run struct {
	Lines       []Event      // every line of output, in order, with the test that printed it
	Failed      []Event      // the end of each test that failed
	Tests, Pkgs atomic.Int32 // how many have ended so far
	Raced       bool         // whether the race detector spoke: a race in a goroutine that outlives its test fails none
	last        atomic.Int64 // when the last event came, in Unix nanoseconds
	cmd         *exec.Cmd
	events      io.Reader
	log, shown  io.Writer
}

// Quiet is how long no event has come: a test that runs, however slowly, ends now and then.
func (r *Run) Quiet() time.Duration { return time.Since(time.Unix(0, r.last.Load())) }

// noise are the packages' lines that go test prints only with -v or -bench.
var noise = regexp.MustCompile(`^(PASS\n|goos: |goarch: |pkg: |cpu: )`)

// Start starts cmd, which prints events, for Wait to read; meanwhile the Run says how far it is.
// Every line goes to log; the packages' and the build's own lines and a failed test's output go to shown.
func Start(cmd *exec.Cmd, log, shown io.Writer) (*Run, error) {
	r := &Run{cmd: cmd, log: log, shown: shown}
	r.last.Store(time.Now().UnixNano())
	events, err := cmd.StdoutPipe()
	r.events = events
	return r, cmp.Or(err, cmd.Start())
}

// Wait reads the events until the command ends, and returns its error.
func (r *Run) Wait() error {
	byTest := map[string]string{}
	lines := bufio.NewScanner(r.events)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		r.last.Store(time.Now().UnixNano())
		var e Event
		if json.Unmarshal(lines.Bytes(), &e) != nil { // the go command's own words
			e.Output = lines.Text() + "\n"
		}
		key := e.Package + " " + e.Test
		switch ended := e.Action == "pass" || e.Action == "fail" || e.Action == "skip"; {
		case e.Output != "":
			io.WriteString(r.log, e.Output)
			r.Lines = append(r.Lines, e)
			r.Raced = r.Raced || e.Output == "WARNING: DATA RACE\n"
			if e.Test == "" && !noise.MatchString(e.Output) {
				io.WriteString(r.shown, e.Output)
			} else if e.Test != "" && !strings.HasPrefix(e.Output, "=== ") {
				byTest[key] += e.Output
			}
		case ended && e.Test == "":
			r.Pkgs.Add(1)
		case ended:
			r.Tests.Add(1)
			if e.Action == "fail" {
				r.Failed = append(r.Failed, e)
				io.WriteString(r.shown, byTest[key])
			}
			delete(byTest, key)
		}
	}
	io.Copy(io.Discard, r.events) // after a line too long, the rest: the command ends only once its output is read
	return cmp.Or(lines.Err(), r.cmd.Wait())
}
