package main

import (
	"example.com/userperf/scripts/internal/figures"

	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"golang.org/x/perf/benchfmt"

	"example.com/userperf/common/user"
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
	http.ListenAndServe(*addr, newFakeAPI())
}

// fakeAPI serves fake user lists, and POST and DELETE of users into a
// store of their ids, answering them as the API does.
type fakeAPI struct {
	lists  map[string][]byte
	mu     sync.Mutex
	stored map[string]bool
}

func newFakeAPI() *fakeAPI {
	return &fakeAPI{lists: map[string][]byte{"admin": fakeList(100), "editor": fakeList(1000)}, stored: map[string]bool{}}
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch id := strings.TrimPrefix(r.URL.Path, "/users/"); r.Method {
	case http.MethodPost:
		var u struct{ ID string }
		if err := json.NewDecoder(r.Body).Decode(&u); err != nil || f.stored[u.ID] {
			http.Error(w, "refused", http.StatusConflict)
			return
		}
		f.stored[u.ID] = true
		w.WriteHeader(http.StatusCreated)
	case http.MethodDelete:
		if !f.stored[id] {
			http.NotFound(w, r)
			return
		}
		delete(f.stored, id)
		w.WriteHeader(http.StatusNoContent)
	default:
		list := f.lists[r.URL.Query().Get("role")]
		w.Header().Set("Content-Length", strconv.Itoa(len(list)))
		w.Write(list)
	}
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
	m, _, err := attack(context.Background(), srv.URL, test{saturated: true}, config{conns: 1}, 200*time.Millisecond, len("[1,2]"))
	if err != nil {
		t.Fatal(err)
	}
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
	m, writes, err := attack(context.Background(), srv.URL, ts[0], quick, 300*time.Millisecond, len(body))
	// 100 req/s for 300 ms is about 30 requests, whatever the server's speed.
	if m.Requests < 20 || m.Requests > 40 || failed(m) != 0 || writes.Requests != 0 || err != nil {
		t.Errorf("fixed rate of 100/s for 300ms: %d requests, %d failed; want about 30 and none", m.Requests, failed(m))
	}
	var file bytes.Buffer
	benchfmt.NewWriter(&file).Write(result(ts[0], m, writes))
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
		attack(ctx, srv.URL, test{saturated: true}, quick, time.Minute, 0) // what it measured does not matter
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

func TestMixedWritesLeaveTheStoreAsItStarted(t *testing.T) {
	api := newFakeAPI()
	srv := httptest.NewServer(api)
	defer srv.Close()
	mixed := tests(quick)[len(tests(quick))-1]
	if mixed.writes != 50 {
		t.Fatalf("the last test is %+v, want the mixed one with 50%% writes", mixed)
	}
	// 100 reads/s and as many writes for 500 ms: about 50 of each.
	reads, writes, err := attack(context.Background(), srv.URL, mixed, quick, 500*time.Millisecond, len(fakeList(100)))
	if err != nil {
		t.Fatal(err)
	}
	posts, deletes := writes.StatusCodes["201"], writes.StatusCodes["204"]
	// The writes go one at a time: fewer if they are slow, as under the race detector.
	if reads.Requests < 35 || reads.Requests > 65 || failed(reads) > 0 || posts < 5 || posts > 33 || deletes != posts {
		t.Errorf("%d reads (%d failed), %d POSTs and %d DELETEs; want about 50 reads, all right, and up to 25 of each write",
			reads.Requests, failed(reads), posts, deletes)
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	if len(api.stored) != 0 {
		t.Errorf("after the attack the store holds %d users, want none", len(api.stored))
	}
	r := result(mixed, reads, writes)
	if p50, ok := r.Value("write-p50-ns"); string(r.Name) != "HTTPMixed/rate=100/matches=100/writes=50" || !ok || p50 <= 0 {
		t.Errorf("result %s, write p50 %v", r.Name, p50)
	}
}

func TestFailedWriteIsAnError(t *testing.T) {
	api := newFakeAPI()
	api.stored["load-mixed"] = true // the first POST finds its user there
	srv := httptest.NewServer(api)
	defer srv.Close()
	_, _, err := attack(context.Background(), srv.URL, tests(quick)[4], quick, 300*time.Millisecond, len(fakeList(100)))
	if err == nil || !strings.Contains(err.Error(), "POST "+srv.URL+"/users: 409 Conflict") {
		t.Errorf("attack with a refused POST: %v, want that the POST failed", err)
	}
}

// TestMixedWritesHoldTheMostHeldRoles checks the roles of the mixed test's
// POST against the generated users, as BenchmarkWrite chooses them.
func TestMixedWritesHoldTheMostHeldRoles(t *testing.T) {
	count := map[string]int{}
	for _, u := range user.MustGenerate(user.DefaultCount, user.DefaultSeed) {
		for _, r := range u.Roles {
			count[r]++
		}
	}
	held := slices.Collect(maps.Keys(count))
	slices.SortFunc(held, func(a, b string) int { return cmp.Or(count[b]-count[a], strings.Compare(a, b)) })
	var posted struct{ Roles []string }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&posted)
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	if err := send(srv.Client(), srv.URL, false, &vegeta.Metrics{}); err != nil || !slices.Equal(posted.Roles, held[:3]) {
		t.Errorf("POST (%v) with roles %q: want %q", err, posted.Roles, held[:3])
	}
}

func TestBoundsRejectUnboundedRuns(t *testing.T) {
	good := config{rate: 100, conns: 32, rounds: 1, duration: time.Second}
	if !bounded(good) {
		t.Fatalf("a good configuration refused: %+v", good)
	}
	for _, change := range []func(*config){func(c *config) { c.duration = time.Hour }, func(c *config) { c.rate = 0 },
		func(c *config) { c.conns = 100_000 }, func(c *config) { c.rounds = 50 }} {
		bad := good
		if change(&bad); bounded(bad) {
			t.Errorf("accepted %+v", bad)
		}
	}
}

// Stages named to be compared are the table's columns, each against the first;
// every stage's table has a row per stage and a column per test.
func TestTableColumns(t *testing.T) {
	measured := rounds(figures.MinSamples)
	for _, byStage := range []bool{false, true} {
		var stdout bytes.Buffer
		cfg := config{rounds: figures.MinSamples, rate: 50, binaries: []string{"bin/stage0-linear", "bin/stage1-index"}, stageColumns: byStage}
		if err := writeResults(cfg, t.TempDir(), []byte("machine-cores: 2\n"), measured, &stdout); err != nil {
			t.Fatal(err)
		}
		header := ""
		for _, l := range strings.Split(stdout.String(), "\n") {
			if strings.Contains(l, "vs base") {
				header = l
				break
			}
		}
		// benchstat compares each column with the first: stages, or one test with another.
		lines := strings.Split(stdout.String(), "\n")
		columns := lines[max(0, slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "│") }))]
		if got := strings.Contains(columns, "stage1-index"); got != byStage || header == "" {
			t.Errorf("stage columns %v: the first header line is %q (vs base in %q)\n%s", byStage, columns, header, &stdout)
		}
	}
}

