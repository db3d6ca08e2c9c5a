package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stageserver"
)

// roles are the case study's two result sizes, as in the in-process
// benchmarks: role=admin has exactly 100 users, role=editor 1,000.
var roles = []struct {
	name    string
	matches int
}{{"admin", 100}, {"editor", 1000}}

func listPath(role string) string { return "/users?role=" + url.QueryEscape(role) }

// test is one measurement that every stage goes through in every round.
type test struct {
	name      string // its benchmark name
	role      string
	saturated bool // closed loop; otherwise fixed rate
}

func tests(cfg config) []test {
	var ts []test
	for _, r := range roles {
		ts = append(ts, test{fixedRateName(cfg.rate, r.matches), r.name, false})
	}
	for _, r := range roles {
		ts = append(ts, test{saturatedName(cfg.conns, r.matches), r.name, true})
	}
	return ts
}

// run measures every stage and writes the results; see the package doc.
func run(ctx context.Context, cfg config, stages []stageBinary, stdout, progressOut io.Writer) error {
	p := &progress{w: progressOut, began: time.Now()}
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	header, err := resultHeader(cfg)
	if err != nil {
		return err
	}
	ts := tests(cfg)
	estimate := time.Duration(len(stages)) * (cfg.warmup + time.Duration(cfg.rounds*len(ts))*cfg.duration)
	p.printf("%d stages x %d tests x %d rounds of %v, about %v; %s",
		len(stages), len(ts), cfg.rounds, cfg.duration, estimate.Round(time.Second), cpuNote(cfg))

	// Every server runs for the whole measurement, so that the stages can
	// take turns: drift on this shared machine then hits them all alike.
	// Idle servers cost next to nothing.
	var servers []*stageserver.Server
	defer func() {
		for _, s := range servers {
			s.Stop()
		}
	}()
	for _, st := range stages {
		s, err := stageserver.Start(st.name, st.binary, filepath.Join(cfg.out, st.name+".log"), cfg.serverCPUs)
		if err != nil {
			return err
		}
		servers = append(servers, s)
		p.printf("started %s on %s", s.Name, s.URL)
	}
	lengths, err := checkAnswers(ctx, servers)
	if err != nil {
		return err
	}
	for _, s := range servers {
		p.printf("warming up %s for %v", s.Name, cfg.warmup)
		if err := warmUp(ctx, cfg, s, lengths); err != nil {
			return err
		}
	}

	perRound := map[string][]summary{}          // stage + " " + test name: one summary per round
	measured := map[string][]*benchfmt.Result{} // stage: one result per test and round
	turn := 0
	for round := 1; round <= cfg.rounds; round++ {
		for _, t := range ts {
			for k := range servers {
				s := servers[(turn+k)%len(servers)] // rotate who goes first
				key := s.Name + " " + t.name
				this := newTally(lengths[t.role])
				target := s.URL + listPath(t.role)
				if t.saturated {
					saturated(ctx, target, cfg.conns, cfg.duration, this)
				} else {
					fixedRate(ctx, target, cfg.rate, cfg.duration, this)
				}
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("interrupted during %s of %s: %w", t.name, s.Name, err)
				}
				sum := this.summary()
				perRound[key] = append(perRound[key], sum)
				if t.saturated {
					measured[s.Name] = append(measured[s.Name], saturatedResult(t.name, sum))
				} else {
					measured[s.Name] = append(measured[s.Name], fixedRateResult(t.name, sum))
				}
				p.printf("round %d/%d  %-15s %-45s %s", round, cfg.rounds, s.Name, t.name, describe(sum, t, cfg))
			}
			turn++
		}
	}
	for _, s := range servers {
		began := time.Now()
		s.Stop()
		p.printf("stopped %s in %v (%s)", s.Name, time.Since(began).Round(time.Millisecond), s.ExitState())
	}

	var rows []row
	for _, r := range roles {
		for _, s := range servers {
			rows = append(rows, row{
				stage:     s.Name,
				matches:   r.matches,
				fixed:     overRounds(perRound[s.Name+" "+fixedRateName(cfg.rate, r.matches)]),
				saturated: overRounds(perRound[s.Name+" "+saturatedName(cfg.conns, r.matches)]),
			})
		}
	}
	return writeResults(cfg, header, servers, measured, rows, stdout)
}

// checkAnswers fetches every role from every server once it answers, and
// checks that all stages give the same bytes and the expected number of
// users: the load test compares speeds, which means nothing if the answers
// differ. It returns each role's body size, which every answer under load
// must then have.
func checkAnswers(ctx context.Context, servers []*stageserver.Server) (map[string]int, error) {
	lengths := map[string]int{}
	first := map[string][]byte{}
	for _, s := range servers {
		for _, r := range roles {
			body, err := s.WaitReady(ctx, listPath(r.name))
			if err != nil {
				return nil, err
			}
			var users []json.RawMessage
			if err := json.Unmarshal(body, &users); err != nil || len(users) != r.matches {
				return nil, fmt.Errorf("%s: GET %s gave %d users (%v), want %d: not the default data set?",
					s.Name, listPath(r.name), len(users), err, r.matches)
			}
			if want, ok := first[r.name]; ok && !bytes.Equal(body, want) {
				return nil, fmt.Errorf("%s and %s answer GET %s with different bytes", servers[0].Name, s.Name, listPath(r.name))
			}
			first[r.name], lengths[r.name] = body, len(body)
		}
	}
	return lengths, nil
}

