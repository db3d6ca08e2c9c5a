package api

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"example.com/userperf/common/api/guard"
	"example.com/userperf/common/user"
)

// Limits are what all requests together may make a server hold.
type Limits = guard.Limits

// DefaultLimits are the limits of Main, unless its flags say otherwise,
// and of NewHandler.
var DefaultLimits = guard.DefaultLimits

// Server timeouts. WriteTimeout bounds the building of an answer, and the
// minimum rate its sending (see guard.Writer). On SIGINT or SIGTERM the
// requests in flight get DrainTimeout to finish.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 10 * time.Second
	WriteTimeout      = 30 * time.Second
	IdleTimeout       = 60 * time.Second
	DrainTimeout      = 10 * time.Second
)

// Main is the whole main function of a stage (its flags: parseFlags and
// docs/api.md): it generates the users and serves them until SIGINT or
// SIGTERM, then lets the requests in flight finish for up to DrainTimeout
// (a second signal: at once), closes the connections still open, says how
// many it cut, and exits with status 0. Unless GOMEMLIMIT is set, it gives
// the garbage collector guard.MemoryLimit.
func Main(name string, newStage NewStage) {
	cfg, err := parseFlags(name, os.Args[1:], os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err != nil:
		os.Exit(2)
	}
	logger := log.New(os.Stderr, "", log.LstdFlags)
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(guard.MemoryLimit(cfg.limits))
	}
	srv, err := listen(cfg, newStage, logger)
	if err != nil {
		logger.Fatalf("%s: %v", name, err)
	}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	if err := srv.serve(signals); err != nil {
		logger.Fatalf("%s: %v", name, err)
	}
}

// config is what a stage's command line asks for.
type config struct {
	name      string
	addr      string // the API's
	pprofAddr string // the profiling pages' own, or "": on addr if that is loopback
	users     int
	limits    Limits
	seed      uint64
}

// errUsage says that the command line was refused, and why printed.
var errUsage = errors.New("usage error")

