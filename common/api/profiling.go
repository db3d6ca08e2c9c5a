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

// MaxProfileSeconds bounds the seconds parameter of every profiling page:
// the default of the CPU profile and of go tool pprof.
const MaxProfileSeconds = 30

// pprofPages are the pages of net/http/pprof that Index does not serve,
// and what each takes, for the 409.
var pprofPages = map[string]struct {
	what  string
	serve http.HandlerFunc
}{
	"cmdline": {"the command line", pprof.Cmdline},
	"profile": {"a CPU profile", pprof.Profile},
	"symbol":  {"a symbol lookup", pprof.Symbol},
	"trace":   {"an execution trace", pprof.Trace},
}

// otherPages is the key in pprofRunning of every name that is not a page
// (net/http/pprof answers those with 404).
const otherPages = "(other)"

// pprofRunning says, per page ("" for the index), whether a request is taking
// it: a heap profile with gc=1 collects the whole heap, goroutine?debug=2
// stops the world, and the process has one CPU profiler and one tracer.
// The set is fixed at start-up, so that no request can add to it.
var pprofRunning = func() map[string]*atomic.Bool {
	m := map[string]*atomic.Bool{"": new(atomic.Bool), otherPages: new(atomic.Bool)}
	for name := range pprofPages {
		m[name] = new(atomic.Bool)
	}
	for _, p := range runtimepprof.Profiles() {
		m[p.Name()] = new(atomic.Bool)
	}
	return m
}()

// NewProfilingHandler returns net/http/pprof's pages under /debug/pprof/,
// with seconds a whole number from 1 to MaxProfileSeconds, and each page
// one request at a time: another is answered 409 at once. Errors are JSON,
// as the API's. The profiles show the command line, source paths and every
// goroutine's stack: serve them on loopback only.
func NewProfilingHandler() http.Handler {
	e := newEcho()
	addProfilingRoutes(e)
	return e
}

// addProfilingRoutes adds the profiling pages to e, with Echo's recovery
// of a panic (the API's routes have the guard's).
func addProfilingRoutes(e *echo.Echo) {
	e.GET("/debug/pprof/*", oneAtATime, middleware.Recover())
}

// oneAtATime serves the page that the path names unless another request
// is taking it, in which case it answers 409 (net/http/pprof would answer
// a plain-text 500).
func oneAtATime(c echo.Context) error {
	if err := checkSeconds(c.Request()); err != nil {
		return err
	}
	name := c.Param("*")
	page, ok := pprofPages[name]
	if !ok {
		page.what, page.serve = "the "+name+" profile", pprof.Index
	}
	taken, ok := pprofRunning[name]
	switch {
	case name == "":
		page.what = "the profile index"
	case !ok:
		taken, page.what = pprofRunning[otherPages], "a page that is not a profile"
	}
	if !taken.CompareAndSwap(false, true) {
		return echo.NewHTTPError(http.StatusConflict,
			page.what+" is already being taken by another request; ask again once it is done")
	}
	defer taken.Store(false)
	page.serve(c.Response(), c.Request())
	return nil
}

// checkSeconds refuses a seconds parameter that is not a whole number from
// 1 to MaxProfileSeconds: net/http/pprof would take a malformed one as its
// default, and a large one as asked, delaying a graceful shutdown.
func checkSeconds(req *http.Request) error {
	values, ok := req.URL.Query()["seconds"]
	if !ok {
		return nil
	}
	if len(values) == 1 {
		if n, err := strconv.Atoi(values[0]); err == nil && 1 <= n && n <= MaxProfileSeconds {
			return nil
		}
	}
	return echo.NewHTTPError(http.StatusBadRequest,
		fmt.Sprintf("query parameter seconds must be given once, as a whole number from 1 to %d", MaxProfileSeconds))
}
