package main

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// requestTimeout bounds one request. A healthy stage answers in
// milliseconds; a request that takes this long counts as an error.
const requestTimeout = 5 * time.Second

// maxSaturatedRequests bounds a closed-loop attack in requests as well as
// in time, whatever -duration says.
const maxSaturatedRequests = 2_000_000

// fixedRate is the open-loop test: requests leave at rate per second for
// duration whether or not the earlier ones have been answered, as requests
// from many independent users would. vegeta adds workers when the server
// falls behind, so a slow server shows up as latency, not as a lower rate.
func fixedRate(ctx context.Context, url string, rate int, duration time.Duration, into ...*tally) {
	client := newClient()
	defer client.CloseIdleConnections()
	a := vegeta.NewAttacker(vegeta.Client(client), vegeta.MaxBody(0))
	attack(ctx, a, url, vegeta.ConstantPacer{Freq: rate, Per: time.Second}, duration, into)
}

// saturated is the closed-loop test: conns workers, each with its own
// keep-alive connection, send a request as soon as their previous one is
// answered, for duration or maxSaturatedRequests requests. The server's
// speed sets the rate; its requests per second are the throughput.
func saturated(ctx context.Context, url string, conns int, duration time.Duration, into ...*tally) {
	client := newClient()
	defer client.CloseIdleConnections()
	a := vegeta.NewAttacker(vegeta.Client(client), vegeta.MaxBody(0),
		vegeta.Workers(uint64(conns)), vegeta.MaxWorkers(uint64(conns)))
	attack(ctx, a, url, unpaced{maxSaturatedRequests}, duration, into)
}

// newClient is the HTTP client of one attack. Unlike vegeta's default it
// never goes through a proxy (the target is on loopback), and its attack
// closes its connections when it ends: a connection left open, even one
// that was dialled and never used, holds up the server's graceful shutdown.
// Every connection is kept alive between requests, as vegeta's default does.
func newClient() *http.Client {
	return &http.Client{
		Timeout: requestTimeout,
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: requestTimeout}).DialContext,
			MaxIdleConnsPerHost: 10_000,
		},
	}
}

// unpaced is a vegeta.Pacer that never waits, as vegeta -rate=0 does, and
// stops after max requests.
type unpaced struct{ max uint64 }

func (u unpaced) Pace(_ time.Duration, hits uint64) (time.Duration, bool) { return 0, hits >= u.max }

func (u unpaced) Rate(time.Duration) float64 { return 0 }

// attack runs a until duration is over, the pacer stops it or ctx is
// cancelled (Ctrl-C), and adds every result to each tally of into.
//
// MaxBody(0) keeps no body: vegeta drains each response without copying
// it, so that the load generator takes as little CPU as it can from the
// server it shares the machine with. The size is checked through
// Content-Length instead, and a body cut short is a read error.
func attack(ctx context.Context, a *vegeta.Attacker, url string, p vegeta.Pacer, duration time.Duration, into []*tally) {
	stop := context.AfterFunc(ctx, func() { a.Stop() })
	defer stop()
	targeter := vegeta.NewStaticTargeter(vegeta.Target{Method: http.MethodGet, URL: url})
	began := time.Now()
	for r := range a.Attack(targeter, p, duration, "") {
		for _, tl := range into {
			tl.add(r)
		}
	}
	for _, tl := range into {
		tl.elapsed += time.Since(began)
	}
}

// tally collects the results of one attack.
type tally struct {
	wantLength string
	metrics    vegeta.Metrics // latencies of every request, failed ones included
	ok         uint64
	elapsed    time.Duration // wall time of the attacks, from start to last answer
	firstError string
}

// newTally returns an empty tally of answers whose body must be wantLength
// bytes long.
func newTally(wantLength int) *tally {
	return &tally{wantLength: strconv.Itoa(wantLength)}
}

// add counts r as successful only if it is a 200 with a body of exactly the
// expected size: a stage that answers fast but wrong must not look fast.
func (tl *tally) add(r *vegeta.Result) {
	tl.metrics.Add(r)
	why := r.Error
	switch {
	case why != "":
	case r.Code != http.StatusOK:
		why = "status " + strconv.Itoa(int(r.Code))
	case r.Headers.Get("Content-Length") != tl.wantLength:
		why = "Content-Length " + r.Headers.Get("Content-Length") + ", want " + tl.wantLength
	default:
		tl.ok++
		return
	}
	if tl.firstError == "" {
		tl.firstError = why
	}
}

// summary is what a tally measured.
type summary struct {
	requests           uint64
	errors             uint64 // failed requests: see tally.add
	p50, p95, p99, max time.Duration
	perSecond          float64 // successful requests per second of wall time
	sentPerSecond      float64 // requests sent per second, as vegeta counts them
	firstError         string
}

func (tl *tally) summary() summary {
	m := &tl.metrics
	m.Close()
	s := summary{
		requests:      m.Requests,
		errors:        m.Requests - tl.ok,
		p50:           m.Latencies.P50,
		p95:           m.Latencies.P95,
		p99:           m.Latencies.P99,
		max:           m.Latencies.Max,
		firstError:    tl.firstError,
		sentPerSecond: m.Rate,
	}
	if tl.elapsed > 0 {
		s.perSecond = float64(tl.ok) / tl.elapsed.Seconds()
	}
	return s
}
