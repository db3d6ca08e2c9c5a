package api

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"example.com/userperf/common/user"
)

// server is a stage's open listeners with the HTTP servers that will serve
// them: the API's, and the profiling endpoints' when they have their own.
type server struct {
	name         string
	log          *log.Logger
	drain        time.Duration // how long requests in flight may take to finish after a signal
	writeTimeout time.Duration
	maxConns     int // connections each listener serves at once
	h            *handlers
	servers      []*http.Server
	listeners    []*clientListener // listeners[i] is served by servers[i]
	open         atomic.Int64      // connections open on any of the listeners
	refusedConns atomic.Int64      // connections refused for their client's share
	pace         *pace             // the least progress an answer must make; a test may change it before serving
}

// listen generates the users and opens the listeners that cfg asks for.
// It logs where it serves only once every listener is open, so that an
// address that cannot be bound is reported as that and nothing else.
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

// newServer prepares the serving of stage, built with users, on the
// listener api, and of the profiling endpoints on the listener profiling
// (nil: on api if that is loopback, else nowhere), and logs what it will
// serve where. It takes the listeners' word for their addresses, so that
// "localhost" or a port of 0 is reported as what was bound.
func newServer(cfg config, stage Stage, users []user.User, api, profiling net.Listener, logger *log.Logger) (*server, error) {
	h := newHandlers(stage, users, cfg.limits, logger)
	var refusal error
	switch {
	case profiling != nil && !isLoopbackAddr(profiling.Addr()):
		refusal = fmt.Errorf("-pprof-addr %s was bound to %s, which is not loopback", cfg.pprofAddr, profiling.Addr())
	case h.ledger.stored > cfg.limits.MaxStoredBytes:
		refusal = fmt.Errorf("the %d generated users count %d MiB, more than -max-stored-mib %d",
			len(users), h.ledger.stored>>20+1, cfg.limits.MaxStoredBytes>>20)
	}
	if refusal != nil {
		api.Close()
		if profiling != nil {
			profiling.Close()
		}
		return nil, refusal
	}
	s := &server{name: cfg.name, log: logger, drain: drainTimeout, writeTimeout: writeTimeout(cfg.limits),
		maxConns: cfg.limits.MaxConns, h: h, pace: &h.pace}
	apiLoopback := isLoopbackAddr(api.Addr())

	apiHandler := newEcho()
	addAPIRoutes(apiHandler, h)
	logger.Printf("%s: serving %d users (seed %d) on http://%s; at most %d users, %d MiB stored, "+
		"%d MiB of lists and bodies in flight (%d KiB per client address), %d connections (%d per client address)",
		cfg.name, len(users), cfg.seed, api.Addr(), cfg.limits.MaxUsers, cfg.limits.MaxStoredBytes>>20,
		cfg.limits.MaxInFlightBytes>>20, cfg.limits.MaxClientBytes>>10, cfg.limits.MaxConns, cfg.limits.connShare())
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

// add has h served on l with the project's timeouts and limits. l serves
// at most s.maxConns connections at once, and one client a share of them
// (see clientListener).
func (s *server) add(h http.Handler, l net.Listener) {
	s.servers = append(s.servers, &http.Server{
		Handler:           h,
		MaxHeaderBytes:    MaxHeaderBytes - headerReadSlack,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      s.writeTimeout,
		IdleTimeout:       idleTimeout,
		ConnState:         s.countConn,
		ConnContext:       clientContext,
		ErrorLog:          s.log,
	})
	s.listeners = append(s.listeners, newClientListener(l, s.maxConns, s.h.clients, &s.refusedConns))
}

// countConn keeps s.open up to date: every connection starts New and ends
// Closed or Hijacked, once each.
func (s *server) countConn(_ net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		s.open.Add(1)
	case http.StateClosed, http.StateHijacked:
		s.open.Add(-1)
	}
}

// serve serves until a listener fails, which it returns, or a signal
// arrives on signals. Then it drains: the servers stop accepting, idle
// connections are closed, and the requests in flight get s.drain to finish.
// The connections still open after that, or at a second signal, are closed
// and counted in the log. A shutdown is no failure: serve returns nil.
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
		s.h.closing.Store(true)
		s.closeAll()
		why := fmt.Sprintf("after the %v drain", s.drain)
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			why = "at the second signal"
		}
		s.log.Printf("%s: cut %d connection(s) still open %s", s.name, cut, why)
	}
	// The answers that closeAll cut end as their writes fail: they are
	// given a moment to be counted, and those still being built then are
	// counted as what they are.
	for _, l := range s.listeners {
		l.refusing.Wait() // each ends within its deadline
	}
	c := &s.h.counts
	for give := time.Now().Add(time.Second); c.inProgress() > 0 && time.Now().Before(give); {
		time.Sleep(10 * time.Millisecond)
	}
	s.log.Printf("%s: stopped; since it started, %d answer(s) were sent whole, %d cut (each logged above), "+
		"%d still being built and cut, %d not sent as their client had gone, %d refused with 503, "+
		"and %d connection(s) refused with 503 (for their address's share, or queued at shutdown)",
		s.name, c.finished.Load(), c.cut.Load(), c.inProgress(), c.gone.Load(), c.refused.Load(), s.refusedConns.Load())
	for range s.servers {
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	return nil
}

// shutdown shuts every server down gracefully at once, and returns an
// error if ctx ends before they are all done.
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
