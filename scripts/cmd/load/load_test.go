package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stageserver"
)

// The tests attack only servers on 127.0.0.1, for a few hundred
// milliseconds each, and check what the results say, never how fast.

// TestMain lets the test binary stand in for a stage's server: started
// with LOAD_TEST_SERVER set, it serves fake user lists instead of running
// the tests, so that process handling is tested without building a stage.
func TestMain(m *testing.M) {
	if mode := os.Getenv("LOAD_TEST_SERVER"); mode != "" {
		fakeServer(mode)
		return
	}
	os.Exit(m.Run())
}

// fakeServer answers GET /users?role=admin with a JSON array of 100
// objects and role=editor with 1,000, on the -addr it is given. Modes:
// "serve"; "ignore-term", which ignores SIGTERM so that it must be killed;
// "fail", which exits at once as a server whose port is taken does.
func fakeServer(mode string) {
	fs := flag.NewFlagSet("fake", flag.ExitOnError)
	addr := fs.String("addr", "", "listen address")
	fs.Parse(os.Args[1:])
	if dir := os.Getenv("LOAD_TEST_PIDS"); dir != "" {
		os.WriteFile(filepath.Join(dir, strconv.Itoa(os.Getpid())), nil, 0o644)
	}
	switch mode {
	case "fail":
		fmt.Fprintln(os.Stderr, "fake: cannot listen: simulated failure")
		os.Exit(3)
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
	}
	bodies := map[string][]byte{"admin": fakeList(100), "editor": fakeList(1000)}
	err := http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := bodies[r.URL.Query().Get("role")]
		if r.URL.Path != "/users" || !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body))) // as the API does
		w.Write(body)
	}))
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func fakeList(n int) []byte {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"id":"u%07d"}`, i)
	}
	return []byte("[" + strings.Join(items, ",") + "]")
}

// startFake starts the test binary as a fake server in mode and registers
// its stop with t.Cleanup.
func startFake(t *testing.T, mode string) *stageserver.Server {
	t.Helper()
	t.Setenv("LOAD_TEST_SERVER", mode)
	s, err := stageserver.Start("fake-"+mode, os.Args[0], filepath.Join(t.TempDir(), "server.log"), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

func TestFixedRateAndSaturatedMeasureHealthyServer(t *testing.T) {
	body := fakeList(100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()

	fixed := newTally(len(body))
	fixedRate(context.Background(), srv.URL, 100, 300*time.Millisecond, fixed)
	closed := newTally(len(body))
	saturated(context.Background(), srv.URL, 2, 200*time.Millisecond, closed)

	for _, tc := range []struct {
		name string
		s    summary
	}{{"fixed rate", fixed.summary()}, {"saturated", closed.summary()}} {
		s := tc.s
		if s.requests < 5 || s.errors != 0 {
			t.Errorf("%s: %d requests, %d errors (%s); want at least 5 and none", tc.name, s.requests, s.errors, s.firstError)
		}
		if !(0 < s.p50 && s.p50 <= s.p95 && s.p95 <= s.p99 && s.p99 <= s.max) {
			t.Errorf("%s: percentiles out of order: p50 %v p95 %v p99 %v max %v", tc.name, s.p50, s.p95, s.p99, s.max)
		}
		if s.perSecond <= 0 {
			t.Errorf("%s: %v successful requests per second", tc.name, s.perSecond)
		}
	}
	// 100 req/s for 300 ms is about 30 requests, whatever the server's speed:
	// the open loop sets the rate, not the answers.
	if n := fixed.summary().requests; n < 20 || n > 40 {
		t.Errorf("fixed rate of 100/s for 300ms sent %d requests, want about 30", n)
	}
}

func TestTallyCountsWrongAnswersAsErrors(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) % 3 { // one request at a time: saturated with one connection
		case 0:
			w.Write([]byte("[]")) // 200, but the wrong body
		case 1:
			http.Error(w, "boom", http.StatusInternalServerError)
		default:
			w.Write([]byte("[1,2]")) // right
		}
	}))
	defer srv.Close()
	tl := newTally(len("[1,2]"))
	saturated(context.Background(), srv.URL, 1, 100*time.Millisecond, tl)
	s := tl.summary()
	if s.requests < 3 {
		t.Fatalf("only %d requests", s.requests)
	}
	if right := (s.requests + 1) / 3; s.requests-s.errors != right {
		t.Errorf("%d requests, %d errors: want %d right answers", s.requests, s.errors, right)
	}
	if !strings.Contains(s.firstError, "500") {
		t.Errorf("first error %q, want the status 500", s.firstError)
	}
}

func TestAttackStopsWhenCancelled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	done := make(chan struct{})
	go func() {
		saturated(ctx, srv.URL, 2, time.Minute, newTally(0))
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second): // a generous bound: a hang, not a slowness, fails
		t.Fatal("a cancelled attack of one minute did not stop")
	}
}

func TestResultsParseAsGoBenchmarks(t *testing.T) {
	s := summary{requests: 2000, errors: 3, p50: 312 * time.Microsecond, p95: time.Millisecond,
		p99: 2 * time.Millisecond, max: 40 * time.Millisecond, perSecond: 1234.54}
	path := filepath.Join(t.TempDir(), "stage.txt")
	header := []benchfmt.Config{{Key: "machine-cores", Value: []byte("2"), File: true}}
	rs := []*benchfmt.Result{fixedRateResult(fixedRateName(100, 1000), s), saturatedResult(saturatedName(32, 100), s)}
	if err := results.WriteFile(path, header, rs); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	want := "machine-cores: 2\n\n" +
		"BenchmarkHTTPFixedRate/rate=100/matches=1000 2000 312000 p50-ns 1e+06 p95-ns 2e+06 p99-ns 4e+07 max-ns 3 errors\n" +
		"BenchmarkHTTPSaturated/conns=32/matches=100 2000 1234.5 req/s 312000 p50-ns 2e+06 p99-ns\n"
	if string(text) != want {
		t.Errorf("wrote\n%s\nwant\n%s", text, want)
	}
	f, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := f.Median("HTTPFixedRate/rate=100/matches=1000", "p99-sec"); v != 2e-3 || f.Config["machine-cores"] != "2" {
		t.Errorf("read back p99 %v and header %v", v, f.Config)
	}
}

func TestTableComparesWithTheFloor(t *testing.T) {
	rows := []row{
		{stage: "stage0-linear", matches: 100, fixed: summary{p50: 1500 * time.Microsecond, p95: 3 * time.Millisecond,
			p99: 7 * time.Millisecond, max: 1200 * time.Millisecond, errors: 2}, saturated: summary{perSecond: 1139.4, errors: 1}},
		{stage: "floor", matches: 100, fixed: summary{p50: 500 * time.Microsecond, p95: 999 * time.Microsecond,
			p99: 2 * time.Millisecond, max: 9 * time.Millisecond}, saturated: summary{perSecond: 5128}},
	}
	var text, md bytes.Buffer
	writeTable(&text, rows, false)
	writeTable(&md, rows, true)
	wantText := "" +
		"stage          matches      p50      p95      p99      max  errors  saturated req/s  p50 ÷ floor\n" +
		"stage0-linear      100  1.500ms  3.000ms  7.000ms   1.200s       3             1139        3.00x\n" +
		"floor              100  500.0µs  999.0µs  2.000ms  9.000ms       0             5128        1.00x\n"
	if text.String() != wantText {
		t.Errorf("text table:\n%s\nwant:\n%s", &text, wantText)
	}
	wantMD := "" +
		"| stage | matches | p50 | p95 | p99 | max | errors | saturated req/s | p50 ÷ floor |\n" +
		"| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n" +
		"| stage0-linear | 100 | 1.500ms | 3.000ms | 7.000ms | 1.200s | 3 | 1139 | 3.00x |\n" +
		"| floor | 100 | 500.0µs | 999.0µs | 2.000ms | 9.000ms | 0 | 5128 | 1.00x |\n"
	if md.String() != wantMD {
		t.Errorf("markdown table:\n%s\nwant:\n%s", &md, wantMD)
	}
	// Without the floor there is nothing to divide by, and no column.
	text.Reset()
	writeTable(&text, rows[:1], false)
	if strings.Contains(text.String(), "floor") {
		t.Errorf("table without the floor has a floor column:\n%s", &text)
	}
}

func TestServerStartsAnswersAndStops(t *testing.T) {
	s := startFake(t, "serve")
	body, err := s.WaitReady(context.Background(), listPath("admin"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, fakeList(100)) {
		t.Errorf("first answer: %.80s", body)
	}
	s.Stop()
	if st := s.ExitState(); st != "exit status 0" && !strings.Contains(st, "terminated") {
		t.Errorf("after stop: %v, want exited or terminated by SIGTERM", st)
	}
	s.Stop() // a second stop is harmless
}

func TestServerIgnoringSIGTERMIsKilled(t *testing.T) {
	defer func(old time.Duration) { stageserver.StopGrace = old }(stageserver.StopGrace)
	stageserver.StopGrace = 200 * time.Millisecond
	s := startFake(t, "ignore-term")
	if _, err := s.WaitReady(context.Background(), listPath("admin")); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	if st := s.ExitState(); !strings.Contains(st, "killed") {
		t.Errorf("after stop: %v, want killed", st)
	}
}

func TestServerThatFailsToStartIsReported(t *testing.T) {
	s := startFake(t, "fail")
	_, err := s.WaitReady(context.Background(), listPath("admin"))
	if err == nil || !strings.Contains(err.Error(), "simulated failure") {
		t.Errorf("waitReady: %v, want an error quoting the server's log", err)
	}
}

// TestRunWritesResultsAndLeavesNoProcess runs the whole program against two
// fake servers, for a few hundred milliseconds per test.
func TestRunWritesResultsAndLeavesNoProcess(t *testing.T) {
	out, pids := t.TempDir(), t.TempDir()
	t.Setenv("LOAD_TEST_SERVER", "serve")
	t.Setenv("LOAD_TEST_PIDS", pids)
	header := filepath.Join(out, "machine.txt")
	os.WriteFile(header, []byte("machine-cores: 2\ncommand: test"), 0o644)
	cfg, stages, err := parseArgs([]string{"-out", out, "-header", header, "-rate", "50", "-duration", "100ms",
		"-warmup", "100ms", "-conns", "2", "a=" + os.Args[0], floorName + "=" + os.Args[0]})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, progress bytes.Buffer
	if err := run(context.Background(), cfg, stages, &stdout, &progress); err != nil {
		t.Fatalf("run: %v\nprogress:\n%s", err, &progress)
	}

	for _, name := range []string{"a", floorName} {
		text, err := os.ReadFile(filepath.Join(out, name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		r := benchfmt.NewReader(bytes.NewReader(text), name)
		var names []string
		for r.Scan() {
			if res, ok := r.Result().(*benchfmt.Result); ok {
				names = append(names, string(res.Name.Full()))
				if res.GetConfig("machine-cores") != "2" || res.GetConfig("load-fixed-rate") == "" {
					t.Errorf("%s.txt: header missing from %s", name, res.Name.Full())
				}
			} else {
				t.Errorf("%s.txt: %v", name, r.Result())
			}
		}
		want := []string{"HTTPFixedRate/rate=50/matches=100", "HTTPFixedRate/rate=50/matches=1000",
			"HTTPSaturated/conns=2/matches=100", "HTTPSaturated/conns=2/matches=1000"}
		if !slices.Equal(names, want) {
			t.Errorf("%s.txt has %q, want %q", name, names, want)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "table.md"))
	if err != nil || !bytes.Contains(md, []byte("| a | 1000 |")) || !bytes.Contains(md, []byte("| floor | 100 |")) {
		t.Errorf("table.md (%v):\n%s", err, md)
	}
	if !strings.Contains(stdout.String(), "saturated req/s") {
		t.Errorf("no table printed:\n%s", &stdout)
	}
	if !strings.Contains(progress.String(), "round 1/1  floor") {
		t.Errorf("progress does not say which stage runs:\n%s", &progress)
	}

	// Both servers wrote their pid; both must be gone.
	entries, _ := os.ReadDir(pids)
	if len(entries) != 2 {
		t.Fatalf("%d servers started, want 2", len(entries))
	}
	for _, e := range entries {
		pid, _ := strconv.Atoi(e.Name())
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("server %d still exists after run: kill -0 gives %v", pid, err)
		}
	}
}

func TestParseArgsRejectsUnboundedRuns(t *testing.T) {
	for _, args := range [][]string{
		{"a=b"}, // no -out
		{"-out", "x"},
		{"-out", "x", "-duration", "1h", "a=b"},
		{"-out", "x", "-rate", "0", "a=b"},
		{"-out", "x", "-conns", "100000", "a=b"},
		{"-out", "x", "=b"},
		{"-out", "x", "a="},
	} {
		if _, _, err := parseArgs(args); err == nil {
			t.Errorf("parseArgs(%q) accepted", args)
		}
	}
}

// TestOverRoundsTakesMedians checks the statistic that the table shares
// with the chart: medians of the rounds' percentiles and throughputs, the
// slowest request of all, every request and error counted.
func TestOverRoundsTakesMedians(t *testing.T) {
	ms := time.Millisecond
	rounds := []summary{
		{requests: 10, errors: 1, p50: 3 * ms, p95: 9 * ms, p99: 10 * ms, max: 40 * ms, perSecond: 300, firstError: "status 500"},
		{requests: 10, p50: 1 * ms, p95: 5 * ms, p99: 6 * ms, max: 7 * ms, perSecond: 100},
		{requests: 10, p50: 2 * ms, p95: 7 * ms, p99: 8 * ms, max: 9 * ms, perSecond: 200},
	}
	got := overRounds(rounds)
	want := summary{requests: 30, errors: 1, p50: 2 * ms, p95: 7 * ms, p99: 8 * ms, max: 40 * ms, perSecond: 200, firstError: "status 500"}
	if got != want {
		t.Errorf("overRounds = %+v\nwant %+v", got, want)
	}
	if even := overRounds(rounds[1:]); even.p50 != 1500*time.Microsecond || even.perSecond != 150 {
		t.Errorf("two rounds: p50 %v and %.0f req/s, want the means of the middle two, 1.5ms and 150", even.p50, even.perSecond)
	}
}
