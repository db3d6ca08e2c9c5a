package guard

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// MinRate is the slowest a client may take an answer, in bytes a second:
// one that falls further behind it than DefaultPace's grace is cut, and
// gives its reservation of in-flight bytes back within seconds, not when
// the whole answer would have been sent. A client at or above it is never
// cut, however large the answer.
const MinRate = 64 << 10

// DefaultPace is the pace of every server: MinRate, and a grace that
// covers the bursts in which the kernel frees room in its socket buffers.
var DefaultPace = Pace{Rate: MinRate, Grace: 4 * time.Second}

// SendPiece is the most that one write hands the kernel, each with its own
// deadline. SendBuffer is the send buffer of every accepted connection:
// Linux would grow it to several MiB, which a slow client drains only
// seconds after the writer hands it a piece, and Linux wakes a blocked
// writer only once a third of it is free. SO_SNDBUF works alike on Linux,
// macOS and Windows, where counting acknowledged bytes does not.
const (
	SendPiece  = 64 << 10
	SendBuffer = 128 << 10
)

// Pace is the least progress an answer must make: Rate bytes a second,
// counted from when the client was last ahead of it, less Grace.
type Pace struct {
	Rate  int64         // bytes a second
	Grace time.Duration // how far behind Rate a client may fall
}

// setSendBuffer gives conn, a connection the server accepted, the send
// buffer of SendBuffer bytes. A connection that is not TCP keeps its own.
func setSendBuffer(conn net.Conn) {
	if tcp, ok := conn.(*net.TCPConn); ok {
		tcp.SetWriteBuffer(SendBuffer) // on failure the kernel's own size stays, which only the pacing notices
	}
}

// Writer is the response writer of every answer of the API. For HEAD it
// drops the body. Behind a net/http server it sends a body in pieces of
// SendPiece bytes, each with a write deadline that the pace sets: net/http
// sets one deadline for the whole answer, so a client that reads nothing
// would otherwise keep its list, and the in-flight bytes reserved for it,
// until that deadline, while one reading steadily would be cut by it. Anywhere else (a test's recorder, a
// benchmark's writer) there are no deadlines to set. The guard makes one
// the writer of every answer, as it begins (Guard.begin).
type Writer struct {
	http.ResponseWriter
	g      *Guard
	head   bool                    // HEAD: the body is dropped
	paced  bool                    // served by a net/http server: rc sets deadlines
	rc     http.ResponseController // one for the whole answer
	ctx    context.Context         // the request's: net/http cancels it when the client goes
	start  time.Time               // the server's write timeout's deadline, for the first piece; zero for none
	since  time.Time               // when the client was last ahead of the pace
	taken  int64                   // bytes written since then
	began  time.Time               // when the first piece was written
	sent   int64                   // bytes written in all
	conn   net.Conn                // the connection underneath, if the guard's Listener accepted it
	req    *http.Request           // for the log of a cut
	failed error                   // the first write that failed: the answer was not sent whole
}

// Write sends p a piece at a time, and stops at the first piece that the
// client does not take by the time the pace allows.
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
func (w *Writer) Write(p []byte) (int, error) {
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
	watch := len(p) > SendPiece
	if watch {
		rc := w.rc // the function may run after the answer ends, and w serves another
		stop := context.AfterFunc(w.ctx, func() { rc.SetWriteDeadline(time.Now()) })
		defer stop()
	}
	var keeper *spareKeeper // see readOut
	if tcp, ok := w.conn.(*net.TCPConn); ok && watch {
		keeper = &spareKeeper{tcp: tcp}
	}
	written := 0
	for written < len(p) {
		piece := p[written:min(len(p), written+SendPiece)]
		deadline := w.deadline(len(piece))
		if err := w.rc.SetWriteDeadline(deadline); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return written, w.fail(err, deadline, nil)
		}
		// Checked after the deadline is set: a client that goes from here
		// on has its deadline set to now after this one.
		if watch && w.ctx.Err() != nil {
			return written, w.fail(w.ctx.Err(), deadline, nil)
		}
		if w.began.IsZero() {
			w.began = time.Now()
		}
		if keeper != nil {
			keeper.arm(deadline.Add(-w.g.Pace.Grace / 4))
		}
		n, err := w.ResponseWriter.Write(piece)
		written += n
		w.taken += int64(n)
		w.sent += int64(n)
		var spare *os.File
		if keeper != nil {
			spare = keeper.disarm()
		}
		if err != nil {
			return written, w.fail(err, deadline, spare)
		}
		if spare != nil {
			spare.Close()
		}
	}
	return written, nil
}

