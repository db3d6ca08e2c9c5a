package api

import (
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"example.com/userperf/common/api/guard"
	"example.com/userperf/common/user"
)

// One GET /users?role=R at run time passes six files of the project (a
// stage's two among them: here stage 0's), each once, in this order, with
// the functions it runs in each (TestRunTimePathNamesWhatExists checks them):
//
//  1. common/api/guard/guard.go (Guard.List, Guard.begin, Guard.listSize,
//     Guard.reserve, Guard.take, Guard.takeInFlight, Guard.end,
//     Guard.release): the guard, wrapped once around the handler, gives
//     the answer a paced Writer, reads the role (2), takes the list's size
//     in flight or refuses with 503, calls the handler (3), and once it
//     returns gives the bytes back and counts the answer.
//  2. common/api/input.go (roleFromQuery, plainRole, validateRole): the role.
//  3. common/api/routes.go (handlers.list, writeJSON, writeHeaders): the
//     stage builds the list (4, 5), and writeJSON writes it to the Writer (6).
//  4. stage0-linear/store.go (Store.ListByRole, Store.findByRole, clone):
//     the users holding the role,
//  5. stage0-linear/encode.go (encodeUsers): and their JSON.
//  6. common/api/guard/pacing.go (Writer.Write, Writer.deadline): the body
//     in pieces, each with a write deadline at the minimum rate.
//
// An error goes back to Guard.end, which answers it with writeError. Once
// per connection, Listener.Accept (guard/guard.go) admitted it and
// ConnContext (guard/clients.go) put its client in its context; at
// start-up, stage0-linear/main.go calls Main (serve.go).

// addAPIRoutes serves h's handlers on e, each wrapped in the guard once.
func addAPIRoutes(e *echo.Echo, h *handlers) {
	getAndHead := []string{http.MethodGet, http.MethodHead}
	e.Match(getAndHead, "/users", h.guard.List(roleFromQuery, h.list))
	e.POST("/users", h.guard.Body(bodyCapacity, h.create))
	e.Match(getAndHead, "/users/:id", h.guard.Wrap(h.get))
	e.DELETE("/users/:id", h.guard.Wrap(h.delete))
}

// handlers serve the API's routes.
type handlers struct {
	stage    Stage
	recycler Recycler      // the stage, if it reuses its bodies; else nil
	ledger   *guard.Ledger // every write goes through it
	guard    *guard.Guard
}

// list answers GET and HEAD /users?role=R for role, whose list of size
// bytes the guard has reserved for a GET.
func (h *handlers) list(c echo.Context, role string, size int64) error {
	if c.Request().Method == http.MethodHead {
		return writeHeaders(c, http.StatusOK, size)
	}
	body := h.stage.ListByRole(role)
	if h.recycler != nil {
		defer h.recycler.Recycle(body)
	}
	return writeJSON(c, http.StatusOK, body) // a cut is logged by the guard
}

// create answers POST /users, whose body the guard has reserved capacity
// bytes for.
func (h *handlers) create(c echo.Context, capacity int) error {
	req := c.Request()
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

// jsonContentType is the Content-Type of every answer, shared by every
// header map: Set would allocate a slice per answer.
var jsonContentType = []string{echo.MIMEApplicationJSON}

// writeHeaders sends the status and headers of a JSON answer of size bytes.
func writeHeaders(c echo.Context, status int, size int64) error {
	header := c.Response().Header()
	header[echo.HeaderContentType] = jsonContentType
	header.Set(echo.HeaderContentLength, strconv.FormatInt(size, 10))
	c.Response().WriteHeader(status)
	return nil
}

// writeJSON sends body with its Content-Length, so that every stage
// answers with the same headers whatever the size of its body.
func writeJSON(c echo.Context, status int, body []byte) error {
	writeHeaders(c, status, int64(len(body)))
	_, err := c.Response().Write(body)
	return err
}

// writeError answers every error as {"error": "..."}. Only errors made for
// the client are shown to it; any other is logged and answered with 500.
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

// NewHandler returns the API (docs/api.md) served by stage, which was
// built with users, with DefaultLimits and without the profiling pages.
func NewHandler(stage Stage, users []user.User) http.Handler {
	return NewHandlerWithLimits(stage, users, DefaultLimits)
}

// NewHandlerWithLimits is NewHandler with limits. The handler counts what
// the store holds, so it must be the only writer of stage.
func NewHandlerWithLimits(stage Stage, users []user.User, limits Limits) http.Handler {
	e := newEcho()
	addAPIRoutes(e, newHandlers(stage, users, limits, log.Default()))
	return e
}

// newEcho returns an Echo that answers every error as JSON. It has no
// middleware, which Echo would apply anew on every request.
func newEcho() *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = writeError
	return e
}

func newHandlers(stage Stage, users []user.User, limits Limits, logger *log.Logger) *handlers {
	ledger := guard.NewLedger(stage, users, limits)
	g := guard.New(limits, ledger)
	g.Log = logger
	recycler, _ := stage.(Recycler)
	return &handlers{stage: stage, recycler: recycler, ledger: ledger, guard: g}
}
