// Command load measures the stages' servers over HTTP on loopback with
// vegeta's library, for scripts/load.sh, which builds the servers and passes
// them as NAME=BINARY arguments:
//
//	load -out DIR [-header FILE] [-rate 100] [-duration 10s] [-conns 32]
//	     [-warmup 2s] [-rounds 1] [-server-cpus LIST] NAME=BINARY...
//
// It starts every server on a free port of 127.0.0.1, checks that they all
// give the same answers, warms them up, and then runs, round by round and
// with the stages interleaved, two tests of GET /users?role=R for the two
// result sizes of the case study (role=admin, 100 users; role=editor, 1,000):
//
//   - fixed rate (open loop): -rate requests per second for -duration,
//     giving latency percentiles;
//   - saturated (closed loop): -conns connections, each sending its next
//     request when the last is answered, for -duration, giving requests
//     per second.
//
// It writes DIR/NAME.txt per stage in Go benchmark format (the -header
// file's "key: value" lines first), DIR/table.md, and prints the table.
// Every server is stopped on every exit path, Ctrl-C included.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// config holds the settings of one run.
type config struct {
	out, header      string
	rate             int
	duration, warmup time.Duration
	conns, rounds    int
	serverCPUs       string // a taskset CPU list, or "" for no pinning
}

// stageBinary is a server binary to measure and the stage it serves.
type stageBinary struct{ name, binary string }

func main() {
	cfg, stages, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	// Ctrl-C or SIGTERM cancels ctx: the attack in progress stops, run's
	// deferred calls stop the servers, and the program exits non-zero.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = run(ctx, cfg, stages, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func parseArgs(args []string) (config, []stageBinary, error) {
	var cfg config
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.StringVar(&cfg.out, "out", "", "folder for the result files (required)")
	fs.StringVar(&cfg.header, "header", "", "file of `key: value` lines to start every result file with")
	fs.IntVar(&cfg.rate, "rate", 100, "requests per second of the fixed-rate test")
	fs.DurationVar(&cfg.duration, "duration", 10*time.Second, "duration of each test in each round")
	fs.IntVar(&cfg.conns, "conns", 32, "connections of the saturation test")
	fs.DurationVar(&cfg.warmup, "warmup", 2*time.Second, "warm-up of each server, at the fixed rate")
	fs.IntVar(&cfg.rounds, "rounds", 1, "rounds: one benchstat sample per test and stage each")
	fs.StringVar(&cfg.serverCPUs, "server-cpus", "", "pin the servers to these CPUs with taskset (for example 0)")
	if err := fs.Parse(args); err != nil {
		return cfg, nil, err
	}
	// Bounds keep a typo from turning into an hour-long run or a flood.
	switch {
	case cfg.out == "":
		return cfg, nil, fmt.Errorf("-out is required")
	case cfg.rate < 1 || cfg.rate > 50_000:
		return cfg, nil, fmt.Errorf("-rate %d: want 1 to 50000 requests per second", cfg.rate)
	case cfg.duration < 100*time.Millisecond || cfg.duration > 5*time.Minute:
		return cfg, nil, fmt.Errorf("-duration %v: want 100ms to 5m", cfg.duration)
	case cfg.warmup < 0 || cfg.warmup > time.Minute:
		return cfg, nil, fmt.Errorf("-warmup %v: want 0 to 1m", cfg.warmup)
	case cfg.conns < 1 || cfg.conns > 1024:
		return cfg, nil, fmt.Errorf("-conns %d: want 1 to 1024", cfg.conns)
	case cfg.rounds < 1 || cfg.rounds > 20:
		return cfg, nil, fmt.Errorf("-rounds %d: want 1 to 20", cfg.rounds)
	case fs.NArg() == 0:
		return cfg, nil, fmt.Errorf("no stage given: pass NAME=BINARY arguments")
	}
	var stages []stageBinary
	for _, arg := range fs.Args() {
		name, binary, ok := strings.Cut(arg, "=")
		if !ok || name == "" || binary == "" {
			return cfg, nil, fmt.Errorf("argument %q: want NAME=BINARY", arg)
		}
		stages = append(stages, stageBinary{name, binary})
	}
	return cfg, stages, nil
}

// progress prints what the run is doing, with the time since it began.
type progress struct {
	w     io.Writer
	began time.Time
}

func (p *progress) printf(format string, args ...any) {
	e := time.Since(p.began).Round(time.Second)
	fmt.Fprintf(p.w, "[%dm%02ds] %s\n", int(e.Minutes()), int(e.Seconds())%60, fmt.Sprintf(format, args...))
}
