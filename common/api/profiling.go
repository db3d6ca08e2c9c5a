package api

import (
	"fmt"
	"net/http"
	"net/http/pprof"
	runtimepprof "runtime/pprof"
	"strconv"
	"sync/atomic"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// MaxProfileSeconds bounds the seconds parameter of every profiling
// endpoint: how long a CPU profile or a trace runs, or how far apart the two
// snapshots of a delta profile are. It is the default of the CPU profile
// and of go tool pprof, so the usual commands work unchanged.
const MaxProfileSeconds = 30

// The process has one CPU profiler and one tracer; these say whether a
// request is using them. They are shared by every handler in the process.
var (
	cpuProfileRunning atomic.Bool
	traceRunning      atomic.Bool
)

// namedProfileRunning says, for each page that net/http/pprof's Index
// serves (the index itself under "", each profile under its name, and any
// other name under otherProfiles), whether a request is taking it. These
// are cheap one at a time, but not at any rate: a heap profile with gc=1
// collects the whole heap, and goroutine?debug=2 stops the world to write
// every stack. The set is fixed when the program starts, so that no
// request can add to it.
var namedProfileRunning = func() map[string]*atomic.Bool {
	running := map[string]*atomic.Bool{"": new(atomic.Bool), otherProfiles: new(atomic.Bool)}
	for _, p := range runtimepprof.Profiles() {
		running[p.Name()] = new(atomic.Bool)
	}
	return running
}()

// otherProfiles is the key in namedProfileRunning of every name that is
// not a profile (net/http/pprof answers those with 404).
const otherProfiles = "(other)"

// NewProfilingHandler returns net/http/pprof's endpoints under
// /debug/pprof/, with two changes: seconds must be a whole number from 1 to
// MaxProfileSeconds, and a page asked for while another request takes the
// same kind (a CPU profile, a trace, the heap profile, the goroutine
// profile, ...) is answered with 409 at once, whatever its parameters. Both answers are JSON errors like the
// API's. The profiles show the command line, source paths and every
// goroutine's stack: serve them on a loopback listener only.
func NewProfilingHandler() http.Handler {
	e := newEcho()
	addProfilingRoutes(e)
	return e
}

// addProfilingRoutes adds the profiling endpoints to e, each with Echo's
// recovery of a panic as a 500 (the API's routes have the guard's, see
// guard.Guard.Wrap).
func addProfilingRoutes(e *echo.Echo) {
	recovered := middleware.Recover()
	e.GET("/debug/pprof/*", oneNamedAtATime, recovered, boundedSeconds)
	e.GET("/debug/pprof/cmdline", oneAtATime(&cmdlineRunning, "the command line", pprof.Cmdline), recovered)
	e.GET("/debug/pprof/profile", oneAtATime(&cpuProfileRunning, "a CPU profile", pprof.Profile), recovered, boundedSeconds)
	e.GET("/debug/pprof/symbol", oneAtATime(&symbolRunning, "a symbol lookup", pprof.Symbol), recovered)
	e.GET("/debug/pprof/trace", oneAtATime(&traceRunning, "an execution trace", pprof.Trace), recovered, boundedSeconds)
}

// The command line and symbol lookups are one at a time too, like every
// other page.
var cmdlineRunning, symbolRunning atomic.Bool

// oneNamedAtATime serves the page of net/http/pprof's Index that the path
// names, one request at a time per name (see namedProfileRunning).
func oneNamedAtATime(c echo.Context) error {
	name := c.Param("*")
	running, ok := namedProfileRunning[name]
	what := "the " + name + " profile"
	switch {
	case name == "":
		what = "the profile index"
	case !ok:
		running, what = namedProfileRunning[otherProfiles], "a page that is not a profile"
	}
	return oneAtATime(running, what, pprof.Index)(c)
}

// boundedSeconds refuses a seconds parameter that is not a whole number
// from 1 to MaxProfileSeconds. net/http/pprof would take 0, a negative or a
// malformed value as its default, and any large value as asked, holding
// the connection (and delaying a graceful shutdown) for that long.
func boundedSeconds(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		values, ok := c.Request().URL.Query()["seconds"]
		if !ok {
			return next(c)
		}
		if len(values) == 1 {
			if n, err := strconv.Atoi(values[0]); err == nil && 1 <= n && n <= MaxProfileSeconds {
				return next(c)
			}
		}
		return echo.NewHTTPError(http.StatusBadRequest,
			fmt.Sprintf("query parameter seconds must be given once, as a whole number from 1 to %d", MaxProfileSeconds))
	}
}

// oneAtATime serves h unless running says that another request is already
// using what h needs, in which case it answers 409 without calling h
// (net/http/pprof would answer with a plain-text 500).
func oneAtATime(running *atomic.Bool, what string, h http.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !running.CompareAndSwap(false, true) {
			return echo.NewHTTPError(http.StatusConflict,
				what+" is already being taken by another request; ask again once it is done")
		}
		defer running.Store(false)
		h(c.Response(), c.Request())
		return nil
	}
}
