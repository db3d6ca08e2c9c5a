package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/labstack/echo/v4"

	"example.com/userperf/common/api/guard"
	"example.com/userperf/common/user"
)

// One GET /users?role=R, from a stage's main.go to the socket, reads in six
// files, in this order, each once; a call into a file further down the list
// returns, and the reading goes on where it was:
//
//  1. stageN/main.go: main calls Main(name, New).
//  2. serve.go: Main reads the flags and calls serve, which hands net/http
//     the guard's Listener and these routes.
//  3. routes.go: answer gives the answer the guard's Writer and calls list,
//     which reads top to bottom: roleFromQuery parses the role, the guard
//     sizes the list and reserves its bytes, the stage builds it, writeJSON
//     writes it, and the reservation is released.
//  4. guard/guard.go: Listener.Accept admitted the connection, before any
//     of its requests: a slot, within its address's share, outside the
//     reserve unless the address holds no other. ReserveList takes the
//     list's size in bytes in flight, within the address's share, or
//     refuses with 503; Release gives them back.
//  5. the stage's store.go: ListByRole builds the body.
//  6. guard/pacing.go: Writer.Start readies the writer for the answer, and
//     Writer.Write sends the body in pieces, each with a deadline at the
//     minimum rate.
//
// That is twelve functions: main, Main, serve, answer, list, roleFromQuery,
// Accept, ReserveList, Release, ListByRole, Start and Write. What they call
// besides is named for what it does, and needs reading only for its detail:
// validateRole and the error texts (input.go), Recycle (stage.go), the list
// sizes that the ledger counts (guard/ledger.go), and each address's share,
// which ConnContext puts in a connection's context (guard/clients.go).

// addAPIRoutes serves h's handlers on e.
func addAPIRoutes(e *echo.Echo, h *handlers) {
	getAndHead := []string{http.MethodGet, http.MethodHead}
	e.Match(getAndHead, "/users", h.answer(h.list))
	e.POST("/users", h.answer(h.create))
	e.Match(getAndHead, "/users/:id", h.answer(h.get))
	e.DELETE("/users/:id", h.answer(h.delete))
}

// handlers serve the API's routes.
type handlers struct {
	stage    Stage
	prebuilt bool          // the stage keeps its lists built (see Prebuilt)
	ledger   *guard.Ledger // what the store holds, and each list's size
	guard    *guard.Guard  // what the requests in flight hold; it sizes each list by the ledger
	log      *log.Logger
	writers  sync.Pool // of *guard.Writer: one serves each answer, and is reused
	counts   answerCounts
}

// answer wraps a route's handler with what every answer needs: the guard's
// writer, which drops HEAD bodies and paces the rest, the error answer, and
// the recovery of a panic as a 500.
func (h *handlers) answer(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h.counts.started.Add(1)
		w := h.writers.Get().(*guard.Writer)
		w.Start(h.guard, c.Response().Writer, c.Request())
		c.Response().Writer = w
		defer h.finish(c, w)
		if err := next(c); err != nil {
			writeError(err, c)
		}
		return nil
	}
}

// list answers GET and HEAD /users?role=R.
//
// The guard knows the body's size before the stage is asked, so HEAD needs
// nothing more, and a GET that finds too few bytes free is refused with 503
// before anything is built. A stage that keeps its lists built is asked
// first instead: its body costs nothing more to have.
func (h *handlers) list(c echo.Context) error {
	req := c.Request()
	role, err := roleFromQuery(req.URL.RawQuery)
	if err != nil {
		return err
	}
	var body []byte
	if h.prebuilt {
		body = h.stage.ListByRole(role)
	}
	r, err := h.guard.ReserveList(c, role, body)
	if err != nil {
		return err
	}
	defer r.Release()
	if req.Method == http.MethodHead {
		return writeHeaders(c, http.StatusOK, r.Size)
	}
	if !h.prebuilt {
		// The client may have gone while the reservation was taken;
		// building a list nobody reads would only slow the next request.
		if req.Context().Err() != nil {
			return guard.ErrClientGone
		}
		body = h.stage.ListByRole(role)
		defer Recycle(h.stage, body)
	}
	writeJSON(c, http.StatusOK, body) // a cut is logged by finish
	return nil
}

// roleFromQuery returns the single role of a GET /users query string.
// A repeated role parameter is an error, not "the first one wins": a client
// that sends two roles probably expects a union, and silently answering for
// one of them would hide its bug.
func roleFromQuery(rawQuery string) (string, error) {
	if role, ok := plainRole(rawQuery); ok {
		return role, validateRole(role)
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return "", queryError(rawQuery, err)
	}
	roles, ok := q["role"]
	switch {
	case !ok:
		return "", inputErrorf("missing query parameter role")
	case len(roles) > 1:
		return "", inputErrorf("query parameter role given %d times; give it once", len(roles))
	}
	return roles[0], validateRole(roles[0])
}

