package api

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// headWithoutBody answers a HEAD request exactly as the GET of the same
// target, status and headers included, and drops the body. Doing it here
// rather than leaving it to net/http keeps the answer the same whether the
// handler runs behind a real server or in a test's recorder.
func headWithoutBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Request().Method == http.MethodHead {
			c.Response().Writer = bodyDropper{c.Response().Writer}
		}
		return next(c)
	}
}

// bodyDropper passes headers and status through and drops body bytes.
type bodyDropper struct{ http.ResponseWriter }

func (bodyDropper) Write(p []byte) (int, error) { return len(p), nil }

// Unwrap gives http.ResponseController the writer underneath.
func (d bodyDropper) Unwrap() http.ResponseWriter { return d.ResponseWriter }
