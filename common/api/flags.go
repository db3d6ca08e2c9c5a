package api

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"

	"example.com/userperf/common/user"
)

// config is what a stage's command line asks for.
type config struct {
	name      string // the stage's name, for messages
	addr      string // the API's listen address
	pprofAddr string // the profiling endpoints' own listen address, or "": on the API's if that is loopback
	users     int    // generated users
	limits    Limits // what the store and the lists in flight may hold
	seed      uint64 // seed of the generated users
}

// errUsage is returned once the command line has been refused and the
// reason and the usage printed.
var errUsage = errors.New("usage error")

// parseFlags reads the command line args of the stage called name. On a
// mistake it prints why and the usage to stderr and returns errUsage; for
// -h it prints the usage and returns flag.ErrHelp.
func parseFlags(name string, args []string, stderr io.Writer) (config, error) {
	cfg := config{name: name, limits: DefaultLimits}
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s [flags]\n\nflags:\n", name)
		flags.PrintDefaults()
	}
	flags.StringVar(&cfg.addr, "addr", "127.0.0.1:8080",
		"`host:port` of the API; a host other than loopback serves it to the network, without authentication")
	flags.StringVar(&cfg.pprofAddr, "pprof-addr", "",
		"loopback `host:port` for /debug/pprof/ alone (default: on -addr if that is loopback, else not served)")
	flags.IntVar(&cfg.users, "users", user.DefaultCount,
		fmt.Sprintf("number of generated users, %d to %d", user.MinCount, user.MaxCount))
	flags.IntVar(&cfg.limits.MaxUsers, "max-users", DefaultLimits.MaxUsers,
		"most users the store may hold; a POST beyond it is refused with 409")
	flags.Func("max-stored-mib", fmt.Sprintf("most `MiB` the stored users may count, each its JSON once and once per role "+
		"(default %d); a POST beyond it is refused with 409", DefaultLimits.MaxStoredBytes>>20), mebibytes(&cfg.limits.MaxStoredBytes))
	flags.Func("max-inflight-mib", fmt.Sprintf("most `MiB` of list answers being built or sent, and POST bodies being read, "+
		"at once (default %d); a request beyond it gets 503", DefaultLimits.MaxInFlightBytes>>20), mebibytes(&cfg.limits.MaxInFlightBytes))
	flags.Func("client-share-mib", "most `MiB` of those in flight that the requests of one client address may hold at once "+
		"(default a quarter of -max-inflight-mib); a request beyond it gets 503, unless it is small", mebibytes(&cfg.limits.MaxClientBytes))
	flags.IntVar(&cfg.limits.MaxConns, "max-conns", DefaultLimits.MaxConns,
		"most connections served at once; the next ones wait until one closes")
	flags.IntVar(&cfg.limits.MaxClientConns, "client-conns", 0,
		"most of those connections that one client address may hold at once (default a quarter of -max-conns); "+
			"one beyond it gets 503 and is closed")
	flags.Uint64Var(&cfg.seed, "seed", user.DefaultSeed, "seed of the generated users")
	cfg.limits.MaxClientBytes = 0 // unless the flag is given: a quarter of the in-flight bytes, whatever they are
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, err
		}
		return config{}, errUsage // flag has printed the reason and the usage
	}
	if cfg.limits.MaxClientBytes == 0 {
		cfg.limits.MaxClientBytes = cfg.limits.MaxInFlightBytes / 4
	}
	if err := cfg.check(flags.Args()); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		flags.Usage()
		return config{}, errUsage
	}
	return cfg, nil
}

// mebibytes parses a flag's whole number of MiB, at least 1, into *bytes.
func mebibytes(bytes *int64) func(string) error {
	return func(s string) error {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 || n > 1<<20 {
			return errors.New("give a whole number of MiB from 1 to 1048576")
		}
		*bytes = n << 20
		return nil
	}
}

// check refuses a command line that would not do what it seems to ask.
func (cfg config) check(positional []string) error {
	switch {
	case len(positional) > 0:
		// flag stops at the first argument that is not a flag, so every
		// flag after it would be ignored without a word.
		return fmt.Errorf("unexpected argument %q: this command takes flags only", positional[0])
	case cfg.addr == "":
		return errors.New("-addr is empty; give host:port, for example 127.0.0.1:8080 (an empty address would listen on every interface)")
	case cfg.users < user.MinCount || cfg.users > user.MaxCount:
		return fmt.Errorf("-users %d is outside %d to %d", cfg.users, user.MinCount, user.MaxCount)
	case cfg.limits.MaxConns < 1:
		return fmt.Errorf("-max-conns %d is below 1: no request could be served", cfg.limits.MaxConns)
	case cfg.limits.MaxClientConns < 0 || cfg.limits.MaxClientConns > cfg.limits.MaxConns:
		return fmt.Errorf("-client-conns %d is outside 1 to -max-conns %d", cfg.limits.MaxClientConns, cfg.limits.MaxConns)
	case cfg.limits.MaxClientBytes > cfg.limits.MaxInFlightBytes:
		return fmt.Errorf("-client-share-mib %d is above -max-inflight-mib %d: no client could hold it",
			cfg.limits.MaxClientBytes>>20, cfg.limits.MaxInFlightBytes>>20)
	case cfg.limits.MaxUsers < cfg.users:
		return fmt.Errorf("-max-users %d is below -users %d: the generated users alone would break the limit", cfg.limits.MaxUsers, cfg.users)
	}
	if _, _, err := net.SplitHostPort(cfg.addr); err != nil {
		return fmt.Errorf("-addr %q is not host:port", cfg.addr)
	}
	if cfg.pprofAddr != "" {
		host, _, err := net.SplitHostPort(cfg.pprofAddr)
		if err != nil {
			return fmt.Errorf("-pprof-addr %q is not host:port", cfg.pprofAddr)
		}
		if !isLoopbackHost(host) {
			return fmt.Errorf("-pprof-addr %q is not a loopback address: the profiles show the command line, "+
				"source paths and every goroutine's stack, so they are served on 127.0.0.1, ::1 or localhost only", cfg.pprofAddr)
		}
	}
	return nil
}

// isLoopbackHost reports whether host names the loopback interface.
// localhost counts; the address actually bound is checked again once the
// listener is open.
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isLoopbackAddr reports whether a listener's address is on loopback only.
// An unspecified address (0.0.0.0, ::, or no host at all) is every
// interface, so it is not.
func isLoopbackAddr(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
