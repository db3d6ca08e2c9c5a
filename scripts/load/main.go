// Command load measures each stage's server under HTTP load on 127.0.0.1,
// and the floor's.
//
// Usage:
//
//	go run ./scripts/load [flags] [STAGE...]
//
// Without a STAGE it loads every stage and the floor. Every server runs on
// loopback with the generated users for the whole measurement, and the
// servers take turns, so that a drift of the machine hits them all alike;
// the first stage's server runs twice, the second as FIRST.again: the A/A
// pair, whose noise band each step's verdict is held against. After a
// warm-up, each round runs six tests of --duration on each: reads at a
// fixed rate with 100 and with 1,000 users in the answer (p50, p95 and p99
// latency), reads as fast as the server answers (requests per second), and
// the fixed rate of reads with 10% and with 50% of the requests writes (the
// reads' p50 and p99). The flags are bounded, so that a typo cannot make an
// hour-long run or a flood. It writes results/load/<stamp>/, which
// results/load/latest names: STAGE.txt in Go's benchmark format, table.md
// with benchstat's tables of them, and STAGE.log, the server's output.
//
// The flags are:
//
//	--quick
//		A smoke run: tests of 0.5s, a shorter warm-up.
//	--rate N
//		Reads per second of the fixed-rate tests (default 100).
//	--duration D
//		The length of one test (default 2s).
//	--conns N
//		Connections of the saturated test (default 32).
//	--rounds N
//		Rounds of the six tests (default 6, the fewest for benchstat's intervals).
//	--pin
//		The server on CPU 0 and the load generator on CPU 1, with taskset (Linux).
//
// # Examples
//
//	go run ./scripts/load --quick stage0-linear floor
//	go run ./scripts/load --rounds 1
package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"log"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"golang.org/x/perf/benchfmt"

	"example.com/userperf/scripts/internal/figures"
	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
	"example.com/userperf/scripts/internal/stageserver"
)

// config is what the tests do, and against which servers.
type config struct {
	rate, conns, rounds int
	duration, warmup    time.Duration
	serverCPUs          string // taskset's CPU list for the servers, or none
	generator           string // the load generator and where it runs, for the caption
	binaries            []string
	stageColumns        bool // a column per stage, against the first: the stages were named to compare them
}

