package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"golang.org/x/perf/benchfmt"

	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
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
}

// tests are the tests of one round, fixed-rate then saturated; their settings
// are sub-benchmark keys, so that benchstat can group and filter by them.
func tests(cfg config) (ts []test) {
	for _, r := range roles {
		ts = append(ts, test{fmt.Sprintf("HTTPFixedRate/rate=%d/matches=%d", cfg.rate, r.matches), r, false})
	}
	for _, r := range roles {
		ts = append(ts, test{fmt.Sprintf("HTTPSaturated/conns=%d/matches=%d", cfg.conns, r.matches), r, true})
	}
	return ts
}

// attack sends test t to the server at base for duration (or two million
// requests, or until ctx is cancelled): at cfg.rate (open loop), or
// saturated, from cfg.conns workers (closed loop). An answer is right only
// if it is a 200 with wantLength bytes: fast but wrong must not look fast.
func attack(ctx context.Context, base string, t test, cfg config, duration time.Duration, wantLength int) *vegeta.Metrics {
	// Unlike vegeta's, this client closes its connections when the attack
	// ends: one left open, even unused, holds up the server's shutdown.
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 10_000}}
	defer client.CloseIdleConnections()
	// MaxBody(0): vegeta drains each body without copying it, to take as
	// little CPU as it can from the server; Content-Length gives the size.
	opts := []func(*vegeta.Attacker){vegeta.Client(client), vegeta.MaxBody(0)}
	var pacer vegeta.Pacer = vegeta.ConstantPacer{Freq: cfg.rate, Per: time.Second}
	if t.saturated {
		opts = append(opts, vegeta.Workers(uint64(cfg.conns)), vegeta.MaxWorkers(uint64(cfg.conns)))
		pacer = vegeta.ConstantPacer{} // no pacing: as fast as the workers go
	}
	a := vegeta.NewAttacker(opts...)
	defer context.AfterFunc(ctx, func() { a.Stop() })()
	target := vegeta.NewStaticTargeter(vegeta.Target{Method: http.MethodGet, URL: base + listPath(t.role.name)})
	want := strconv.Itoa(wantLength)
	var m vegeta.Metrics
	for r := range a.Attack(target, pacer, duration, "") {
		if got := r.Headers.Get("Content-Length"); r.Error == "" && got != want {
			r.Error, r.Code = "Content-Length "+got+", want "+want, 0 // code 0: a failure to vegeta
		}
		if m.Add(r); m.Requests == 2_000_000 {
			a.Stop()
		}
	}
	m.Close()
	return &m
}

// failed is the number of requests not answered right.
func failed(m *vegeta.Metrics) uint64 { return m.Requests - uint64(m.StatusCodes["200"]) }

func latency(d time.Duration) string { return results.Duration(d.Seconds()) }

// result is one round of test t as a Go benchmark result: the iterations
// are the requests sent, latencies are in nanoseconds (benchstat shows them
// as seconds), and errors counts the failed requests.
func result(t test, m *vegeta.Metrics) *benchfmt.Result {
	ns := func(d time.Duration, unit string) benchfmt.Value {
		return benchfmt.Value{Value: float64(d.Nanoseconds()), Unit: unit}
	}
	errors, l := benchfmt.Value{Value: float64(failed(m)), Unit: "errors"}, m.Latencies
	values := []benchfmt.Value{ns(l.P50, "p50-ns"), ns(l.P95, "p95-ns"), ns(l.P99, "p99-ns"), ns(l.Max, "max-ns"), errors}
	if t.saturated {
		values = []benchfmt.Value{{Value: math.Round(m.Throughput*10) / 10, Unit: "req/s"}, ns(l.P50, "p50-ns"), ns(l.P99, "p99-ns"), errors}
	}
	return &benchfmt.Result{Name: benchfmt.Name(t.name), Iters: int(m.Requests), Values: values}
}

// values are the values of unit in every round of bench.
func values(rounds []*benchfmt.Result, bench, unit string) (vs []float64) {
	for _, r := range rounds {
		if v, ok := r.Value(unit); ok && string(r.Name) == bench {
			vs = append(vs, v)
		}
	}
	return vs
}

// overRounds is the median over the rounds, as benchstat summarizes a result file.
func overRounds(rs []*benchfmt.Result, bench, unit string) float64 {
	return results.Median(values(rs, bench, unit))
}

// markdown is a run's table and its caption; with the floor, a last column
// says how far each stage's p50 is from this HTTP path's limit.
func markdown(cfg config, measured map[string][]*benchfmt.Result) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 1, ' ', 0)
	line := func(cells ...string) { fmt.Fprintln(tw, "| "+strings.Join(cells, "\t| ")+"\t|") }
	columns := []string{"stage", "matches", "p50", "p95", "p99", "max", "errors", "saturated req/s"}
	floor, withFloor := measured[stages.Floor]
	if withFloor {
		columns = append(columns, "p50 ÷ floor")
	}
	line(columns...)
	line(append([]string{"---"}, slices.Repeat([]string{"---:"}, len(columns)-1)...)...)
	ts := tests(cfg)
	for i, r := range roles {
		open, closed := ts[i].name, ts[len(roles)+i].name
		for _, bin := range cfg.binaries {
			rs := measured[name(bin)]
			ns := func(unit string) string { return latency(time.Duration(overRounds(rs, open, unit))) }
			errors := 0.0
			for _, v := range append(values(rs, open, "errors"), values(rs, closed, "errors")...) {
				errors += v
			}
			cells := []string{name(bin), strconv.Itoa(r.matches), ns("p50-ns"), ns("p95-ns"), ns("p99-ns"),
				latency(time.Duration(slices.Max(values(rs, open, "max-ns")))),
				fmt.Sprint(errors), fmt.Sprintf("%.0f", overRounds(rs, closed, "req/s"))}
			if withFloor {
				cells = append(cells, fmt.Sprintf("%.2fx", overRounds(rs, open, "p50-ns")/overRounds(floor, open, "p50-ns")))
			}
			line(cells...)
		}
	}
	tw.Flush() // into a strings.Builder, which cannot fail
	fmt.Fprintf(&b, "\nGET /users?role=R over loopback, 10,000 users, %d rounds. p50 to p99: the median over "+
		"the rounds of each round's latency percentile at a fixed %d req/s for %v (open loop), as benchstat and the "+
		"chart summarize the result files; max: the slowest request of all rounds; errors: failed requests of both "+
		"tests; saturated req/s: the median over the rounds of successful requests per second with %d connections "+
		"for %v (closed loop).\n\nLoad generator: %s.\n", cfg.rounds, cfg.rate, cfg.duration, cfg.conns, cfg.duration, cfg.generator)
	return b.String()
}
