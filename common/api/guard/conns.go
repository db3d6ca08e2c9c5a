package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// refusedReadBytes is how much of a refused connection's request is read
// and dropped, so that the kernel does not reset the connection over the
// answer: more than api's MaxHeaderBytes and MaxBodyBytes together.
const refusedReadBytes = 128 << 10

// MaxRefusing is how many 503s to refused connections are written at once,
// each holding a goroutine for up to a second. Beyond it, a connection is
// reset, or, queued at shutdown, waits for a turn within DrainQueueTime.
const MaxRefusing = 1024

// DrainQueueTime bounds the shutdown's drain of the kernel's accept queue:
// the connections taken after it are reset, so that a client that keeps
// connecting cannot keep the server from stopping.
const DrainQueueTime = 2 * time.Second

const (
	maxDrainResets = 1 << 16               // more than any kernel queues (Linux: 65535)
	drainLook      = 50 * time.Millisecond // how long the drain waits for a queued connection
)

// Close closes the listener once the connections that the kernel has
// queued for it are answered with 503: closing it with them queued would
// reset them, after their clients had sent a request.
func (l *Listener) Close() error {
	l.once.Do(func() {
		close(l.done)
		queue, ok := l.Listener.(interface{ SetDeadline(time.Time) error })
		if !ok {
			return
		}
		end := time.Now().Add(DrainQueueTime)
		for taken, empty := 0, 0; taken < maxDrainResets; {
			// A deadline already past fails Accept before it looks, and
			// this goroutine may wait behind a thousand refusals for a core:
			// so only two empty looks in a row end the drain.
			queue.SetDeadline(time.Now().Add(drainLook))
			conn, err := l.Listener.Accept()
			switch {
			case errors.Is(err, os.ErrDeadlineExceeded):
				if empty++; empty == 2 {
					return
				}
				continue
			case err != nil && !errors.Is(err, net.ErrClosed) && time.Now().Before(end):
				time.Sleep(drainLook) // out of file descriptors, say, until the refusals close theirs
				continue
			case err != nil:
				return
			}
			empty = 0
			if time.Now().After(end) {
				taken++
				l.count(true, false)
				reset(conn)
				continue
			}
			l.refuse(conn, "the server is shutting down; retry in a moment", end)
		}
	})
	return l.Listener.Close()
}

// WaitRefusals waits until every refusal is written.
func (l *Listener) WaitRefusals() { l.refusing.Wait() }

// refuse answers 503 with msg on conn, before reading the request, and
// closes it. A connection queued at shutdown may wait until wait (zero:
// not at all) for one of the MaxRefusing turns; without one, it is reset.
func (l *Listener) refuse(conn net.Conn, msg string, wait time.Time) {
	queued := !wait.IsZero()
	if !l.takeTurn(wait) {
		l.count(queued, false)
		reset(conn)
		return
	}
	l.refusing.Go(func() {
		defer func() { <-l.writing }()
		defer conn.Close()
		contentType, body := l.Answer(msg)
		conn.SetDeadline(time.Now().Add(time.Second))
		_, err := fmt.Fprintf(conn, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: %s\r\nContent-Length: %d\r\n"+
			"Retry-After: 1\r\nConnection: close\r\n\r\n%s", contentType, len(body), body)
		l.count(queued, err == nil)
		// Drained, so that the kernel does not reset the connection, and
		// drop the answer, for the request nobody read.
		if tcp, ok := conn.(*net.TCPConn); ok && err == nil {
			tcp.CloseWrite()
			io.Copy(io.Discard, io.LimitReader(conn, refusedReadBytes))
		}
	})
}

// takeTurn takes a turn to write a refusal, waiting until wait at most.
func (l *Listener) takeTurn(wait time.Time) bool {
	select {
	case l.writing <- struct{}{}:
		return true
	default:
		if wait.IsZero() {
			return false
		}
	}
	timer := time.NewTimer(time.Until(wait))
	defer timer.Stop()
	select {
	case l.writing <- struct{}{}:
		return true
	case <-timer.C:
		return false
	}
}

// count counts a refused connection as answered or reset, and among those
// queued at shutdown if queued.
func (l *Listener) count(queued, answered bool) {
	switch {
	case answered && queued:
		l.QueuedAnswered.Add(1)
	case queued:
		l.QueuedReset.Add(1)
	}
	if answered {
		l.Refused.Add(1)
	} else {
		l.Unanswered.Add(1)
	}
}

// JSONAnswer is the API's answer to a refused connection: its JSON error.
func JSONAnswer(msg string) (contentType string, body []byte) {
	body, _ = json.Marshal(map[string]string{"error": msg})
	return "application/json", body
}

// reset closes conn with a reset, so that its client knows it got no answer.
func reset(conn net.Conn) {
	if tcp, ok := conn.(*net.TCPConn); ok {
		tcp.SetLinger(0)
	}
	conn.Close()
}

// clientConn is an accepted connection, which holds its slot and counts
// against its client until it is closed.
type clientConn struct {
	net.Conn
	client *client
	l      *Listener
	once   sync.Once
}

func (c *clientConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.clients.mu.Lock()
		c.l.clients.leaveLocked(c.client, true)
		c.l.clients.mu.Unlock()
		<-c.l.slots
	})
	return err
}