// plainRole reads the role of a query of a few parameters that holds no
// escape, no '+' and no ';', and reports false for any other, which
// url.ParseQuery reads (and may refuse): such a query reads the same
// either way, without a map built for one key.
func plainRole(rawQuery string) (role string, ok bool) {
	if strings.ContainsAny(rawQuery, "%+;") || strings.Count(rawQuery, "&") > 8 {
		return "", false
	}
	found := false
	for part := range strings.SplitSeq(rawQuery, "&") {
		key, value, _ := strings.Cut(part, "=")
		if key != "role" {
			continue
		}
		if found {
			return "", false // given twice: ParseQuery's path says so
		}
		role, found = value, true
	}
	return role, found
}

// finish counts the answer, answers a panic with 500, and puts the writer
// back. It is deferred, so that it runs however the handler ended.
func (h *handlers) finish(c echo.Context, w *guard.Writer) {
	r := recover()
	if r != nil && r != http.ErrAbortHandler {
		writeError(fmt.Errorf("panic: %v\n%s", r, debug.Stack()), c)
	}
	switch status := c.Response().Status; {
	case w.Failed() != nil:
		h.logCut(c, w.Failed())
		h.counts.cut.Add(1)
	case !c.Response().Committed || r == http.ErrAbortHandler:
		h.counts.cut.Add(1)
	case status == guard.ErrClientGone.Code:
		h.counts.gone.Add(1)
	case status == http.StatusServiceUnavailable:
		h.counts.refused.Add(1)
	default:
		h.counts.finished.Add(1)
	}
	c.Response().Writer = w.ResponseWriter
	*w = guard.Writer{}
	h.writers.Put(w)
	if r == http.ErrAbortHandler { // net/http's way to cut an answer on purpose
		panic(r)
	}
}

// logCut logs an answer whose body could not be sent whole, with err, the
// write's error: the client would only see the connection end early, and
// the server would know nothing of it.
func (h *handlers) logCut(c echo.Context, err error) {
	why := "the client closed the connection"
	if cut, ok := errors.AsType[*guard.CutError](err); ok {
		why = cut.Why
	}
	h.log.Printf("answer cut: %s %s: %s after %d of %s bytes", c.Request().Method, c.Request().URL, why,
		c.Response().Size, c.Response().Header().Get(echo.HeaderContentLength))
}

// create answers POST /users. The body's buffer is reserved from the
// in-flight bytes before it is read, as a list's is before it is built:
// thousands of bodies arriving slowly would otherwise hold their buffers
// uncounted until the read timeout. A body announced as larger than the
// limit is refused before anything is read.
func (h *handlers) create(c echo.Context) error {
	req := c.Request()
	if req.ContentLength > MaxBodyBytes {
		// net/http has not answered 100 Continue yet: it does so at the
		// first read of the body, which this answer never makes.
		c.Response().Header().Set(echo.HeaderConnection, "close")
		return &http.MaxBytesError{Limit: MaxBodyBytes}
	}
	capacity := guard.BodyCapacity(req.ContentLength, MaxBodyBytes)
	r, err := h.guard.ReserveBody(c, int64(capacity))
	if err != nil {
		// The connection is closed after the answer: net/http would
		// otherwise read the rest of the body first, for the next
		// request, and so answer a body arriving slowly only at the read
		// timeout.
		c.Response().Header().Set(echo.HeaderConnection, "close")
		return err
	}
	defer r.Release()
	req.Body = http.MaxBytesReader(c.Response(), req.Body, MaxBodyBytes)
	u, err := decodeNewUser(req.Body, capacity)
	if err != nil {
		return err
	}
	switch err := h.ledger.Add(u); {
	case errors.Is(err, guard.ErrIDTaken):
		return echo.NewHTTPError(http.StatusConflict, "a user with id "+quoteJSON(u.ID)+" already exists")
	case err != nil:
		return err
	}
	body, err := json.Marshal(u) // the answer: the stored user
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, "/users/"+u.ID)
	return writeJSON(c, http.StatusCreated, body)
}

func (h *handlers) get(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if c.Request().Context().Err() != nil {
		return guard.ErrClientGone
	}
	u, ok := h.stage.Get(id)
	if !ok {
		return errUnknownUser(id)
	}
	body, err := json.Marshal(u)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, body)
}

func (h *handlers) delete(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if !h.ledger.Delete(id) {
		return errUnknownUser(id)
	}
	return c.NoContent(http.StatusNoContent)
}