// rounds are n rounds of the fixed-rate tests of two stages.
func rounds(n int) map[string][]*benchfmt.Result {
	measured := map[string][]*benchfmt.Result{}
	for stage, sec := range map[string]float64{"stage0-linear": 0.004, "stage1-index": 0.001} {
		for _, matches := range []int{100, 1000} {
			for i := range n {
				measured[stage] = append(measured[stage], &benchfmt.Result{Name: benchfmt.Name(fmt.Sprintf("HTTPFixedRate/rate=50/matches=%d", matches)),
					Iters: 1, Values: []benchfmt.Value{{Value: sec * float64(matches) / 100 * (1 + float64(i)/100), Unit: "p50-sec"}}})
			}
		}
	}
	return measured
}

// Fewer rounds than a confidence interval needs: the medians alone, with no interval
// (benchstat's "± ∞") and no test ("~ (p=1.000 n=1)") that so few samples cannot give.
func TestFewRoundsShowMediansAlone(t *testing.T) {
	var stdout bytes.Buffer
	cfg := config{rounds: 1, rate: 50, binaries: []string{"bin/stage0-linear", "bin/stage1-index"}}
	if err := writeResults(cfg, t.TempDir(), []byte("machine-cores: 2\n"), rounds(1), &stdout); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	for _, want := range []string{"| p50-sec | HTTPFixedRate/rate=50/matches=100 | HTTPFixedRate/rate=50/matches=1000 |",
		"| stage0-linear | 4.000ms | 40.00ms |", "| stage1-index | 1.000ms | 10.00ms |", "medians alone"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "±") || strings.Contains(out, "p=") {
		t.Errorf("a statistic of one sample:\n%s", out)
	}
}
