package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/sync/semaphore"

	"example.com/userperf/common/user"
)

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
// JSON and every HEAD request without a body.
func newEcho() *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = writeError
	e.Use(middleware.Recover(), headWithoutBody)
	return e
}

func addAPIRoutes(e *echo.Echo, h handlers) {
	getAndHead := []string{http.MethodGet, http.MethodHead}
	pace := paced(h.pace, h.closing)
	e.Match(getAndHead, "/users", h.listByRole, pace)
	e.POST("/users", h.create, pace)
	e.Match(getAndHead, "/users/:id", h.get, pace)
	e.DELETE("/users/:id", h.delete, pace)
}

type handlers struct {
	stage    Stage
	ledger   *ledger
	inFlight *semaphore.Weighted // bytes of list bodies being built or sent, and of POST bodies being read
	maxBytes int64               // the semaphore's size
	shares   *shares             // what each client holds of inFlight
	log      *log.Logger
	closing  *atomic.Bool // set by the server once its shutdown drain is over
	pace     *pace        // the least progress an answer must make
}

func newHandlers(stage Stage, users []user.User, limits Limits, logger *log.Logger) handlers {
	return handlers{stage, newLedger(stage, users, limits),
		semaphore.NewWeighted(limits.MaxInFlightBytes), limits.MaxInFlightBytes, newShares(limits.MaxClientBytes),
		logger, new(atomic.Bool), &pace{sendPiece, progressWindow}}
}

// listByRole answers GET and HEAD /users?role=R. The ledger knows the
// body's size before the stage is asked: HEAD needs nothing more, and a
// GET reserves that many bytes, or is refused with 503 if they are not
// free, before anything is built.
func (h handlers) listByRole(c echo.Context) error {
	req := c.Request()
	role, err := roleFromQuery(req.URL.RawQuery)
	if err != nil {
		return err
	}
	size := h.ledger.listSize(role)
	if req.Method == http.MethodHead {
		return writeHeaders(c, http.StatusOK, size)
	}
	weight := min(size, h.maxBytes) // a larger body takes the whole limit: it is built alone
	release, err := h.reserve(c, weight, fmt.Sprintf("this list is %d bytes", size))
	if err != nil {
		return err
	}
	defer release()
	// The client may have gone while the reservation was taken; building
	// a list nobody reads would only slow the next request.
	if req.Context().Err() != nil {
		return errClientGone
	}
	body := h.stage.ListByRole(role)
	defer Recycle(h.stage, body)
	if err := writeJSON(c, http.StatusOK, body); err != nil {
		h.logCut(c, len(body), err)
	}
	return nil
}

// reserve takes weight bytes of the in-flight budget for the request of c,
// within its client's share, and returns what gives them back; what says
// what the request needs, for the 503 that refuses it. The caller defers
// the release, so that the bytes come back however the request ends: sent,
// cut, refused or panicking. A request whose client has gone takes
// nothing: net/http cancels its context when the connection closes.
func (h handlers) reserve(c echo.Context, weight int64, what string) (release func(), err error) {
	req := c.Request()
	if req.Context().Err() != nil {
		return nil, errClientGone
	}
	client, charge := clientOf(req), h.shares.charge(weight)
	if !h.shares.take(client, charge) {
		return nil, h.overShare(c, client, what)
	}
	if !h.inFlight.TryAcquire(weight) {
		h.shares.give(client, charge)
		return nil, h.busy(c, what)
	}
	return func() {
		h.inFlight.Release(weight)
		h.shares.give(client, charge)
	}, nil
}

// overShare answers 503 to a request whose client holds too much of the
// in-flight bytes already. The address is not named: an error body never
// names a socket address.
func (h handlers) overShare(c echo.Context, client, what string) error {
	c.Response().Header().Set("Retry-After", "1")
	return echo.NewHTTPError(http.StatusServiceUnavailable, fmt.Sprintf("your address already holds %d bytes "+
		"of the lists and bodies in flight, and one address may hold %d at most; %s; retry once your other answers are read",
		h.shares.holding(client), h.shares.share, what))
}

