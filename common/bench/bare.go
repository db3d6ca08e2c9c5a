package bench

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/labstack/echo/v4"

	"example.com/userperf/common/apitest/plain"
)

// Bare measures the least that GET /users?role=R through Echo can cost:
// one route, no validation, limits or middleware, writing the list of
// users=10000, matches=100, built in advance, with the API's headers. What
// a stage's ServeHTTP costs beyond it is the API layer and the stage.
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