func main() {
	c := harness.New("load")
	cfg := config{rate: 100, conns: 32, rounds: 6, duration: 2 * time.Second, warmup: 2 * time.Second}
	var pin, quick bool
	var duration time.Duration
	c.Flags.BoolVar(&quick, "quick", false, "")
	// 100 req/s stays below what every stage can serve (stage0-linear spends milliseconds of CPU on a
	// role=editor request, beside vegeta): above it, a fixed-rate test measures the queue in front of the server.
	c.Flags.IntVar(&cfg.rate, "rate", cfg.rate, "")
	c.Flags.DurationVar(&duration, "duration", 0, "")
	c.Flags.IntVar(&cfg.conns, "conns", cfg.conns, "")
	c.Flags.IntVar(&cfg.rounds, "rounds", cfg.rounds, "")
	c.Flags.BoolVar(&pin, "pin", false, "")
	picked := c.Parse()
	if quick {
		cfg.duration, cfg.warmup = 500*time.Millisecond, time.Second
	}
	if cfg.duration = cmp.Or(duration, cfg.duration); !bounded(cfg) {
		c.Usage("want --rate 1 to 50000, --duration 100ms to 5m, --conns 1 to 1024, --rounds 1 to 20")
	}
	list, err := stages.Shown(c.Root)
	if len(picked) > 0 {
		list, err = stages.Find(c.Root, picked...)
		cfg.stageColumns = len(picked) > 1
	}
	if err != nil {
		c.Usage("%v", err)
	}
	cpus := "not pinned: the load generator shares every core with the server"
	if _, err := exec.LookPath("taskset"); pin && (err != nil || runtime.NumCPU() < 2) {
		fmt.Fprintln(os.Stderr, "load: --pin needs taskset and 2 CPUs, which this machine lacks: going on unpinned")
	} else if pin {
		cfg.serverCPUs, cpus = "0", "server pinned to CPU 0, load generator on CPU 1"
	}
	version, err := harness.GoOutput("list", "-m", "-f", "{{.Version}}", "github.com/tsenart/vegeta/v12")
	c.Fatal(err)
	generator := "vegeta " + strings.TrimSpace(version) + " on the same machine"
	cfg.generator = generator + "; " + cpus
	header := c.Header() + fmt.Sprintf("load-generator: %s\nload-cpus: %s\nload-settings: rate=%d/s conns=%d duration=%v rounds=%d warmup=%v\n",
		generator, cpus, cfg.rate, cfg.conns, cfg.duration, cfg.rounds, cfg.warmup)
	measurement := c.NewRun("load", cfg.rounds)
	c.Fatal(os.WriteFile(filepath.Join(measurement.Dir, "machine.txt"), []byte(header), 0o644))
	bin, err := os.MkdirTemp("", "userperf-servers-")
	c.Fatal(err)
	c.Cleanup(func() { os.RemoveAll(bin) }) // the binaries are only needed during the run
	build := []string{"build", "-o", bin + string(filepath.Separator)}
	for _, s := range list {
		build = append(build, "./"+s.Dir)
		cfg.binaries = append(cfg.binaries, filepath.Join(bin, filepath.Base(s.Dir)+map[bool]string{true: ".exe"}[runtime.GOOS == "windows"]))
	}
	fmt.Fprintf(os.Stderr, "== building %d servers\n", len(list))
	c.Fatal(harness.Go(build...))
	if cfg.serverCPUs != "" { // after the build, which takes every core
		// Every thread of this program to CPU 1; the threads it makes later inherit it.
		c.Fatal(exec.Command("taskset", "-a", "-p", "-c", "1", strconv.Itoa(os.Getpid())).Run())
		runtime.GOMAXPROCS(1)
	}
	fmt.Fprintf(os.Stderr, "== load test on 127.0.0.1, sharing this machine's %d cores with the servers\n", runtime.NumCPU())
	// Ctrl-C cancels ctx: the attack in progress stops, and run stops the servers before the command exits.
	ctx, cancel := context.WithCancel(context.Background())
	finished := make(chan struct{})
	c.Cleanup(func() { cancel(); <-finished })
	err = run(ctx, cfg, measurement.Dir, []byte(header), os.Stdout, os.Stderr)
	close(finished)
	c.Fatal(err)
	measurement.Keep()
	measured, err := results.Read(filepath.Join(measurement.Dir, name(cfg.binaries[0])+".txt"))
	c.Fatal(err)
	fmt.Printf("\n%s\nresults: %s (one .txt per stage in benchmark format, and table.md)\n",
		provenance.Line(measured.Config), measurement.Dir)
	c.Exit(0) // the clean-ups remove the binaries
}

// bounded keeps a typo from turning into an hour-long run or a flood.
func bounded(cfg config) bool {
	return cfg.rate >= 1 && cfg.rate <= 50_000 && cfg.duration >= 100*time.Millisecond && cfg.duration <= 5*time.Minute &&
		cfg.conns >= 1 && cfg.conns <= 1024 && cfg.rounds >= 1 && cfg.rounds <= 20
}

// name is the stage whose server binary is bin.
func name(bin string) string { return strings.TrimSuffix(filepath.Base(bin), ".exe") }

