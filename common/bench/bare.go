package bench

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/labstack/echo/v4"

	"example.com/userperf/common/apitest/plain"
)

// Bare measures the least that answering GET /users?role=R through Echo
// can cost: one route, whose handler reads the role as Echo's users do and
// writes the list of users=10000, matches=100, built in advance, with the
// headers that the API sends (Content-Type and Content-Length); the same
// request and discarding writer as ServeHTTP; no validation, no limits, no
// middleware. It is the limit of the "through Echo" figures: what a stage's
// ServeHTTP costs beyond it is the shared API layer and the stage's own
// work.
func Bare(b *testing.B) {
	c := Case{10_000, 100}
	body := plain.New(Users(c.Users)).ListBody(c.Role())
	e := echo.New()
	e.GET("/users", func(ctx echo.Context) error {
		if ctx.QueryParam("role") != c.Role() {
			return echo.ErrNotFound
		}
		ctx.Response().Header().Set(echo.HeaderContentLength, strconv.Itoa(len(body)))
		return ctx.Blob(http.StatusOK, echo.MIMEApplicationJSON, body)
	})
	serveList(b, e, c.Role(), len(body))
}
