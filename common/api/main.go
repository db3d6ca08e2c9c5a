package api

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"example.com/userperf/common/user"
)

// Server timeouts. ReadHeaderTimeout stops slow-header clients from holding
// connections; WriteTimeout bounds a response (and so /debug/pprof/profile
// accepts at most 25 seconds).
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 60 * time.Second
	shutdownTimeout   = 10 * time.Second
)

// Main is the whole main function of a stage: it reads the flags, generates
// the users, and serves them until SIGINT or SIGTERM, then drains the
// requests in flight. Flags:
//
//	-addr   listen address (default 127.0.0.1:8080: loopback only)
//	-users  number of generated users (default 10000)
//	-seed   seed of the generated users (default user.DefaultSeed)
func Main(name string, newStage NewStage) {
	flags := flag.NewFlagSet(name, flag.ExitOnError)
	addr := flags.String("addr", "127.0.0.1:8080", "listen address")
	count := flags.Int("users", user.DefaultCount, fmt.Sprintf("number of generated users, %d to %d", user.MinCount, user.MaxCount))
	seed := flags.Uint64("seed", user.DefaultSeed, "seed of the generated users")
	flags.Parse(os.Args[1:])

	if err := run(name, *addr, *count, *seed, newStage); err != nil {
		log.Fatalf("%s: %v", name, err)
	}
}

func run(name, addr string, count int, seed uint64, newStage NewStage) error {
	users, err := user.Generate(count, seed)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Addr:              addr,
		Handler:           NewHandler(newStage(users)),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.ListenAndServe() }()
	log.Printf("%s: serving %d users (seed %d) on http://%s", name, count, seed, addr)

	select {
	case err := <-served:
		return err // the listener failed, for example: address in use
	case <-ctx.Done():
	}
	log.Printf("%s: shutting down", name)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