// busy answers 503 to a request that found too few in-flight bytes free;
// what says what it needed. It is refused at once rather than queued: a
// queue would hold the requests, and their connections, for as long as
// what is ahead takes to send, which one slow client can make long.
func (h handlers) busy(c echo.Context, what string) error {
	c.Response().Header().Set("Retry-After", "1")
	return echo.NewHTTPError(http.StatusServiceUnavailable, fmt.Sprintf("the server is busy sending lists "+
		"and reading bodies, %d bytes at most at once, and %s; retry in a second", h.maxBytes, what))
}

// errClientGone answers a request whose client has closed its connection.
// Nobody reads it; 499 is the status that nginx and others log for it, so
// that a log tells it from an answer that was sent.
var errClientGone = echo.NewHTTPError(499, "the client closed the connection before the answer was built")

// logCut logs an answer whose body could not be sent whole: the client
// would only see the connection end early, and the server would know
// nothing of it.
func (h handlers) logCut(c echo.Context, size int, err error) {
	why := "the client closed the connection"
	if cut, ok := errors.AsType[*cutError](err); ok {
		why = cut.why
	}
	h.log.Printf("answer cut: %s %s: %s after %d of %d bytes", c.Request().Method, c.Request().URL, why, c.Response().Size, size)
}

// create answers POST /users. The body's buffer is reserved from the
// in-flight bytes before it is read, as a list's is before it is built:
// thousands of bodies arriving slowly would otherwise hold their buffers
// uncounted until the read timeout.
func (h handlers) create(c echo.Context) error {
	req := c.Request()
	capacity := bodyCapacity(req.ContentLength)
	release, err := h.reserve(c, int64(capacity), fmt.Sprintf("this body needs %d bytes", capacity))
	if err != nil {
		// The connection is closed after the answer: net/http would
		// otherwise read the rest of the body first, for the next
		// request, and so answer a body arriving slowly only at the read
		// timeout.
		c.Response().Header().Set(echo.HeaderConnection, "close")
		return err
	}
	defer release()
	req.Body = http.MaxBytesReader(c.Response(), req.Body, MaxBodyBytes)
	u, err := decodeNewUser(req.Body, capacity)
	if err != nil {
		return err
	}
	body, err := json.Marshal(u)
	if err != nil {
		return err
	}
	if err := h.ledger.add(u, len(body)); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, "/users/"+u.ID)
	return writeJSON(c, http.StatusCreated, body)
}

func (h handlers) get(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if c.Request().Context().Err() != nil {
		return errClientGone
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

func (h handlers) delete(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if !h.ledger.delete(id) {
		return errUnknownUser(id)
	}
	return c.NoContent(http.StatusNoContent)
}

// pathID returns the id in the path, percent-decoded once. Echo routes on
// the path as sent when it differs from the usual encoding of the decoded
// path, and on the decoded path otherwise, so its parameter alone would be
// decoded for /users/%00 but not for /users/%750000001, which names
// u0000001.
func pathID(c echo.Context) (string, error) {
	id := c.Param("id")
	if c.Request().URL.RawPath == "" {
		return id, nil // routed on the decoded path
	}
	decoded, err := url.PathUnescape(id)
	if err != nil { // unreachable: net/http refuses a malformed escape before routing
		return "", inputErrorf("malformed id in the path: a '%%' must be followed by two hexadecimal digits")
	}
	return decoded, nil
}

func errUnknownUser(id string) error {
	return echo.NewHTTPError(http.StatusNotFound, "no user with id "+quoteJSON(id))
}

// writeHeaders sends the status and headers of a JSON answer of size
// bytes, and no body: what HEAD needs.
func writeHeaders(c echo.Context, status int, size int64) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	c.Response().Header().Set(echo.HeaderContentLength, strconv.FormatInt(size, 10))
	c.Response().WriteHeader(status)
	return nil
}

// writeJSON sends body with an explicit Content-Length, so that every stage
// answers with the same headers whatever the size of its body.
func writeJSON(c echo.Context, status int, body []byte) error {
	c.Response().Header().Set(echo.HeaderContentLength, strconv.Itoa(len(body)))
	return c.Blob(status, echo.MIMEApplicationJSON, body)
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
	if err := writeJSON(c, status, body); err != nil {
		c.Logger().Error(err)
	}
}