// run measures every server of cfg and writes the results into out.
func run(ctx context.Context, cfg config, out string, header []byte, stdout, stderr io.Writer) error {
	progress := log.New(stderr, "", log.Ltime).Printf
	ts := tests(cfg)
	progress("%d stages and an A/A pair x %d tests x %d rounds of %v after a warm-up, about %v", len(cfg.binaries), len(ts),
		cfg.rounds, cfg.duration, time.Duration(len(cfg.binaries)+1)*(cfg.warmup+time.Duration(cfg.rounds*len(ts))*cfg.duration))
	// Every server runs for the whole measurement, so that the stages can
	// take turns: drift on this shared machine then hits them all alike.
	var servers []*stageserver.Server
	defer func() {
		for _, s := range servers {
			progress("stopped %s (%v)", s.Name, s.Stop())
		}
	}()
	aa := name(cfg.binaries[0]) + ".again" // the A/A pair: the first stage's server, run twice
	for i, bin := range append(cfg.binaries, cfg.binaries[0]) {
		label := name(bin)
		if i == len(cfg.binaries) {
			label = aa
		}
		s, err := stageserver.Start(label, bin, filepath.Join(out, label+".log"), cfg.serverCPUs)
		if err != nil {
			return err
		}
		servers = append(servers, s)
	}
	bodies, err := answers(ctx, servers)
	if err != nil {
		return err
	}
	measured := map[string][]*benchfmt.Result{} // by stage: one result per test and round
	for round := range cfg.rounds + 1 {
		duration := cfg.duration
		if round == 0 { // the warm-up: connections opened, heaps grown to their working size
			duration = cfg.warmup / time.Duration(len(ts))
		}
		for i, t := range ts {
			for k := range servers {
				s := servers[(round*len(ts)+i+k)%len(servers)] // rotate who goes first
				reads, writes, err := attack(ctx, s.URL, t, cfg, duration, len(bodies[t.role.name]))
				if ctx.Err() != nil {
					return fmt.Errorf("interrupted during %s of %s: %w", t.name, s.Name, ctx.Err())
				} else if err != nil {
					return fmt.Errorf("%s, %s: %w", s.Name, t.name, err)
				}
				progress("round %d/%d %s %s: %s", round, cfg.rounds, s.Name, t.name, summary(reads, writes))
				if round > 0 {
					measured[s.Name] = append(measured[s.Name], result(t, reads, writes))
				} else if failed(reads) > 0 { // such a server would only give meaningless numbers
					return fmt.Errorf("%s failed during the warm-up", s.Name)
				}
			}
		}
	}
	return writeResults(cfg, out, header, measured, stdout)
}

// answers waits until every server answers and checks that they all give
// the first one's bytes for every role (the speeds of different answers
// mean nothing), and returns those bytes.
func answers(ctx context.Context, servers []*stageserver.Server) (map[string][]byte, error) {
	first := map[string][]byte{}
	for _, s := range servers {
		for _, r := range roles {
			body, err := s.WaitReady(ctx, listPath(r.name))
			if err != nil {
				return nil, err
			}
			if want, ok := first[r.name]; ok && !bytes.Equal(body, want) {
				return nil, fmt.Errorf("%s and %s answer GET %s with different bytes", servers[0].Name, s.Name, listPath(r.name))
			}
			first[r.name] = body
		}
	}
	return first, nil
}

// writeResults writes each stage's results and, as table.md, their tables (figures.LoadTables)
// and the caption that says what the tests did.
func writeResults(cfg config, out string, header []byte, measured map[string][]*benchfmt.Result, stdout io.Writer) error {
	if again := name(cfg.binaries[0]) + ".again"; len(measured[again]) > 0 { // before the tables, whose verdicts read it
		if err := results.WriteFile(filepath.Join(out, again+".txt"), header, measured[again]); err != nil {
			return err
		}
	}
	var files []*results.File
	for _, bin := range cfg.binaries {
		path := filepath.Join(out, name(bin)+".txt")
		if err := results.WriteFile(path, header, measured[name(bin)]); err != nil {
			return err
		}
		f, err := results.Read(path)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	tables, err := figures.LoadTables(files, cfg.stageColumns)
	if err != nil {
		return err
	}
	table := fmt.Sprintf("%s\n\n%s over loopback, 10,000 users, the median of %d rounds. HTTPFixedRate: %d reads/s "+
		"(open loop); HTTPMixed: the same with writes=W%% of the requests POSTs and DELETEs; HTTPSaturated: %d "+
		"connections (closed loop); %v each. errors: failed reads. Load generator: %s.\n",
		tables, figures.LoadCaption, cfg.rounds, cfg.rate, cfg.conns, cfg.duration, cfg.generator)
	fmt.Fprintf(stdout, "\n%s", table)
	return os.WriteFile(filepath.Join(out, "table.md"), []byte(table), 0o644)
}

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
	name      string // its benchmark name, without Benchmark; its settings are keys, for benchstat
	role      role
	saturated bool // closed loop; otherwise fixed rate
	writes    int  // percent of the requests, beside the fixed rate of reads
}