func errUnknownUser(id string) error {
	return echo.NewHTTPError(http.StatusNotFound, "no user with id "+quoteJSON(id))
}

// jsonContentType is the Content-Type of every answer. The header map gets
// this slice itself: nobody changes a header's values in place, and Set
// would allocate a new one for every answer.
var jsonContentType = []string{echo.MIMEApplicationJSON}

// writeHeaders sends the status and headers of a JSON answer of size
// bytes, and no body: what HEAD needs.
func writeHeaders(c echo.Context, status int, size int64) error {
	header := c.Response().Header()
	header[echo.HeaderContentType] = jsonContentType
	header.Set(echo.HeaderContentLength, strconv.FormatInt(size, 10))
	c.Response().WriteHeader(status)
	return nil
}

// writeJSON sends body with an explicit Content-Length, so that every stage
// answers with the same headers whatever the size of its body.
func writeJSON(c echo.Context, status int, body []byte) error {
	writeHeaders(c, status, int64(len(body)))
	_, err := c.Response().Write(body)
	return err
}

// writeError answers every error as {"error": "..."}, without the body
// for HEAD. Only errors made for the client are shown to it; any other is
// logged and answered with 500.
func writeError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, msg := http.StatusInternalServerError, "internal server error"
	var (
		input    errInput
		httpErr  *echo.HTTPError
		tooLarge *http.MaxBytesError
	)
	switch {
	case errors.As(err, &input):
		status, msg = http.StatusBadRequest, input.msg
	case errors.As(err, &tooLarge):
		status, msg = http.StatusRequestEntityTooLarge,
			"request body is larger than "+strconv.FormatInt(tooLarge.Limit, 10)+" bytes"
	case errors.As(err, &httpErr):
		status, msg = httpErr.Code, http.StatusText(httpErr.Code)
		if m, ok := httpErr.Message.(string); ok {
			msg = m
		}
	default:
		c.Logger().Error(err)
	}
	body, _ := json.Marshal(map[string]string{"error": msg})
	if c.Request().Method == http.MethodHead {
		writeHeaders(c, status, int64(len(body)))
		return
	}
	if err := writeJSON(c, status, body); err != nil {
		c.Logger().Error(err)
	}
}

// NewHandler returns the API served by stage, which was built with users,
// wired on Echo, with DefaultLimits:
//
//	GET    /users?role=R   users holding role R (the endpoint this project optimizes)
//	POST   /users          create a user: 201 with the stored user
//	GET    /users/:id      one user, or 404
//	DELETE /users/:id      204, or 404
//
// HEAD on a GET route answers as the GET would, with the same status and
// headers (Content-Length included) and no body. Every error is a JSON
// object {"error": "..."} with a 4xx status, 503 when too many list or body
// bytes are in flight, in all or for the client's address, or 500 for a
// bug (a panic is recovered, logged and answered with 500). The profiling
// endpoints are not part of it: see NewProfilingHandler.
func NewHandler(stage Stage, users []user.User) http.Handler {
	return NewHandlerWithLimits(stage, users, DefaultLimits)
}

// NewHandlerWithLimits is NewHandler with limits. The handler counts what
// the store holds itself, from users on, so it must be the only writer of
// stage. It logs the answers it could not send to the standard logger.
func NewHandlerWithLimits(stage Stage, users []user.User, limits Limits) http.Handler {
	e := newEcho()
	addAPIRoutes(e, newHandlers(stage, users, limits, log.Default()))
	return e
}

// newEcho returns an Echo with no routes yet, which answers every error as
// JSON. It has no middleware: Echo applies middleware anew on every
// request, a closure each, so what every answer needs is wrapped around
// each route once, by answer.
func newEcho() *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = writeError
	return e
}

func newHandlers(stage Stage, users []user.User, limits Limits, logger *log.Logger) *handlers {
	_, prebuilt := stage.(Prebuilt)
	ledger := guard.NewLedger(stage, users, limits, !prebuilt)
	h := &handlers{stage: stage, prebuilt: prebuilt, ledger: ledger, guard: guard.New(limits, ledger), log: logger}
	h.guard.Log = logger
	h.writers.New = func() any { return new(guard.Writer) }
	return h
}

// answerCounts count the API's answers since the server started, for the
// last line of its log.
type answerCounts struct {
	started  atomic.Int64
	finished atomic.Int64 // sent whole
	cut      atomic.Int64 // not sent whole
	gone     atomic.Int64 // 499: the client went before the answer started
	refused  atomic.Int64 // 503: the server had no room for them
}

// inProgress is how many answers have started and not ended.
func (c *answerCounts) inProgress() int64 {
	return c.started.Load() - c.finished.Load() - c.cut.Load() - c.gone.Load() - c.refused.Load()
}