// warmUp sends the fixed rate to s for cfg.warmup, half to each role, so
// that connections are open and the heap has grown to its working size
// before anything is measured. Any error stops the run: a server that fails
// here would only produce meaningless numbers.
func warmUp(ctx context.Context, cfg config, s *stageserver.Server, lengths map[string]int) error {
	for _, r := range roles {
		t := newTally(lengths[r.name])
		fixedRate(ctx, s.URL+listPath(r.name), cfg.rate, cfg.warmup/time.Duration(len(roles)), t)
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted during the warm-up of %s: %w", s.Name, err)
		}
		if sum := t.summary(); sum.errors > 0 {
			return fmt.Errorf("%s failed %d of %d requests during the warm-up, the first with: %s",
				s.Name, sum.errors, sum.requests, sum.firstError)
		}
	}
	return nil
}

// describe is one progress line's result.
func describe(s summary, t test, cfg config) string {
	ok := 100.0
	if s.requests > 0 {
		ok = 100 * float64(s.requests-s.errors) / float64(s.requests)
	}
	d := fmt.Sprintf("p50 %s p99 %s", formatLatency(s.p50), formatLatency(s.p99))
	if t.saturated {
		d = fmt.Sprintf("%.0f req/s, %s", s.perSecond, d)
	} else {
		d += " max " + formatLatency(s.max)
		// An open-loop test is only one if the generator kept the rate.
		if s.sentPerSecond < 0.95*float64(cfg.rate) {
			d += fmt.Sprintf(" (sent only %.0f req/s)", s.sentPerSecond)
		}
	}
	d += fmt.Sprintf(", %d requests, %.2f%% ok", s.requests, ok)
	if s.errors > 0 {
		d += ", first error: " + s.firstError
	}
	return d
}

// resultHeader is the configuration every result file starts with: that
// of cfg.header (machine_info of scripts/lib.sh), then this run's.
func resultHeader(cfg config) ([]benchfmt.Config, error) {
	var header []benchfmt.Config
	if cfg.header != "" {
		var err error
		if header, err = results.ReadHeader(cfg.header); err != nil {
			return nil, err
		}
	}
	for _, kv := range [][2]string{
		{"load-generator", fmt.Sprintf("vegeta %s, on this machine, over loopback", vegetaVersion())},
		{"load-cpus", cpuNote(cfg)},
		{"load-fixed-rate", fmt.Sprintf("%d req/s for %v per round (open loop)", cfg.rate, cfg.duration)},
		{"load-saturated", fmt.Sprintf("%d connections for %v per round (closed loop)", cfg.conns, cfg.duration)},
		{"load-rounds", fmt.Sprintf("%d, stages interleaved, after a %v warm-up", cfg.rounds, cfg.warmup)},
	} {
		header = append(header, benchfmt.Config{Key: kv[0], Value: []byte(kv[1]), File: true})
	}
	return header, nil
}

// cpuNote says which cores the servers and the load generator ran on.
func cpuNote(cfg config) string {
	if cfg.serverCPUs == "" {
		return "not pinned: the load generator shares every core with the server"
	}
	return fmt.Sprintf("server pinned to CPU %s, load generator on CPU %s", cfg.serverCPUs, ownCPUs())
}

// ownCPUs is the list of CPUs this process may run on (Linux only).
func ownCPUs() string {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func vegetaVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "github.com/tsenart/vegeta/v12" {
				return m.Version
			}
		}
	}
	return "v12"
}

// writeResults writes one benchmark file per stage and table.md, and prints
// the table. The report adds where and when it was measured to the table.
func writeResults(cfg config, header []benchfmt.Config, servers []*stageserver.Server,
	measured map[string][]*benchfmt.Result, rows []row, stdout io.Writer) error {
	for _, s := range servers {
		if err := results.WriteFile(filepath.Join(cfg.out, s.Name+".txt"), header, measured[s.Name]); err != nil {
			return err
		}
	}
	caption := fmt.Sprintf("GET /users?role=R over loopback, 10,000 users, %d rounds. p50 to p99: the median over "+
		"the rounds of each round's latency percentile at a fixed %d req/s for %v (open loop), as benchstat and the "+
		"chart summarize the result files; max: the slowest request of all rounds; errors: failed requests of both "+
		"tests; saturated req/s: the median over the rounds of successful requests per second with %d connections "+
		"for %v (closed loop).", cfg.rounds, cfg.rate, cfg.duration, cfg.conns, cfg.duration)
	var md bytes.Buffer
	writeTable(&md, rows, true)
	fmt.Fprintf(&md, "\n%s\n\nLoad generator: vegeta %s on the same machine; %s.\n", caption, vegetaVersion(), cpuNote(cfg))
	if err := os.WriteFile(filepath.Join(cfg.out, "table.md"), md.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	writeTable(stdout, rows, false)
	fmt.Fprintf(stdout, "\n%s\n%s.\n", caption, cpuNote(cfg))
	return nil
}