// tests are a round's tests. At 10% writes, in process, stage 2 stops
// paying against stage 1; at 50%, every step's lead shrinks.
func tests(cfg config) (ts []test) {
	for _, r := range roles {
		ts = append(ts, test{name: fmt.Sprintf("HTTPFixedRate/rate=%d/matches=%d", cfg.rate, r.matches), role: r})
	}
	for _, r := range roles {
		ts = append(ts, test{name: fmt.Sprintf("HTTPSaturated/conns=%d/matches=%d", cfg.conns, r.matches), role: r, saturated: true})
	}
	for _, w := range []int{10, 50} {
		ts = append(ts, test{name: fmt.Sprintf("HTTPMixed/rate=%d/matches=100/writes=%d", cfg.rate, w), role: roles[0], writes: w})
	}
	return ts
}

// attack sends test t's reads to base for duration (or two million requests,
// or until ctx is cancelled), at cfg.rate (open loop) or from cfg.conns
// workers (closed loop), with its writes beside them. A read is right only
// if it is a 200 with wantLength bytes: fast but wrong must not look fast.
func attack(ctx context.Context, base string, t test, cfg config, duration time.Duration, wantLength int) (reads, writes *vegeta.Metrics, err error) {
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
	reads, writes = &vegeta.Metrics{}, &vegeta.Metrics{}
	stop, wrote := make(chan struct{}), make(chan error, 1)
	go func() { wrote <- write(client, base, t, cfg, writes, stop) }()
	target := vegeta.NewStaticTargeter(vegeta.Target{Method: http.MethodGet, URL: base + listPath(t.role.name)})
	want := strconv.Itoa(wantLength)
	for r := range a.Attack(target, pacer, duration, "") {
		if got := r.Headers.Get("Content-Length"); r.Error == "" && got != want {
			r.Error, r.Code = "Content-Length "+got+", want "+want, 0 // code 0: a failure to vegeta
		}
		if reads.Add(r); reads.Requests == 2_000_000 {
			a.Stop()
		}
	}
	reads.Close()
	close(stop)
	return reads, writes, <-wrote
}

// failed is the number of requests not answered right.
func failed(m *vegeta.Metrics) uint64 { return m.Requests - uint64(m.StatusCodes["200"]) }

// write adds a user and deletes it, in turn, as BenchmarkMixed's client
// does, t.writes percent of all requests, until stop is closed; one at a
// time, so that a DELETE never overtakes its POST, and the last a DELETE,
// so that every test finds the store as it started.
func write(client *http.Client, base string, t test, cfg config, m *vegeta.Metrics, stop <-chan struct{}) error {
	defer m.Close()
	if t.writes == 0 {
		return nil
	}
	tick := time.NewTicker(time.Duration(100-t.writes) * time.Second / time.Duration(cfg.rate*t.writes))
	defer tick.Stop()
	for added := false; ; added = !added {
		select {
		case <-stop:
			if added {
				return send(client, base, added, m)
			}
			return nil
		case <-tick.C:
			if err := send(client, base, added, m); err != nil {
				return err
			}
		}
	}
}

// send POSTs a user in the three roles that most users hold, as
// BenchmarkWrite's users=10000/roles=3 does, or DELETEs it once added.
func send(client *http.Client, base string, added bool, m *vegeta.Metrics) error {
	method, path, want := http.MethodPost, "/users", http.StatusCreated
	body := `{"id":"load-mixed","name":"Load Mixed","email":"mixed@example.com","roles":["viewer","member","reader"]}`
	if added {
		method, path, body, want = http.MethodDelete, "/users/load-mixed", "", http.StatusNoContent
	}
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	m.Add(&vegeta.Result{Code: uint16(resp.StatusCode), Timestamp: start, Latency: time.Since(start)})
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %s", req.Method, req.URL, resp.Status)
	}
	return nil
}

// summary is what a test's reads and writes did, for the progress lines.
func summary(reads, writes *vegeta.Metrics) string {
	s := fmt.Sprintf("p50 %s p99 %s max %s, %d requests (%.0f/s sent, %.0f/s right), %d failed %q",
		latency(reads.Latencies.P50), latency(reads.Latencies.P99), latency(reads.Latencies.Max), reads.Requests,
		reads.Rate, reads.Throughput, failed(reads), reads.Errors[:min(1, len(reads.Errors))])
	if writes.Requests > 0 {
		s += fmt.Sprintf("; %d writes, p50 %s", writes.Requests, latency(writes.Latencies.P50))
	}
	return s
}

func latency(d time.Duration) string { return results.Duration(d.Seconds()) }

// result is one round of test t as a Go benchmark result: the iterations
// are the requests, latencies in nanoseconds, errors the failed reads.
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
