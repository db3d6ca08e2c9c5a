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

// pprofPage is one page of /debug/pprof/, served one request at a time:
// a heap profile with gc=1 collects the whole heap, goroutine?debug=2
// stops the world, and the process has one CPU profiler and one tracer.
type pprofPage struct {
	what    string // for the 409
	serve   http.HandlerFunc
	running atomic.Bool
}

// otherPages is the key in pprofPages of every name that is not a page
// (net/http/pprof answers those with 404).
const otherPages = "(other)"

// pprofPages are the pages by name, "" the index. The set is fixed at
// start-up, so that no request can add to it.
var pprofPages = func() map[string]*pprofPage {
	pages := map[string]*pprofPage{
		"":         {what: "the profile index", serve: pprof.Index},
		otherPages: {what: "a page that is not a profile", serve: pprof.Index},
		"cmdline":  {what: "the command line", serve: pprof.Cmdline},
		"profile":  {what: "a CPU profile", serve: pprof.Profile},
		"symbol":   {what: "a symbol lookup", serve: pprof.Symbol},
		"trace":    {what: "an execution trace", serve: pprof.Trace},
	}
	for _, p := range runtimepprof.Profiles() {
		pages[p.Name()] = &pprofPage{what: "the " + p.Name() + " profile", serve: pprof.Index}
	}
	return pages
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
	page, ok := pprofPages[c.Param("*")]
	if !ok {
		page = pprofPages[otherPages]
	}
	if !page.running.CompareAndSwap(false, true) {
		return echo.NewHTTPError(http.StatusConflict,
			page.what+" is already being taken by another request; ask again once it is done")
	}
	defer page.running.Store(false)
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
