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
// one that falls further behind than the grace is cut, and gives its
// in-flight bytes back within seconds.
const MinRate = 64 << 10

// DefaultPace is MinRate, with a grace for the bursts in which the kernel
// frees room in its socket buffers.
var DefaultPace = Pace{Rate: MinRate, Grace: 4 * time.Second}

// SendPiece is the most that one write hands the kernel, each with its own
// deadline. SendBuffer is every accepted connection's send buffer: Linux
// would grow it to several MiB, which would judge the buffer, not the
// client.
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

// setSendBuffer gives conn a send buffer of SendBuffer bytes.
func setSendBuffer(conn net.Conn) {
	if tcp, ok := conn.(*net.TCPConn); ok {
		tcp.SetWriteBuffer(SendBuffer) // on failure the kernel's own size stays, which only the pacing notices
	}
}

// Writer is the response writer of every answer (see Guard.begin). It
// drops a HEAD's body. Behind a net/http server it sends a body in pieces
// of SendPiece, each with the deadline that the pace sets, where net/http
// sets one for the whole answer: too long for a client that reads nothing,
// too short for a large answer read steadily.
type Writer struct {
	http.ResponseWriter
	g      *Guard
	head   bool                    // the body is dropped
	paced  bool                    // served by net/http: rc sets deadlines
	rc     http.ResponseController // one for the whole answer
	ctx    context.Context         // the request's: net/http cancels it when the client goes
	start  time.Time               // the write timeout's deadline, for the first piece; zero for none
	since  time.Time               // when the client was last ahead of the pace
	taken  int64                   // bytes written since then
	began  time.Time               // when the first piece was written
	sent   int64                   // bytes written in all
	conn   net.Conn                // the connection, if the guard's Listener accepted it
	req    *http.Request           // for the log of a cut
	failed error                   // the first write that failed
}

// Write sends p a piece at a time, and stops at the first piece that the
// client does not take in time. A body of more than one piece also stops,
// even mid-piece, once the client has gone (the request's context is
// done): its in-flight bytes would be held for nobody until the pace cut it.
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
	watch := len(p) > SendPiece // one piece is sent whole: stopping it would save nothing
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
		// After the deadline is set: the client's going from here on sets
		// it to now.
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
// plus its grace. A client ahead keeps no credit. The first piece is due
// by the write timeout, which bounds the building of the answer.
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

// fail says who cut the answer with err, the write's error; deadline is
// the one Write set, and spare a copy of the connection or nil. A deadline
// error before that deadline is the client's going (the request's context
// cannot tell: net/http cancels it on any failed write).
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
// deadline, so that the connection outlives net/http's close of it at the
// failed write (see readOut). Windows gives no copy.
type spareKeeper struct {
	tcp   *net.TCPConn
	timer *time.Timer
	ran   sync.WaitGroup // the timer's function, armed and not yet done
	file  *os.File       // the copy
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

// RateWindow bounds how long after a cut readOut waits for the client;
// MaxReadOuts bounds how many it waits for at once, outside the connection
// cap.
const (
	RateWindow  = 30 * time.Second
	MaxReadOuts = 256
)

// readOut logs the rate at which the client of an answer cut for the
// minimum rate read it: what the kernel took before the cut says little,
// as the client's buffers took hundreds of KiB at once. spare, a copy of
// the connection, closed for writing, lets the client read the sent bytes,
// sent from began; the rate runs until it closes its end, RateWindow at most.
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
