package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"golang.org/x/perf/benchfmt"
)

// role is one of the case study's two result sizes: role=admin has exactly
// 100 users, role=editor 1,000.
type role struct {
	name    string
	matches int
}

var roles = []role{{"admin", 100}, {"editor", 1000}}

func listPath(role string) string { return "/users?role=" + url.QueryEscape(role) }

// test is one measurement that every stage goes through in every round.
type test struct {
	name      string // its benchmark name, without the Benchmark prefix
	role      role
	saturated bool // closed loop; otherwise fixed rate
	writes    int  // percent of the requests that are writes, beside the fixed rate of reads
}

// mixedWrites are the mixed tests' shares of writes: in process, stage 2
// stops paying against stage 1 at 10%, and at 50% every step's lead shrinks.
var mixedWrites = []int{10, 50}

// tests are the tests of one round; their settings are sub-benchmark keys,
// so that benchstat can group and filter by them.
func tests(cfg config) (ts []test) {
	for _, r := range roles {
		ts = append(ts, test{name: fmt.Sprintf("HTTPFixedRate/rate=%d/matches=%d", cfg.rate, r.matches), role: r})
	}
	for _, r := range roles {
		ts = append(ts, test{name: fmt.Sprintf("HTTPSaturated/conns=%d/matches=%d", cfg.conns, r.matches), role: r, saturated: true})
	}
	for _, w := range mixedWrites {
		ts = append(ts, test{name: fmt.Sprintf("HTTPMixed/rate=%d/matches=100/writes=%d", cfg.rate, w), role: roles[0], writes: w})
	}
	return ts
}

// attack sends test t to the server at base for duration (or two million
// requests, or until ctx is cancelled) and returns the metrics of its reads
// and of its writes. Fixed rate: reads at cfg.rate (open loop), and writes on
// top, t.writes percent of all requests. Saturated: reads from cfg.conns
// workers (closed loop). A failed write, or a user it leaves, is an error.
func attack(ctx context.Context, base string, t test, cfg config, duration time.Duration, wantLength int) (reads, writes *vegeta.Metrics, err error) {
	// Unlike vegeta's, this client closes its connections when the attack
	// ends: one left open, even unused, holds up the server's shutdown.
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 10_000}}
	defer client.CloseIdleConnections()
	// MaxBody(0): vegeta drains each body without copying it, to take as
	// little CPU as it can from the server; Content-Length gives the size.
	opts := []func(*vegeta.Attacker){vegeta.Client(client), vegeta.MaxBody(0)}
	var pacer vegeta.Pacer = vegeta.ConstantPacer{Freq: cfg.rate * 100, Per: time.Duration(100-t.writes) * time.Second}
	if t.saturated {
		opts = append(opts, vegeta.Workers(uint64(cfg.conns)), vegeta.MaxWorkers(uint64(cfg.conns)))
		pacer = vegeta.ConstantPacer{} // no pacing: as fast as the workers go
	}
	a := vegeta.NewAttacker(opts...)
	defer context.AfterFunc(ctx, func() { a.Stop() })()
	m := &mix{users: base + "/users", read: base + listPath(t.role.name), writes: t.writes}
	reads, writes = &vegeta.Metrics{}, &vegeta.Metrics{}
	for r := range a.Attack(m.next, pacer, duration, "") {
		check(r, strconv.Itoa(wantLength))
		into := reads
		if r.Method != http.MethodGet {
			into = writes
		}
		if into.Add(r); reads.Requests+writes.Requests == 2_000_000 {
			a.Stop()
		}
	}
	reads.Close()
	writes.Close()
	if failed(writes) > 0 {
		return reads, writes, fmt.Errorf("%d of %d writes failed: %q", failed(writes), writes.Requests, writes.Errors)
	}
	return reads, writes, m.deleteStored(client)
}

// check makes a wrong answer a failure (code 0, as vegeta marks one): a read
// must be a 200 of the right answer's size, for fast but wrong must not
// look fast; a POST must be a 201 and a DELETE a 204.
func check(r *vegeta.Result, wantLength string) {
	want := map[string]uint16{http.MethodGet: 200, http.MethodPost: 201, http.MethodDelete: 204}[r.Method]
	switch got := r.Headers.Get("Content-Length"); {
	case r.Code != want && r.Code != 0: // an answer, but not the right one
		r.Error, r.Code = fmt.Sprintf("%s %s: %d, want %d", r.Method, r.URL, r.Code, want), 0
	case r.Error == "" && r.Method == http.MethodGet && got != wantLength:
		r.Error, r.Code = "Content-Length "+got+", want "+wantLength, 0
	}
}

