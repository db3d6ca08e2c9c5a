package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
)

// paced has every body of the API sent in pieces of p.piece bytes, each
// with its own write deadline: p.window from when the piece starts, but
// never past the write timeout (counted from here, a little later than
// net/http counts it, from the end of the headers). net/http sets one
// deadline for the whole answer, so a client that reads nothing would
// otherwise keep its list, and the in-flight bytes reserved for it, until
// the write timeout, which is sized for the largest list at a fair rate.
//
// A write that fails returns a *cutError, which says who cut the answer.
// closing is set once the server's shutdown drain is over, so that a cut
// made by the server is not blamed on the client.
func paced(p *pace, closing *atomic.Bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			w := &pacedWriter{ResponseWriter: c.Response().Writer, pace: *p, closing: closing, ctx: req.Context()}
			// The server in the context is the one serving this request;
			// a test's recorder has none, and no deadlines either.
			if srv, ok := req.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.WriteTimeout > 0 {
				w.timeout = time.Now().Add(srv.WriteTimeout)
			}
			c.Response().Writer = w
			return next(c)
		}
	}
}

// pace is the least progress an answer must make: piece bytes taken by
// the client within window. Main's is sendPiece within progressWindow;
// tests shorten the window.
type pace struct {
	piece  int
	window time.Duration
}

// pacedWriter is the response writer that paced puts in place.
type pacedWriter struct {
	http.ResponseWriter
	pace    pace
	closing *atomic.Bool
	timeout time.Time       // the write timeout's deadline, or zero for none
	ctx     context.Context // the request's: net/http cancels it when the client goes
}

// Write sends p a piece at a time, and stops at the first piece that the
// client does not take in time.
//
// A body of more than one piece also stops as soon as the request's
// context is done, which net/http does once it reads the end of the
// connection: then the client has gone, and the rest of the body, and the
// in-flight bytes reserved for it, would be held for nobody until the
// minimum rate cut it. A piece already waiting for the socket is stopped
// too, by a write deadline set to now. A client that only half-closes its
// connection and still reads is taken as gone as well, as net/http takes
// it; a body of one piece (every error, a user, a small list) is sent to it
// whole, since nothing is saved by stopping it.
func (w *pacedWriter) Write(p []byte) (int, error) {
	rc := http.NewResponseController(w.ResponseWriter)
	watch := len(p) > w.pace.piece
	if watch {
		stop := context.AfterFunc(w.ctx, func() { rc.SetWriteDeadline(time.Now()) })
		defer stop()
	}
	written := 0
	for written < len(p) {
		deadline, capped := time.Now().Add(w.pace.window), false
		if !w.timeout.IsZero() && w.timeout.Before(deadline) {
			deadline, capped = w.timeout, true
		}
		if err := rc.SetWriteDeadline(deadline); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return written, w.cut(err, deadline, capped)
		}
		// Checked after the deadline is set: a client that goes from here
		// on has its deadline set to now after this one.
		if watch && w.ctx.Err() != nil {
			return written, w.cut(w.ctx.Err(), deadline, capped)
		}
		n, err := w.ResponseWriter.Write(p[written:min(len(p), written+w.pace.piece)])
		written += n
		if err != nil {
			return written, w.cut(err, deadline, capped)
		}
	}
	return written, nil
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *pacedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// cut names who ended the answer with err, the write's error; deadline is
// the one Write set, and capped says whether it was the write timeout's. A
// deadline error before that deadline comes from the one set to now when
// the client went. The request's context cannot tell: net/http cancels it
// on any failed write too.
func (w *pacedWriter) cut(err error, deadline time.Time, capped bool) *cutError {
	why := "the client closed the connection"
	timedOut := errors.Is(err, os.ErrDeadlineExceeded) && !time.Now().Before(deadline)
	switch {
	case w.closing.Load():
		why = "the server's shutdown drain ended"
	case timedOut && capped:
		why = "the write timeout passed"
	case timedOut:
		why = fmt.Sprintf("the client took less than %d KiB in %v (the minimum rate)", w.pace.piece>>10, w.pace.window)
	}
	return &cutError{why, err}
}

// cutError is a body that could not be sent whole, and why.
type cutError struct {
	why string // who cut it, for the log
	err error  // the write's own error
}

func (e *cutError) Error() string { return e.why + ": " + e.err.Error() }
func (e *cutError) Unwrap() error { return e.err }
