package api

import (
	"errors"
	"flag"
	"log"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"
)

// Server timeouts. ReadHeaderTimeout stops slow-header clients from holding
// connections, and ReadTimeout slow bodies (answered with 408). The write
// timeout (see writeTimeout) bounds the writing of a response; a profiling
// request extends its own write deadline by the profile's duration
// (net/http/pprof does), which MaxProfileSeconds bounds. On SIGINT or
// SIGTERM the requests in flight get drainTimeout to finish; the
// connections still open then are closed.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	baseWriteTimeout  = 30 * time.Second
	idleTimeout       = 60 * time.Second
	drainTimeout      = 10 * time.Second
)

// minSendRate is the slowest reader that still gets the largest list
// whole within the write timeout: 4 MiB/s, a 32 Mbit/s link.
const minSendRate = 4 << 20

// writeTimeout is how long a server with limits gives itself to send an
// answer, from the end of the request's headers: baseWriteTimeout for the
// building and anything small, plus the time the largest list takes at
// minSendRate. That list is about half of MaxStoredBytes: a user with one
// role counts its JSON twice against it and is in that role's list once
// (with a comma), while a user with more roles counts more for the same
// bytes in any one list. At the default limits the list is 128 MiB, and the
// timeout 62 s. An answer not sent by then is cut, and the cut is logged.
func writeTimeout(limits Limits) time.Duration {
	largestList := limits.MaxStoredBytes/2 + int64(limits.MaxUsers) + 1
	return baseWriteTimeout + time.Duration(largestList*int64(time.Second)/minSendRate)
}

// Main is the whole main function of a stage: it reads the flags, generates
// the users, opens the listeners, and serves until SIGINT or SIGTERM. Then
// it lets the requests in flight finish for up to drainTimeout, closes the
// connections still open, says how many it cut, and exits with status 0; a
// second signal cuts them at once. Flags:
//
//	-addr              listen address of the API (default 127.0.0.1:8080: loopback only)
//	-pprof-addr        loopback listen address for /debug/pprof/ alone (default: none)
//	-users             number of generated users (default user.DefaultCount)
//	-max-users         most users the store may hold (default DefaultLimits)
//	-max-stored-mib    most MiB the stored users may count, see Limits (default DefaultLimits)
//	-max-inflight-mib  most MiB of lists being built or sent, and bodies being read, at once (default DefaultLimits)
//	-client-share-mib  most MiB of those in flight that one client address may hold (default a quarter of -max-inflight-mib)
//	-max-conns         most connections served at once (default DefaultLimits)
//	-client-conns      most of those that one client address may hold (default a quarter of -max-conns)
//	-seed              seed of the generated users (default user.DefaultSeed)
//
// The profiling endpoints are served on -pprof-addr if it is given, which
// must be a loopback address; otherwise on the API's listener if that is on
// loopback, and nowhere if it is not. An API listening beyond loopback gets
// a warning. A positional argument or an empty -addr is refused with exit
// status 2. Unless the environment sets GOMEMLIMIT, the garbage collector
// is given memoryLimit as its soft limit.
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
		debug.SetMemoryLimit(memoryLimit(cfg.limits))
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