// failed is the number of requests not answered right.
func failed(m *vegeta.Metrics) uint64 {
	return m.Requests - uint64(m.StatusCodes["200"]+m.StatusCodes["201"]+m.StatusCodes["204"])
}

// ring is how many users the writes of a mixed test hold at most. A user's
// DELETE follows its POST ring writes later, and the next POST of its id
// ring writes after that: sent back to back, the two could overtake each
// other on their way through the server.
const ring = 50

// mix is the stream of a test's requests: the n-th is a write when
// n*writes/100 steps up, which spreads the writes evenly, as BenchmarkMixed
// does. The writes POST each of the ring's users, then DELETE each.
type mix struct {
	users, read string // the URLs of POST /users and of the reads
	writes      int    // percent
	mu          sync.Mutex
	n, written  int // requests and writes so far
}

// next is the mix's vegeta.Targeter, which vegeta's workers call at once.
func (m *mix) next(t *vegeta.Target) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.n++
	if m.n*m.writes/100 == (m.n-1)*m.writes/100 {
		*t = vegeta.Target{Method: http.MethodGet, URL: m.read}
		return nil
	}
	slot := m.written % (2 * ring)
	m.written++
	id := userID(slot % ring)
	if slot >= ring {
		*t = vegeta.Target{Method: http.MethodDelete, URL: m.users + "/" + id}
		return nil
	}
	// The three roles that most users hold, as BenchmarkWrite's users=10000/roles=3.
	body := fmt.Sprintf(`{"id":%q,"name":"Load Mixed","email":"mixed@example.com","roles":["viewer","member","reader"]}`, id)
	*t = vegeta.Target{Method: http.MethodPost, URL: m.users, Body: []byte(body)}
	return nil
}

func userID(k int) string { return "load-mixed-" + strconv.Itoa(k) }

// stored are the users that the writes so far have added and not deleted.
func (m *mix) stored() (ids []string) {
	slot := m.written % (2 * ring)
	for k := range ring {
		if k < slot && k+ring >= slot {
			ids = append(ids, userID(k))
		}
	}
	return ids
}

// deleteStored deletes the users that the attack left, so that every test
// finds the store as it started.
func (m *mix) deleteStored(client *http.Client) error {
	for _, id := range m.stored() {
		req, err := http.NewRequest(http.MethodDelete, m.users+"/"+id, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			return fmt.Errorf("DELETE %s after the attack: %s", req.URL, resp.Status)
		}
	}
	return nil
}

// result is one round of test t as a Go benchmark result: the iterations
// are the requests sent, latencies are in nanoseconds (benchstat shows them
// as seconds), and errors counts the failed reads.
func result(t test, reads, writes *vegeta.Metrics) *benchfmt.Result {
	ns := func(d time.Duration, unit string) benchfmt.Value {
		return benchfmt.Value{Value: float64(d.Nanoseconds()), Unit: unit}
	}
	errors, l := benchfmt.Value{Value: float64(failed(reads)), Unit: "errors"}, reads.Latencies
	values := []benchfmt.Value{ns(l.P50, "p50-ns"), ns(l.P95, "p95-ns"), ns(l.P99, "p99-ns"), ns(l.Max, "max-ns"), errors}
	if t.saturated {
		values = []benchfmt.Value{{Value: math.Round(reads.Throughput*10) / 10, Unit: "req/s"}, ns(l.P50, "p50-ns"), ns(l.P99, "p99-ns"), errors}
	} else if t.writes > 0 {
		values = []benchfmt.Value{ns(l.P50, "p50-ns"), ns(l.P99, "p99-ns"), ns(writes.Latencies.P50, "write-p50-ns"), errors}
	}
	return &benchfmt.Result{Name: benchfmt.Name(t.name), Iters: int(reads.Requests + writes.Requests), Values: values}
}
