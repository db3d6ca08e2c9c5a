package api

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

// A body is sent in pieces of sendPiece bytes, and each piece must be
// taken within progressWindow, or the answer is cut: a client that reads
// less than 64 KiB/s (the minimum rate), or nothing at all, gives its
// reservation of in-flight bytes back within seconds rather than at the
// write timeout.
//
// A write returns once the kernel has the bytes, not the client, so the
// kernel's send buffer must stay small beside a piece: Linux grows it to
// several MiB on its own, and wakes a blocked writer only once a third of
// it is free, which a client reading 128 KiB/s frees only every few
// seconds, and so would be cut however steadily it reads. Every accepted
// connection gets a send buffer of sendBuffer bytes instead (Linux doubles
// it for its own bookkeeping): a steady client then frees room in small
// steps, and a piece waits only for the client. SO_SNDBUF is set the same
// way on Linux, macOS and Windows, where counting the bytes the client
// acknowledged is not. A buffer this size still fills a link of 256 Mbit/s
// at 10 ms, far beyond the minimum rate.
const (
	sendPiece      = 256 << 10
	progressWindow = 4 * time.Second
	sendBuffer     = 128 << 10
)

// setSendBuffer gives conn, a connection the server accepted, the send
// buffer of sendBuffer bytes. A connection that is not TCP keeps its own.
func setSendBuffer(conn net.Conn) {
	if tcp, ok := conn.(*net.TCPConn); ok {
		tcp.SetWriteBuffer(sendBuffer) // on failure the kernel's own size stays, which only the pacing notices
	}
}

// pace is the least progress an answer must make: piece bytes taken by
// the client within window. Main's is sendPiece within progressWindow;
// tests shorten the window.
type pace struct {
	piece  int
	window time.Duration
}

// answerWriter is the response writer of every answer of the API (see
// handlers.answer). For HEAD it drops the body. Behind a net/http server it
// sends a body in pieces of pace.piece bytes, each with its own write
// deadline: pace.window from when the piece starts, but never past the
// write timeout (counted from here, a little later than net/http counts
// it, from the end of the headers). net/http sets one deadline for the
// whole answer, so a client that reads nothing would otherwise keep its
// list, and the in-flight bytes reserved for it, until the write timeout,
// which is sized for the largest list at a fair rate. Anywhere else (a
// test's recorder, a benchmark's writer) there are no deadlines to set.
type answerWriter struct {
	http.ResponseWriter
	h       *handlers
	head    bool                    // HEAD: the body is dropped
	paced   bool                    // served by a net/http server: rc sets deadlines
	rc      http.ResponseController // one for the whole answer
	timeout time.Time               // the write timeout's deadline, or zero for none
	ctx     context.Context         // the request's: net/http cancels it when the client goes
	failed  error                   // the first write that failed: the answer was not sent whole
}

// start makes w the writer of req's answer, which goes to rw.
func (w *answerWriter) start(h *handlers, rw http.ResponseWriter, req *http.Request) {
	*w = answerWriter{ResponseWriter: rw, h: h, head: req.Method == http.MethodHead, ctx: req.Context()}
	// The server in the context is the one serving this request.
	if srv, ok := req.Context().Value(http.ServerContextKey).(*http.Server); ok {
		w.paced, w.rc = true, *http.NewResponseController(rw)
		if srv.WriteTimeout > 0 {
			w.timeout = time.Now().Add(srv.WriteTimeout)
		}
	}
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
func (w *answerWriter) Write(p []byte) (int, error) {
	switch {
	case w.head:
		return len(p), nil
	case !w.paced:
		n, err := w.ResponseWriter.Write(p)
		if err != nil && w.failed == nil {
			w.failed = err
		}
		return n, err
	}
	watch := len(p) > w.h.pace.piece
	if watch {
		rc := w.rc // the function may run after the answer ends, and w serves another
		stop := context.AfterFunc(w.ctx, func() { rc.SetWriteDeadline(time.Now()) })
		defer stop()
	}
	written := 0
	for written < len(p) {
		deadline, capped := time.Now().Add(w.h.pace.window), false
		if !w.timeout.IsZero() && w.timeout.Before(deadline) {
			deadline, capped = w.timeout, true
		}
		if err := w.rc.SetWriteDeadline(deadline); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return written, w.fail(err, deadline, capped)
		}
		// Checked after the deadline is set: a client that goes from here
		// on has its deadline set to now after this one.
		if watch && w.ctx.Err() != nil {
			return written, w.fail(w.ctx.Err(), deadline, capped)
		}
		n, err := w.ResponseWriter.Write(p[written:min(len(p), written+w.h.pace.piece)])
		written += n
		if err != nil {
			return written, w.fail(err, deadline, capped)
		}
	}
	return written, nil
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *answerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// fail names who ended the answer with err, the write's error; deadline is
// the one Write set, and capped says whether it was the write timeout's. A
// deadline error before that deadline comes from the one set to now when
// the client went. The request's context cannot tell: net/http cancels it
// on any failed write too.
func (w *answerWriter) fail(err error, deadline time.Time, capped bool) *cutError {
	why := "the client closed the connection"
	timedOut := errors.Is(err, os.ErrDeadlineExceeded) && !time.Now().Before(deadline)
	switch {
	case w.h.closing.Load():
		why = "the server's shutdown drain ended"
	case timedOut && capped:
		why = "the write timeout passed"
	case timedOut:
		why = fmt.Sprintf("the client took less than %d KiB in %v (the minimum rate)", w.h.pace.piece>>10, w.h.pace.window)
	}
	cut := &cutError{why, err}
	if w.failed == nil {
		w.failed = cut
	}
	return cut
}

// cutError is a body that could not be sent whole, and why.
type cutError struct {
	why string // who cut it, for the log
	err error  // the write's own error
}

func (e *cutError) Error() string { return e.why + ": " + e.err.Error() }
func (e *cutError) Unwrap() error { return e.err }
