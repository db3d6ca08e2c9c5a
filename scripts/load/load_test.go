package main

import (
	"bytes"
	"context"
	"flag"
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

	"example.com/userperf/scripts/internal/stageserver"
)

// The tests attack only servers on 127.0.0.1, for a few hundred
// milliseconds each, and check what the results say, never how fast.

// TestMain lets the test binary stand in for a stage's server: started with
// LOAD_TEST_SERVER set, it serves fake user lists on its -addr instead of
// running the tests. Modes: "serve"; "ignore-term", which must be killed;
// "fail", which exits at once, as a server whose port is taken does.
func TestMain(m *testing.M) {
	mode := os.Getenv("LOAD_TEST_SERVER")
	if mode == "" {
		os.Exit(m.Run())
	}
	addr := flag.String("addr", "", "listen address")
	flag.Parse()
	if dir := os.Getenv("LOAD_TEST_PIDS"); dir != "" {
		os.WriteFile(filepath.Join(dir, strconv.Itoa(os.Getpid())), nil, 0o644)
	}
	switch mode {
	case "fail":
		os.Exit(3)
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
	}
	lists := map[string][]byte{"admin": fakeList(100), "editor": fakeList(1000)}
	http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(lists[r.URL.Query().Get("role")]))) // as the API does
		w.Write(lists[r.URL.Query().Get("role")])
	}))
}

func fakeList(n int) []byte {
	return []byte("[" + strings.Repeat(`{"id":"u0000001"},`, n-1) + `{"id":"u0000001"}]`)
}

func startFake(t *testing.T, mode string) *stageserver.Server {
	t.Setenv("LOAD_TEST_SERVER", mode)
	s, err := stageserver.Start("fake-"+mode, os.Args[0], filepath.Join(t.TempDir(), "server.log"), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}

var quick = config{rate: 100, conns: 2}

func TestAttackCountsOnlyRightAnswersAsSuccesses(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) % 3 { // one request at a time: a closed loop of one connection
		case 0:
			w.Write([]byte("[]")) // a 200 of the wrong size
		case 1:
			http.Error(w, "boom", http.StatusInternalServerError)
		default:
			w.Write([]byte("[1,2]"))
		}
	}))
	defer srv.Close()
	m := attack(context.Background(), srv.URL, test{saturated: true}, config{conns: 1}, 200*time.Millisecond, len("[1,2]"))
	if m.Requests < 3 {
		t.Fatalf("only %d requests", m.Requests)
	}
	if right := (m.Requests + 1) / 3; m.Requests-failed(m) != right {
		t.Errorf("%d requests, %d failed: want %d right answers", m.Requests, failed(m), right)
	}
	if !slices.ContainsFunc(m.Errors, func(e string) bool { return strings.Contains(e, "Content-Length 2, want 5") }) {
		t.Errorf("errors %q do not name the wrong size", m.Errors)
	}
}

func TestFixedRateSetsThePaceAndResultsParse(t *testing.T) {
	body := fakeList(100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	ts := tests(quick)
	m := attack(context.Background(), srv.URL, ts[0], quick, 300*time.Millisecond, len(body))
	// 100 req/s for 300 ms is about 30 requests, whatever the server's speed.
	if m.Requests < 20 || m.Requests > 40 || failed(m) != 0 {
		t.Errorf("fixed rate of 100/s for 300ms: %d requests, %d failed; want about 30 and none", m.Requests, failed(m))
	}
	var file bytes.Buffer
	benchfmt.NewWriter(&file).Write(result(ts[0], m))
	r := benchfmt.NewReader(&file, "stage.txt")
	if !r.Scan() {
		t.Fatal(r.Err())
	}
	got, ok := r.Result().(*benchfmt.Result)
	p50, _ := got.Value("p50-sec")
	p99, _ := got.Value("p99-sec")
	if !ok || string(got.Name) != "HTTPFixedRate/rate=100/matches=100" || !(0 < p50 && p50 <= p99) {
		t.Errorf("read back %+v: p50 %v, p99 %v", r.Result(), p50, p99)
	}
}

func TestAttackStopsWhenCancelled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	done := make(chan struct{})
	go func() {
		attack(ctx, srv.URL, test{saturated: true}, quick, time.Minute, 0)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second): // a hang fails, not a slowness
		t.Fatal("a cancelled attack of one minute did not stop")
	}
}

func TestServerThatExitsIsReported(t *testing.T) {
	_, err := startFake(t, "fail").WaitReady(context.Background(), listPath("admin"))
	if err == nil || !strings.Contains(err.Error(), "exited before answering (exit status 3)") {
		t.Errorf("WaitReady: %v, want that the server exited", err)
	}
}

func TestTableTakesMediansAndDividesByTheFloor(t *testing.T) {
	cfg := config{rate: 100, conns: 2, rounds: 3, binaries: []string{"bin/a", "bin/floor"}}
	ts := tests(cfg)
	// One round: every test, the fixed-rate ones with these latencies, the
	// saturated ones with this throughput, each with errs failed requests.
	round := func(p50, max, errs, perSecond float64) (rs []*benchfmt.Result) {
		v := func(x float64, unit string) benchfmt.Value { return benchfmt.Value{Value: x, Unit: unit} }
		for _, t := range ts {
			values := []benchfmt.Value{v(p50, "p50-ns"), v(p50, "p95-ns"), v(p50, "p99-ns"), v(max, "max-ns"), v(errs, "errors")}
			if t.saturated {
				values = []benchfmt.Value{v(perSecond, "req/s"), v(errs, "errors")}
			}
			rs = append(rs, &benchfmt.Result{Name: benchfmt.Name(t.name), Values: values})
		}
		return rs
	}
	measured := map[string][]*benchfmt.Result{
		"a":     slices.Concat(round(3e6, 4e6, 1, 300), round(1e6, 9e6, 0, 100), round(2e6, 2e6, 1, 200)),
		"floor": slices.Concat(round(1e6, 1e6, 0, 900), round(5e5, 1e6, 0, 900), round(1e6, 1e6, 0, 900)),
	}
	table := markdown(cfg, measured)
	var row []string
	for _, line := range strings.Split(table, "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 2 && strings.TrimSpace(cells[1]) == "a" {
			row = cells[1 : len(cells)-1]
			for i := range row {
				row[i] = strings.TrimSpace(row[i])
			}
			break
		}
	}
	// stage, matches, p50, p95, p99, max, errors, saturated req/s, p50 ÷ floor
	want := []string{"a", "100", "2.000ms", "2.000ms", "2.000ms", "9.000ms", "4", "200", "2.00x"}
	if !slices.Equal(row, want) {
		t.Errorf("row of a: %q, want %q, in\n%s", row, want, table)
	}
}

func TestBoundsRejectUnboundedRuns(t *testing.T) {
	good := config{rate: 100, conns: 32, rounds: 1, duration: time.Second}
	if err := bounded(good); err != nil {
		t.Fatalf("a good configuration refused: %v", err)
	}
	for _, change := range []func(*config){func(c *config) { c.duration = time.Hour }, func(c *config) { c.rate = 0 },
		func(c *config) { c.conns = 100_000 }, func(c *config) { c.rounds = 50 }} {
		bad := good
		if change(&bad); bounded(bad) == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}
