//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"example.com/userperf/scripts/internal/stageserver"
)

func TestServerStopsGracefullyOrIsKilled(t *testing.T) {
	defer func(old time.Duration) { stageserver.StopGrace = old }(stageserver.StopGrace)
	stageserver.StopGrace = 200 * time.Millisecond
	for mode, want := range map[string]string{"serve": "terminated", "ignore-term": "killed"} {
		s := startFake(t, mode)
		body, err := s.WaitReady(context.Background(), listPath("admin"))
		if err != nil || !bytes.Equal(body, fakeList(100)) {
			t.Fatalf("%s: first answer %.40q, %v", mode, body, err)
		}
		if st := s.Stop().String(); !strings.Contains(st, want) {
			t.Errorf("%s: after Stop, %s; want %s", mode, st, want)
		}
	}
}

// TestRunWritesResultsAndLeavesNoProcess runs the whole program against two
// fake servers, for a few hundred milliseconds per test.
func TestRunWritesResultsAndLeavesNoProcess(t *testing.T) {
	out, pids := t.TempDir(), t.TempDir()
	t.Setenv("LOAD_TEST_SERVER", "serve")
	t.Setenv("LOAD_TEST_PIDS", pids)
	header := []byte("machine-cores: 2\nload-cpus: not pinned\n")
	floor := filepath.Join(t.TempDir(), "floor") // named as the floor's binary is
	if err := os.Symlink(os.Args[0], floor); err != nil {
		t.Fatal(err)
	}
	cfg := config{rate: 50, duration: 100 * time.Millisecond, warmup: 200 * time.Millisecond, conns: 2, rounds: 1,
		binaries: []string{os.Args[0], floor}}
	var stdout, progress bytes.Buffer
	if err := run(context.Background(), cfg, out, header, &stdout, &progress); err != nil {
		t.Fatalf("run: %v\nprogress:\n%s", err, &progress)
	}
	for _, name := range []string{filepath.Base(os.Args[0]), "floor"} {
		f, err := os.Open(filepath.Join(out, name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var names []string
		for r := benchfmt.NewReader(f, name); r.Scan(); {
			res, ok := r.Result().(*benchfmt.Result)
			if !ok || res.GetConfig("machine-cores") != "2" {
				t.Fatalf("%s.txt: %v, or no header", name, r.Result())
			}
			names = append(names, string(res.Name))
		}
		want := []string{"HTTPFixedRate/rate=50/matches=100", "HTTPFixedRate/rate=50/matches=1000",
			"HTTPSaturated/conns=2/matches=100", "HTTPSaturated/conns=2/matches=1000",
			"HTTPMixed/rate=50/matches=100/writes=10", "HTTPMixed/rate=50/matches=100/writes=50"}
		if !slices.Equal(names, want) {
			t.Errorf("%s.txt has %q, want %q", name, names, want)
		}
	}
	table, err := os.ReadFile(filepath.Join(out, "table.md"))
	// One round: the medians' tables, a row per stage, a column per test, write-p50 only for the mixed ones.
	for _, want := range []string{"\n| floor |", "HTTPMixed", "write-p50-sec", "req/s"} {
		if !bytes.Contains(table, []byte(want)) {
			t.Errorf("table.md (%v) lacks %q:\n%s", err, want, table)
		}
	}
	if !bytes.Equal(table, bytes.TrimPrefix(stdout.Bytes(), []byte("\n"))) {
		t.Errorf("table.md is not the table printed:\n%s", table)
	}
	entries, _ := os.ReadDir(pids) // every server wrote its pid; all must be gone
	if len(entries) != 3 {
		t.Fatalf("%d servers started, want 3: two stages and the first's A/A pair", len(entries))
	}
	if _, err := os.Stat(filepath.Join(out, filepath.Base(os.Args[0])+".again.txt")); err != nil {
		t.Errorf("no results of the A/A pair: %v", err)
	}
	for _, e := range entries {
		pid, _ := strconv.Atoi(e.Name())
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("server %d still exists after run: kill -0 gives %v", pid, err)
		}
	}
}
