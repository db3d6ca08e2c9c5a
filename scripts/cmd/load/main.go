// Command load measures the stages' servers, built by scripts/load.sh, over
// HTTP on loopback with vegeta's library. It starts every server (named by
// its file) on a free port of 127.0.0.1, checks that all give the same
// answers, then, round by round with the stages taking turns, runs a
// fixed-rate and a saturated test (see attack) of GET /users?role=R at the
// case study's two result sizes; round 0 is a warm-up. It writes NAME.txt per
// stage in Go benchmark format after the -header file's lines, and table.md,
// which it prints. Every server is stopped on every exit path, Ctrl-C included.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/perf/benchfmt"

	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stageserver"
)

type config struct {
	out, header, serverCPUs string
	rate, conns, rounds     int
	duration, warmup        time.Duration
	binaries                []string
}

func main() {
	cfg, err := parseArgs(os.Args[1:])
	if err == nil {
		// Ctrl-C or SIGTERM cancels ctx: the attack in progress stops, run's
		// deferred calls stop the servers, and the program exits non-zero.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err = run(ctx, cfg, os.Stdout, os.Stderr)
		stop()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func parseArgs(args []string) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.StringVar(&cfg.out, "out", "", "folder for the result files (required)")
	fs.StringVar(&cfg.header, "header", "", "file of `key: value` lines to start every result file with (required)")
	fs.IntVar(&cfg.rate, "rate", 100, "requests per second of the fixed-rate test")
	fs.DurationVar(&cfg.duration, "duration", 10*time.Second, "duration of each test in each round")
	fs.IntVar(&cfg.conns, "conns", 32, "connections of the saturated test")
	fs.DurationVar(&cfg.warmup, "warmup", 2*time.Second, "duration of the warm-up round")
	fs.IntVar(&cfg.rounds, "rounds", 1, "rounds: one benchstat sample per test and stage each")
	fs.StringVar(&cfg.serverCPUs, "server-cpus", "", "pin the servers to these CPUs with taskset (for example 0)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	// Bounds keep a typo from turning into an hour-long run or a flood.
	cfg.binaries = fs.Args()
	if cfg.out == "" || cfg.header == "" || len(cfg.binaries) == 0 || cfg.rate < 1 || cfg.rate > 50_000 ||
		cfg.duration < 100*time.Millisecond || cfg.duration > 5*time.Minute || cfg.warmup < 100*time.Millisecond ||
		cfg.warmup > time.Minute || cfg.conns < 1 || cfg.conns > 1024 || cfg.rounds < 1 || cfg.rounds > 20 {
		return cfg, fmt.Errorf("want -out, -header, server binaries, -rate 1 to 50000, -duration 100ms to 5m, " +
			"-warmup 100ms to 1m, -conns 1 to 1024, -rounds 1 to 20")
	}
	return cfg, nil
}

// run measures every stage and writes the results; see the package doc.
func run(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	progress := log.New(stderr, "", log.Ltime).Printf
	header, err := os.ReadFile(cfg.header)
	if err != nil {
		return err
	}
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
		s, err := stageserver.Start(filepath.Base(bin), bin, filepath.Join(cfg.out, filepath.Base(bin)+".log"), cfg.serverCPUs)
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
		if err := results.WriteFile(filepath.Join(cfg.out, name+".txt"), header, rs); err != nil {
			return err
		}
	}
	var table bytes.Buffer
	if err := writeTable(&table, cfg, header, measured); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%s", &table)
	return os.WriteFile(filepath.Join(cfg.out, "table.md"), table.Bytes(), 0o644)
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
