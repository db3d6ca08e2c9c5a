// Command load measures every stage's server under HTTP load on loopback;
// the usage below says how.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
	"example.com/userperf/scripts/internal/stageserver"
)

const usage = `
load: every stage's server under HTTP load on 127.0.0.1, and the floor.

  go run ./scripts/load                              every stage and the floor (about 45 s per stage)
  go run ./scripts/load --quick stage0-linear floor  2 s per test: a smoke run
  go run ./scripts/load --rounds 6                   enough samples for benchstat's confidence intervals

Options: --rate N (fixed-rate test, requests/s, default 100), --duration D (each test, each round,
default 10s), --conns N (saturated test, default 32), --rounds N (default 1), --pin / --no-pin (server
on CPU 0, load generator on CPU 1, with taskset where there is one; default --no-pin).

Writes results/load/<stamp>/ (and points results/load/latest at it): <stage>.txt in Go benchmark
format, for benchstat, table.md and <stage>.log (the server's output).
`

// config is what the tests do, and against which servers.
type config struct {
	rate, conns, rounds int
	duration, warmup    time.Duration
	serverCPUs          string // taskset's CPU list for the servers, or none
	generator           string // the load generator and where it runs, for the caption
	binaries            []string
}

func main() {
	c := harness.New("load", usage)
	cfg := config{duration: 10 * time.Second, warmup: 2 * time.Second}
	var pin bool // the last of --pin and --no-pin wins
	c.Flags.BoolFunc("quick", "", func(string) error { cfg.duration, cfg.warmup = 2*time.Second, time.Second; return nil })
	// 100 req/s stays below what every stage can serve (stage0-linear spends milliseconds of CPU on a
	// role=editor request, beside vegeta): above it, a fixed-rate test measures the queue in front of the server.
	c.Flags.IntVar(&cfg.rate, "rate", 100, "")
	c.Flags.DurationVar(&cfg.duration, "duration", cfg.duration, "")
	c.Flags.IntVar(&cfg.conns, "conns", 32, "")
	c.Flags.IntVar(&cfg.rounds, "rounds", 1, "")
	c.Flags.BoolFunc("pin", "", func(string) error { pin = true; return nil })
	c.Flags.BoolFunc("no-pin", "", func(string) error { pin = false; return nil })
	picked := c.Parse()
	if err := bounded(cfg); err != nil {
		c.Usage("%v", err)
	}
	list, err := stages.Shown(c.Root)
	if len(picked) > 0 {
		list, err = stages.Find(c.Root, picked...)
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
	vegeta, err := harness.GoOutput("list", "-m", "-f", "{{.Version}}", "github.com/tsenart/vegeta/v12")
	c.Fatal(err)
	generator := "vegeta " + strings.TrimSpace(vegeta) + " on the same machine"
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
	// Ctrl-C cancels ctx: the attack in progress stops, and run stops the
	// servers before the command exits.
	ctx, cancel := context.WithCancel(context.Background())
	finished := make(chan struct{})
	c.Cleanup(func() { cancel(); <-finished })
	err = run(ctx, cfg, measurement.Dir, []byte(header), os.Stdout, os.Stderr)
	close(finished)
	c.Fatal(err)
	measurement.Keep()
	measured, err := results.Read(filepath.Join(measurement.Dir, name(cfg.binaries[0])+".txt"))
	c.Fatal(err)
	fmt.Printf("\n%s\nresults: %s (one .txt per stage in benchmark format, table.md)\n",
		provenance.Line(measured.Config), measurement.Dir)
	c.Exit(0) // the clean-ups remove the binaries
}

// bounded keeps a typo from turning into an hour-long run or a flood.
func bounded(cfg config) error {
	if cfg.rate < 1 || cfg.rate > 50_000 || cfg.duration < 100*time.Millisecond || cfg.duration > 5*time.Minute ||
		cfg.conns < 1 || cfg.conns > 1024 || cfg.rounds < 1 || cfg.rounds > 20 {
		return fmt.Errorf("want --rate 1 to 50000, --duration 100ms to 5m, --conns 1 to 1024, --rounds 1 to 20")
	}
	return nil
}

// name is the stage whose server binary is bin.
func name(bin string) string { return strings.TrimSuffix(filepath.Base(bin), ".exe") }

// run measures every server of cfg, each stage's, and writes the results
// into out, each file after header; see the usage.
func run(ctx context.Context, cfg config, out string, header []byte, stdout, stderr io.Writer) error {
	progress := log.New(stderr, "", log.Ltime).Printf
	ts := tests(cfg)
	progress("%d stages x %d tests x %d rounds of %v after a warm-up, about %v", len(cfg.binaries), len(ts),
		cfg.rounds, cfg.duration, time.Duration(len(cfg.binaries))*(cfg.warmup+time.Duration(cfg.rounds*len(ts))*cfg.duration))

	// Every server runs for the whole measurement, so that the stages can
	// take turns: drift on this shared machine then hits them all alike.
	var servers []*stageserver.Server
	defer func() {
		for _, s := range servers {
			progress("stopped %s (%v)", s.Name, s.Stop())
		}
	}()
	for _, bin := range cfg.binaries {
		s, err := stageserver.Start(name(bin), bin, filepath.Join(out, name(bin)+".log"), cfg.serverCPUs)
		if err != nil {
			return err
		}
		servers = append(servers, s)
		progress("started %s on %s", s.Name, s.URL)
	}
	lengths, err := checkAnswers(ctx, servers)
	if err != nil {
		return err
	}
	measured := map[string][]*benchfmt.Result{} // by stage: one result per test and round
	turn := 0
	for round := 0; round <= cfg.rounds; round++ {
		duration := cfg.duration
		if round == 0 { // the warm-up: connections opened, heaps grown to their working size
			duration = cfg.warmup / time.Duration(len(ts))
		}
		for _, t := range ts {
			for k := range servers {
				s := servers[(turn+k)%len(servers)] // rotate who goes first
				m := attack(ctx, s.URL, t, cfg, duration, lengths[t.role.name])
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("interrupted during %s of %s: %w", t.name, s.Name, err)
				}
				progress("round %d/%d %s %s: p50 %s p99 %s max %s, %d requests (%.0f/s sent, %.0f/s right), %d failed %q",
					round, cfg.rounds, s.Name, t.name, latency(m.Latencies.P50), latency(m.Latencies.P99),
					latency(m.Latencies.Max), m.Requests, m.Rate, m.Throughput, failed(m), m.Errors[:min(1, len(m.Errors))])
				if round > 0 {
					measured[s.Name] = append(measured[s.Name], result(t, m))
				} else if failed(m) > 0 { // such a server would only give meaningless numbers
					return fmt.Errorf("%s failed during the warm-up", s.Name)
				}
			}
			turn++
		}
	}

	for name, rs := range measured {
		if err := results.WriteFile(filepath.Join(out, name+".txt"), header, rs); err != nil {
			return err
		}
	}
	table := markdown(cfg, measured)
	fmt.Fprintf(stdout, "\n%s", table)
	return os.WriteFile(filepath.Join(out, "table.md"), []byte(table), 0o644)
}

// checkAnswers checks that all servers give the same bytes, with the expected
// users, for every role (the speeds of different answers mean nothing), and
// returns each role's body size.
func checkAnswers(ctx context.Context, servers []*stageserver.Server) (map[string]int, error) {
	lengths, first := map[string]int{}, map[string][]byte{}
	for _, s := range servers {
		for _, r := range roles {
			body, err := s.WaitReady(ctx, listPath(r.name))
			if err != nil {
				return nil, err
			}
			var users []json.RawMessage
			if err := json.Unmarshal(body, &users); err != nil || len(users) != r.matches {
				return nil, fmt.Errorf("%s: GET %s gave %d users (%v), want %d", s.Name, listPath(r.name), len(users), err, r.matches)
			}
			if want, ok := first[r.name]; ok && !bytes.Equal(body, want) {
				return nil, fmt.Errorf("%s and %s answer GET %s with different bytes", servers[0].Name, s.Name, listPath(r.name))
			}
			first[r.name], lengths[r.name] = body, len(body)
		}
	}
	return lengths, nil
}