// parseFlags reads the command line args of the stage called name. On a
// mistake it prints why and the usage to stderr and returns errUsage.
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
	flags.Func("max-stored-mib", fmt.Sprintf("most `MiB` the stored users may count, each its JSON once, and once more and %d bytes per role "+
		"(default %d); a POST beyond it is refused with 409", guard.RoleBytes, DefaultLimits.MaxStoredBytes>>20), mebibytes(&cfg.limits.MaxStoredBytes))
	flags.Func("max-inflight-mib", fmt.Sprintf("most `MiB` of list answers being built or sent, and POST bodies being read, "+
		"at once (default %d); a request beyond it gets 503", DefaultLimits.MaxInFlightBytes>>20), mebibytes(&cfg.limits.MaxInFlightBytes))
	flags.Func("max-client-mib", "most `MiB` of those in flight that the requests of one client may hold at once "+
		"(default a quarter of -max-inflight-mib); a request beyond it gets 503, unless it is small", mebibytes(&cfg.limits.MaxClientBytes))
	flags.IntVar(&cfg.limits.MaxConns, "max-conns", DefaultLimits.MaxConns,
		"most connections served at once, the last eighth kept for clients that hold none; the next ones wait until one closes")
	flags.IntVar(&cfg.limits.MaxClientConns, "max-client-conns", 0,
		"most of those connections that one client may hold at once (default a quarter of -max-conns); "+
			"one beyond it gets 503 and is closed")
	flags.Uint64Var(&cfg.seed, "seed", user.DefaultSeed, "seed of the generated users")
	cfg.limits.MaxClientBytes = 0 // unless the flag is given: a quarter of -max-inflight-mib, below
	cfg.limits.MaxClientConns = 0
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, err
		}
		return config{}, errUsage // flag has printed the reason and the usage
	}
	if cfg.limits.MaxClientBytes == 0 {
		cfg.limits.MaxClientBytes = cfg.limits.MaxInFlightBytes / 4
	}
	if cfg.limits.MaxClientConns == 0 {
		cfg.limits.MaxClientConns = max(1, cfg.limits.MaxConns/4)
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
		// flag would ignore every flag after it without a word.
		return fmt.Errorf("unexpected argument %q: this command takes flags only", positional[0])
	case cfg.addr == "":
		return errors.New("-addr is empty; give host:port, for example 127.0.0.1:8080 (an empty address would listen on every interface)")
	case cfg.users < user.MinCount || cfg.users > user.MaxCount:
		return fmt.Errorf("-users %d is outside %d to %d", cfg.users, user.MinCount, user.MaxCount)
	case cfg.limits.MaxConns < 1:
		return fmt.Errorf("-max-conns %d is below 1: no request could be served", cfg.limits.MaxConns)
	case cfg.limits.MaxClientConns < 1 || cfg.limits.MaxClientConns > cfg.limits.MaxConns:
		return fmt.Errorf("-max-client-conns %d is outside 1 to -max-conns %d", cfg.limits.MaxClientConns, cfg.limits.MaxConns)
	case cfg.limits.MaxClientBytes > cfg.limits.MaxInFlightBytes:
		return fmt.Errorf("-max-client-mib %d is above -max-inflight-mib %d: no client could hold it",
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

// isLoopbackHost reports whether host names loopback; the address bound
// is checked again once the listener is open.
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isLoopbackAddr reports whether a listener's address is on loopback only.
func isLoopbackAddr(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// server is a stage's open listeners with the HTTP servers that will
// serve them: the API's, and the profiling pages' when they have their own.
type server struct {
	name      string
	log       *log.Logger
	drain     time.Duration // DrainTimeout, but in tests
	limits    Limits
	h         *handlers
	servers   []*http.Server
	listeners []*guard.Listener // listeners[i] is served by servers[i]
	open      atomic.Int64      // connections open on any of them
}

// listen generates the users and opens the listeners that cfg asks for.
func listen(cfg config, newStage NewStage, logger *log.Logger) (*server, error) {
	users, err := user.Generate(cfg.users, cfg.seed)
	if err != nil {
		return nil, err
	}
	api, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, err
	}
	var profiling net.Listener
	if cfg.pprofAddr != "" {
		if profiling, err = net.Listen("tcp", cfg.pprofAddr); err != nil {
			api.Close()
			return nil, err
		}
	}
	return newServer(cfg, newStage(users), users, api, profiling, logger)
}

// newServer prepares the serving of stage, built with users, on api, and
// of the profiling pages on profiling (nil: on api if that is loopback),
// and logs the addresses bound.
func newServer(cfg config, stage Stage, users []user.User, api, profiling net.Listener, logger *log.Logger) (*server, error) {
	h := newHandlers(stage, users, cfg.limits, logger)
	var refusal error
	switch {
	case profiling != nil && !isLoopbackAddr(profiling.Addr()):
		refusal = fmt.Errorf("-pprof-addr %s was bound to %s, which is not loopback", cfg.pprofAddr, profiling.Addr())
	case h.ledger.Stored() > cfg.limits.MaxStoredBytes:
		refusal = fmt.Errorf("the %d generated users count %d MiB, more than -max-stored-mib %d",
			len(users), h.ledger.Stored()>>20+1, cfg.limits.MaxStoredBytes>>20)
	}
	if refusal != nil {
		api.Close()
		if profiling != nil {
			profiling.Close()
		}
		return nil, refusal
	}
	s := &server{name: cfg.name, log: logger, drain: DrainTimeout, limits: cfg.limits, h: h}
	apiLoopback := isLoopbackAddr(api.Addr())

	apiHandler := newEcho()
	addAPIRoutes(apiHandler, h)
	logger.Printf("%s: serving %d users (seed %d) on http://%s; at most %d users, %d MiB stored, "+
		"%d MiB of lists and bodies in flight (%d KiB per client), %d connections (%d per client, "+
		"%d kept for clients that hold none); answers taken at %d KiB/s at least",
		cfg.name, len(users), cfg.seed, api.Addr(), cfg.limits.MaxUsers, cfg.limits.MaxStoredBytes>>20,
		cfg.limits.MaxInFlightBytes>>20, cfg.limits.MaxClientBytes>>10, cfg.limits.MaxConns, cfg.limits.MaxClientConns,
		cfg.limits.ConnReserve(), guard.MinRate>>10)
	switch {
	case profiling != nil:
		s.add(NewProfilingHandler(), profiling)
		logger.Printf("%s: profiling on http://%s/debug/pprof/", cfg.name, profiling.Addr())
	case apiLoopback:
		addProfilingRoutes(apiHandler)
		logger.Printf("%s: profiling on http://%s/debug/pprof/", cfg.name, api.Addr())
	default:
		logger.Printf("%s: profiling is not served: give -pprof-addr 127.0.0.1:6060 to serve it on loopback", cfg.name)
	}
	if !apiLoopback {
		logger.Printf("%s: WARNING: the API listens on %s, beyond loopback: anyone who can reach this machine "+
			"can read, add and delete its users, without authentication", cfg.name, api.Addr())
	}
	s.add(apiHandler, api)
	return s, nil
}

// add has h served on l with the project's timeouts and limits.
func (s *server) add(h http.Handler, l net.Listener) {
	s.servers = append(s.servers, &http.Server{
		Handler:           h,
		MaxHeaderBytes:    MaxHeaderBytes - HeaderReadSlack,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		ConnState:         s.countConn,
		ConnContext:       guard.ConnContext,
		ErrorLog:          s.log,
	})
	s.listeners = append(s.listeners, s.h.guard.Listen(l, s.limits))
}

// countConn keeps s.open up to date.
func (s *server) countConn(_ net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		s.open.Add(1)
	case http.StateClosed, http.StateHijacked:
		s.open.Add(-1)
	}
}

// serve serves until a listener fails, which it returns, or a signal
// arrives on signals. Then the requests in flight get s.drain to finish,
// and the connections still open after that, or at a second signal, are
// closed and counted in the log.
func (s *server) serve(signals <-chan os.Signal) error {
	served := make(chan error, len(s.servers))
	for i, srv := range s.servers {
		go func() { served <- srv.Serve(s.listeners[i]) }()
	}
	select {
	case err := <-served:
		s.closeAll()
		return err
	case sig := <-signals:
		s.log.Printf("%s: %v: letting the requests in flight finish for up to %v; a second signal stops at once", s.name, sig, s.drain)
	}

	ctx, cancel := context.WithTimeout(context.Background(), s.drain)
	defer cancel()
	go func() {
		select {
		case <-signals:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := s.shutdown(ctx); err != nil {
		cut := s.open.Load()
		s.h.guard.EndDrain()
		s.closeAll()
		why := fmt.Sprintf("after the %v drain", s.drain)
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			why = "at the second signal"
		}
		s.log.Printf("%s: cut %d connection(s) still open %s", s.name, cut, why)
	}
	var refusedConns, resetConns, queuedAnswered, queuedReset int64
	for _, l := range s.listeners {
		l.WaitRefusals()
		refusedConns += l.Refused.Load()
		resetConns += l.Unanswered.Load()
		queuedAnswered += l.QueuedAnswered.Load()
		queuedReset += l.QueuedReset.Load()
	}
	s.log.Printf("%s: the connections queued in the kernel at the signal: %d answered with 503, %d reset "+
		"(those taken after %v, or with %d refusals being written until then)",
		s.name, queuedAnswered, queuedReset, guard.DrainQueueTime, guard.MaxRefusing)
	// The answers that closeAll cut end as their writes fail: a moment to
	// count them.
	c := &s.h.guard.Answers
	for give := time.Now().Add(time.Second); c.InProgress() > 0 && time.Now().Before(give); {
		time.Sleep(10 * time.Millisecond)
	}
	s.log.Printf("%s: stopped; since it started, %d answer(s) were sent whole, %d cut (each logged above), "+
		"%d still being built and cut, %d not sent as their client had gone, %d refused with 503, "+
		"and %d connection(s) refused with 503 (for -max-client-conns, the reserve, or queued at shutdown) and %d reset unanswered",
		s.name, c.Finished.Load(), c.Cut.Load(), c.InProgress(), c.Gone.Load(), c.Refused.Load(), refusedConns, resetConns)
	for range s.servers {
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	return nil
}

// shutdown shuts every server down gracefully at once.
func (s *server) shutdown(ctx context.Context) error {
	errs := make([]error, len(s.servers))
	var wg sync.WaitGroup
	for i, srv := range s.servers {
		wg.Go(func() { errs[i] = srv.Shutdown(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// closeAll closes every listener and connection at once.
func (s *server) closeAll() {
	for _, srv := range s.servers {
		srv.Close()
	}
}
