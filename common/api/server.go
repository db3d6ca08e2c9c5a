package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// NewHandler returns the API served by stage, wired on Echo, with no limit
// on the number of users:
//
//	GET    /users?role=R   users holding role R (the endpoint this project optimizes)
//	POST   /users          create a user: 201 with the stored user
//	GET    /users/:id      one user, or 404
//	DELETE /users/:id      204, or 404
//
// HEAD on a GET route answers as the GET would, with the same status and
// headers (Content-Length included) and no body. Every error is a JSON
// object {"error": "..."} with a 4xx status, or 500 for a bug (a panic is
// recovered, logged and answered with 500). The profiling endpoints are not
// part of it: see NewProfilingHandler.
func NewHandler(stage Stage) http.Handler {
	return NewHandlerWithMaxUsers(stage, 0, math.MaxInt)
}

// NewHandlerWithMaxUsers is NewHandler for a stage that holds stored users,
// refusing with 409 any POST that would make it hold more than maxUsers.
// The handler counts the users itself from stored on, so it must be the
// only writer of stage.
func NewHandlerWithMaxUsers(stage Stage, stored, maxUsers int) http.Handler {
	e := newEcho()
	addAPIRoutes(e, stage, newUserSlots(stored, maxUsers))
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

func addAPIRoutes(e *echo.Echo, stage Stage, slots *userSlots) {
	h := handlers{stage, slots}
	getAndHead := []string{http.MethodGet, http.MethodHead}
	e.Match(getAndHead, "/users", h.listByRole)
	e.POST("/users", h.create)
	e.Match(getAndHead, "/users/:id", h.get)
	e.DELETE("/users/:id", h.delete)
}

type handlers struct {
	stage Stage
	slots *userSlots
}

func (h handlers) listByRole(c echo.Context) error {
	role, err := roleFromQuery(c.Request().URL.RawQuery)
	if err != nil {
		return err
	}
	body := h.stage.ListByRole(role)
	defer Recycle(h.stage, body)
	return writeJSON(c, http.StatusOK, body)
}

func (h handlers) create(c echo.Context) error {
	req := c.Request()
	req.Body = http.MaxBytesReader(c.Response(), req.Body, MaxBodyBytes)
	u, err := decodeNewUser(req.Body)
	if err != nil {
		return err
	}
	if !h.slots.take() {
		return echo.NewHTTPError(http.StatusConflict,
			fmt.Sprintf("the store is full: it holds its limit of %d users; delete one first", h.slots.max))
	}
	if !h.stage.Add(u) {
		h.slots.giveBack()
		return echo.NewHTTPError(http.StatusConflict, "a user with id "+strconv.Quote(u.ID)+" already exists")
	}
	body, err := json.Marshal(u)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, "/users/"+u.ID)
	return writeJSON(c, http.StatusCreated, body)
}

func (h handlers) get(c echo.Context) error {
	u, ok := h.stage.Get(c.Param("id"))
	if !ok {
		return errUnknownUser(c.Param("id"))
	}
	body, err := json.Marshal(u)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, body)
}

func (h handlers) delete(c echo.Context) error {
	if !h.stage.Delete(c.Param("id")) {
		return errUnknownUser(c.Param("id"))
	}
	h.slots.giveBack()
	return c.NoContent(http.StatusNoContent)
}

func errUnknownUser(id string) error {
	return echo.NewHTTPError(http.StatusNotFound, "no user with id "+strconv.Quote(truncate(id)))
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