// deadline is when the next n bytes must be taken: when they, and those
// taken since the client was last ahead of the pace, are due at its rate,
// plus its grace. A client ahead of the pace keeps no credit: one that
// took a list fast and then stops is cut as soon as one that was slow.
// The first piece must also start within the server's write timeout,
// which bounds the building of the answer; the pace bounds the rest.
func (w *Writer) deadline(n int) time.Time {
	now, rate, first := time.Now(), w.g.Pace.Rate, w.since.IsZero()
	due := func(bytes int64) time.Time { return w.since.Add(time.Duration(bytes * int64(time.Second) / rate)) }
	if first || due(w.taken).After(now) {
		w.since, w.taken = now, 0
	}
	deadline := due(w.taken + int64(n)).Add(w.g.Pace.Grace)
	if first && !w.start.IsZero() && w.start.Before(deadline) {
		return w.start
	}
	return deadline
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *Writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// fail names who ended the answer with err, the write's error; deadline is
// the one Write set, and spare a copy of the connection or nil. A deadline
// error before that deadline comes from the one set to now when the
// client went. The request's context cannot tell: net/http cancels it on
// any failed write too.
func (w *Writer) fail(err error, deadline time.Time, spare *os.File) *CutError {
	why := "the client closed the connection"
	timedOut := errors.Is(err, os.ErrDeadlineExceeded) && !time.Now().Before(deadline)
	switch {
	case w.g.drained.Load():
		why = "the server's shutdown drain ended"
	case timedOut && deadline.Equal(w.start):
		why = "the write timeout passed"
	case timedOut:
		elapsed := time.Since(w.since)
		follows := ""
		if spare != nil && w.g.readingOut.Add(1) > MaxReadOuts {
			w.g.readingOut.Add(-1) // spare is closed below
		} else if spare != nil {
			follows = "; the rate it read at is logged once it has read what was sent"
			go w.g.readOut(spare, w.req.Method+" "+w.req.URL.String(), w.began, w.sent)
			spare = nil
		}
		why = fmt.Sprintf("the client fell behind the minimum rate of %d KiB/s (its kernel took %d bytes in the last %v%s)",
			w.g.Pace.Rate>>10, w.taken, elapsed.Round(time.Millisecond), follows)
	}
	if spare != nil {
		spare.Close()
	}
	cut := &CutError{why, err}
	if w.failed == nil {
		w.failed = cut
	}
	return cut
}

// CutError is a body that could not be sent whole, and why.
type CutError struct {
	Why string // who cut it, for the log
	err error  // the write's own error
}

func (e *CutError) Error() string { return e.Why + ": " + e.err.Error() }
func (e *CutError) Unwrap() error { return e.err }

// spareKeeper takes a copy of a connection shortly before a piece's
// deadline, while the piece waits for the socket, so that the connection
// outlives net/http's close of it at the failed write (see readOut). Where
// a copy cannot be taken (Windows), the cut's log says less.
type spareKeeper struct {
	tcp   *net.TCPConn
	timer *time.Timer
	ran   sync.WaitGroup // the timer's function, armed and not yet done
	file  *os.File       // the copy, set by the timer's function
}

// arm has the copy taken at at, unless disarm comes first.
func (k *spareKeeper) arm(at time.Time) {
	k.ran.Add(1)
	if k.timer == nil {
		k.timer = time.AfterFunc(time.Until(at), func() {
			defer k.ran.Done()
			if f, err := k.tcp.File(); err == nil {
				k.file = f
			}
		})
		return
	}
	k.timer.Reset(time.Until(at))
}

// disarm stops the timer and returns the copy it took, if it ran.
func (k *spareKeeper) disarm() *os.File {
	if k.timer.Stop() {
		k.ran.Done()
	}
	k.ran.Wait()
	f := k.file
	k.file = nil
	return f
}

// RateWindow bounds how long after a cut for the minimum rate the server
// waits for the client to read what was sent (see readOut); MaxReadOuts
// bounds how many it waits for at once, each holding a socket and a
// goroutine outside the connection cap: beyond it, the rate is not logged.
const (
	RateWindow  = 30 * time.Second
	MaxReadOuts = 256
)

// readOut logs the rate at which the client of an answer cut for the
// minimum rate read it. What the kernel took in the seconds before the cut
// says little: the client's buffers took hundreds of KiB at once, and the
// kernel learns of its reads only in window updates of up to 64 KiB. So
// a piece that nears its deadline has a copy of the connection taken,
// spare, which keeps it open when net/http closes its own at the failed write:
// closed for writing, the connection lets the client read what was sent,
// sent bytes in all from began, and the rate is those bytes over the time
// until it closes its end, at most RateWindow after the cut. The answer's
// in-flight bytes are given back at the cut, and its slot of MaxConns as
// net/http closes its own copy of the connection.
func (g *Guard) readOut(spare *os.File, what string, began time.Time, sent int64) {
	defer g.readingOut.Add(-1)
	conn, err := net.FileConn(spare)
	spare.Close()
	if err != nil {
		return
	}
	defer conn.Close()
	if tcp, ok := conn.(*net.TCPConn); ok {
		tcp.CloseWrite()
	}
	conn.SetDeadline(time.Now().Add(RateWindow))
	_, err = io.Copy(io.Discard, io.LimitReader(conn, refusedReadBytes))
	elapsed := time.Since(began)
	rate := float64(sent) / 1024 / elapsed.Seconds()
	logger := cmp.Or(g.Log, log.Default())
	if errors.Is(err, os.ErrDeadlineExceeded) {
		logger.Printf("answer cut: %s: the client had not read the %d bytes sent %v after the cut: it read at %.1f KiB/s at most",
			what, sent, RateWindow, rate)
		return
	}
	logger.Printf("answer cut: %s: the client read the %d bytes sent in %v, from the first until it closed the connection: %.1f KiB/s",
		what, sent, elapsed.Round(time.Millisecond), rate)
}
