package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"example.com/userperf/scripts/internal/stages"
)

// A go tool test2json that cannot start ends the run with its error: the tests, whose output
// nothing reads, are stopped, not left to wait for ever.
func TestRunEndsWithoutTest2json(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	k := &check{stage: stages.Folder{Name: "flood", Dir: "."}, logs: t.TempDir(), binary: self, timeout: time.Minute}
	r := &testRun{log: "flood.log", args: []string{"-test.run=^TestHelperFlood$"}, env: []string{"CHECK_FLOOD=1"}}
	t.Setenv("PATH", t.TempDir()) // no go command
	ran := make(chan struct{})
	go func() {
		k.run(r)
		close(ran)
	}()
	select {
	case <-ran:
	case <-time.After(time.Minute):
		t.Fatal("the run still waits a minute after go tool test2json failed to start")
	}
	if !errors.Is(r.err, exec.ErrNotFound) || r.events != nil {
		t.Errorf("the run ended with %v and events %v, not with go's absence", r.err, r.events)
	}
}

// TestHelperFlood is the tests of TestRunEndsWithoutTest2json: output without end.
func TestHelperFlood(t *testing.T) {
	if os.Getenv("CHECK_FLOOD") == "" {
		t.Skip("a helper of TestRunEndsWithoutTest2json")
	}
	for {
		fmt.Println(strings.Repeat("output nobody reads ", 50))
	}
}

// The watch's progress line ends with its last count: no tick prints after it.
func TestLiveLineEndsLast(t *testing.T) {
	for range 100 {
		var out strings.Builder
		n := 0
		stop := liveLine(&out, time.Microsecond, func() string { n++; return fmt.Sprint(n) })
		time.Sleep(time.Millisecond)
		stop()
		if got := out.String(); !strings.HasSuffix(got, fmt.Sprintf("\r   %d\n", n)) || strings.Count(got, "\n") != 1 {
			t.Fatalf("the progress line does not end with its last count, %d: %q", n, got[max(0, len(got)-40):])
		}
	}
}
