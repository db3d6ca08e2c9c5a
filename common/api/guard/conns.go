package guard

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// What a Listener does besides admitting connections (Accept, in guard.go):
// closing, refusing, and counting a connection until it closes.

// refusedReadBytes is how much of a refused connection's request is read
// and dropped, so that the kernel does not reset the connection over the
// answer: more than api's MaxHeaderBytes and MaxBodyBytes together.
const refusedReadBytes = 128 << 10

// Close closes the listener once the connections that the kernel has
// accepted for it, and the server not yet, are answered with 503: closing
// it with them in its queue would reset them, and their clients would have
// sent a request and got no status line.
func (l *Listener) Close() error {
	l.once.Do(func() {
		close(l.done)
		queue, ok := l.Listener.(interface{ SetDeadline(time.Time) error })
		if !ok {
			return
		}
		// Accept takes what is queued, then waits until the deadline; a
		// deadline already past would fail it before it looked.
		queue.SetDeadline(time.Now().Add(10 * time.Millisecond))
		for {
			conn, err := l.Listener.Accept()
			if err != nil {
				return
			}
			l.refuse(conn, "the server is shutting down; retry in a moment")
		}
	})
	return l.Listener.Close()
}

// WaitRefusals waits until every refusal is written; each ends within its
// deadline.
func (l *Listener) WaitRefusals() { l.refusing.Wait() }

// refuse answers 503 with msg on conn, and closes it. The answer is
// written before the request is read, which HTTP allows; the connection is
// then closed for writing and drained for a moment, so that the kernel
// does not reset it, discarding the answer, for the request it did not
// read.
func (l *Listener) refuse(conn net.Conn, msg string) {
	l.Refused.Add(1)
	l.refusing.Go(func() {
		defer conn.Close()
		body, _ := json.Marshal(map[string]string{"error": msg})
		conn.SetDeadline(time.Now().Add(time.Second))
		fmt.Fprintf(conn, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"+
			"Retry-After: 1\r\nConnection: close\r\n\r\n%s", len(body), body)
		if tcp, ok := conn.(*net.TCPConn); ok {
			tcp.CloseWrite()
			io.Copy(io.Discard, io.LimitReader(conn, refusedReadBytes))
		}
	})
}

// clientConn is a connection the server accepted, which holds its slot and
// counts against its client's MaxClientConns until it is closed.
type clientConn struct {
	net.Conn
	client *client
	l      *Listener
	once   sync.Once
}

func (c *clientConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.clients.leave(c.client, true)
		<-c.l.slots
	})
	return err
}
