package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
)

// A request whose reservation is at most smallReservation (a list of a few
// hundred users, an ordinary POST body) may go past its client's share, by
// up to smallOverdraft in all: a client that holds its whole share in large
// lists can still read a user or a small list, while what it can hold stays
// bounded, by its share plus smallOverdraft.
const (
	smallReservation = 64 << 10
	smallOverdraft   = 4 << 20
)

// clients counts, per client, what its requests and connections hold, so
// that one client cannot hold more than a share of either: seventeen
// clients that read nothing would otherwise hold every in-flight byte
// between them, a single address sending thousands of bodies all of them,
// and a single address opening thousands of connections every one.
//
// A client is the host of the remote address, so that one program opening
// many connections is still one client. X-Forwarded-For is not used: any
// client can write that header, and one that wrote a new address in each
// request would get a new share each time. Behind a proxy, every client has
// the proxy's address, and shares it.
type clients struct {
	byteShare int64 // in-flight bytes one client may hold, smallOverdraft aside
	connShare int   // connections one client may hold open

	mu     sync.Mutex
	byHost map[string]*client // a client that holds nothing is not in it
}

// client is what one address holds.
type client struct {
	host  string
	users int   // connections open, and requests served without one (see clientOf); under clients.mu
	held  int64 // in-flight bytes; under clients.mu
}

func newClients(limits Limits) *clients {
	return &clients{byteShare: limits.MaxClientBytes, connShare: limits.connShare(), byHost: map[string]*client{}}
}

// enter counts one more user of host's client, a connection or a request,
// and returns the client; a connection beyond the client's share of them
// is not counted (ok false).
func (cs *clients) enter(host string, conn bool) (cl *client, ok bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cl = cs.byHost[host]
	if cl == nil {
		cl = &client{host: host}
		cs.byHost[host] = cl
	}
	if conn && cl.users >= cs.connShare {
		return nil, false // cl.users > 0: it stays in the map
	}
	cl.users++
	return cl, true
}

// leave counts one user of cl fewer; the client is forgotten once nothing
// uses it.
func (cs *clients) leave(cl *client) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cl.users--
	if cl.users == 0 && cs.byHost[cl.host] == cl {
		delete(cs.byHost, cl.host)
	}
}

// take counts charge bytes against cl's share and reports true, or reports
// false and counts nothing if the share has no room for them.
func (cs *clients) take(cl *client, charge int64) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	after := cl.held + charge
	if after > cs.byteShare && (charge > smallReservation || after > cs.byteShare+smallOverdraft) {
		return false
	}
	cl.held = after
	return true
}

// give takes charge, which take counted, off cl's share again.
func (cs *clients) give(cl *client, charge int64) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cl.held -= charge
}

// holding is what cl holds now.
func (cs *clients) holding(cl *client) int64 {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cl.held
}

// clientKey is the key of a connection's *client in its context, which the
// server puts there when it accepts the connection (see clientListener), so
// that a request finds its client without looking its address up.
type clientKey struct{}

// clientOf returns the client of req, and whether the request entered it
// itself and must leave it once done: a handler served without the API's
// server (a test's, a benchmark's) has no client in the connection.
func (cs *clients) clientOf(req *http.Request) (cl *client, entered bool) {
	if cl, ok := req.Context().Value(clientKey{}).(*client); ok {
		return cl, false
	}
	cl, _ = cs.enter(hostOf(req.RemoteAddr), false)
	return cl, true
}

// hostOf is the host of a remote address.
func hostOf(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr // not host:port: the whole of it is the best name there is
	}
	return host
}

// withClient is the context of a connection whose client is cl.
func withClient(ctx context.Context, cl *client) context.Context {
	return context.WithValue(ctx, clientKey{}, cl)
}

// reservation is what a request took of the in-flight bytes, for release.
type reservation struct {
	client  *client
	entered bool  // the request entered client itself (see clientOf)
	weight  int64 // taken from handlers.inFlight
	charge  int64 // taken from the client's share
}

// reserve takes weight bytes of the in-flight budget for the request of c,
// within its client's share, or refuses the request with 503; need is the
// format of what the request needs, given size, for that answer (built
// only then). The caller defers release, so that the bytes come back
// however the request ends: sent, cut, refused or panicking. A request
// whose client has gone takes nothing: net/http cancels its context when
// the connection closes.
func (h *handlers) reserve(c echo.Context, weight, size int64, need string) (reservation, error) {
	req := c.Request()
	if req.Context().Err() != nil {
		return reservation{}, errClientGone
	}
	// A reservation larger than the share counts the whole share, and so
	// is served while its client holds nothing else.
	cl, entered := h.clients.clientOf(req)
	r := reservation{client: cl, entered: entered, weight: weight, charge: min(weight, h.clients.byteShare)}
	if !h.clients.take(cl, r.charge) {
		err := h.overShare(c, cl, fmt.Sprintf(need, size))
		r.weight, r.charge = 0, 0 // neither was taken
		h.release(r)
		return reservation{}, err
	}
	if !h.takeInFlight(weight) {
		r.weight = 0
		h.release(r)
		return reservation{}, h.busy(c, fmt.Sprintf(need, size))
	}
	return r, nil
}

// takeInFlight takes weight bytes of the in-flight budget, or reports
// false if that many are not free. A request is refused at once rather than
// queued: a queue would hold the requests, and their connections, for as
// long as what is ahead takes to send, which one slow client can make long.
func (h *handlers) takeInFlight(weight int64) bool {
	for {
		held := h.inFlight.Load()
		if held+weight > h.maxBytes {
			return false
		}
		if h.inFlight.CompareAndSwap(held, held+weight) {
			return true
		}
	}
}

// release gives back what reserve took.
func (h *handlers) release(r reservation) {
	h.inFlight.Add(-r.weight)
	if r.charge != 0 {
		h.clients.give(r.client, r.charge)
	}
	if r.entered {
		h.clients.leave(r.client)
	}
}

// overShare answers 503 to a request whose client holds too much of the
// in-flight bytes already. The address is not named: an error body never
// names a socket address.
func (h *handlers) overShare(c echo.Context, cl *client, what string) error {
	c.Response().Header().Set("Retry-After", "1")
	return echo.NewHTTPError(http.StatusServiceUnavailable, fmt.Sprintf("your address already holds %d bytes "+
		"of the lists and bodies in flight, and one address may hold %d at most; %s; retry once your other answers are read",
		h.clients.holding(cl), h.clients.byteShare, what))
}

// busy answers 503 to a request that found too few in-flight bytes free;
// what says what it needed.
func (h *handlers) busy(c echo.Context, what string) error {
	c.Response().Header().Set("Retry-After", "1")
	return echo.NewHTTPError(http.StatusServiceUnavailable, fmt.Sprintf("the server is busy sending lists "+
		"and reading bodies, %d bytes at most at once, and %s; retry in a second", h.maxBytes, what))
}

// clientListener accepts at most slots connections at once, and of those
// at most the client's share from any one address: a connection beyond the
// share is answered with 503 and closed as soon as it is accepted, while
// one beyond all of them waits in the kernel's accept queue, where it holds
// nothing of the server's, until one closes. Refusing at accept time keeps
// the slots for the other addresses: a connection that only waited would
// take the next free slot, whoever needs it.
type clientListener struct {
	net.Listener
	slots    chan struct{} // one per connection open
	done     chan struct{} // closed with the listener
	once     sync.Once
	clients  *clients
	refused  *atomic.Int64  // connections refused, for their client's share or at shutdown
	refusing sync.WaitGroup // the refusals being written
}

func newClientListener(l net.Listener, slots int, cs *clients, refused *atomic.Int64) *clientListener {
	return &clientListener{Listener: l, slots: make(chan struct{}, slots), done: make(chan struct{}), clients: cs, refused: refused}
}

// Accept waits for a free slot, then for a connection whose client has
// room for it.
func (l *clientListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			<-l.slots
			return nil, err
		}
		cl, ok := l.clients.enter(hostOf(conn.RemoteAddr().String()), true)
		if !ok {
			l.refuse(conn, fmt.Sprintf("your address already holds %d connections to this server, the most one address "+
				"may hold; send your requests over those, or retry once one closes", l.clients.connShare))
			continue
		}
		setSendBuffer(conn)
		return &clientConn{Conn: conn, client: cl, l: l}, nil
	}
}

// Close closes the listener once the connections that the kernel has
// accepted for it, and the server not yet, are answered with 503: closing
// it with them in its queue would reset them, and their clients would have
// sent a request and got no status line.
func (l *clientListener) Close() error {
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

// refuse answers 503 with msg on conn, and closes it. The answer is
// written before the request is read, which HTTP allows; the connection is
// then closed for writing and drained for a moment, so that the kernel
// does not reset it, discarding the answer, for the request it did not
// read.
func (l *clientListener) refuse(conn net.Conn, msg string) {
	l.refused.Add(1)
	l.refusing.Go(func() {
		defer conn.Close()
		body, _ := json.Marshal(map[string]string{"error": msg})
		conn.SetDeadline(time.Now().Add(time.Second))
		fmt.Fprintf(conn, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"+
			"Retry-After: 1\r\nConnection: close\r\n\r\n%s", len(body), body)
		if tcp, ok := conn.(*net.TCPConn); ok {
			tcp.CloseWrite()
			io.Copy(io.Discard, io.LimitReader(conn, MaxHeaderBytes+MaxBodyBytes))
		}
	})
}

// clientConn is a connection the server accepted, which holds its slot and
// counts against its client's share until it is closed.
type clientConn struct {
	net.Conn
	client *client
	l      *clientListener
	once   sync.Once
}

func (c *clientConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.clients.leave(c.client)
		<-c.l.slots
	})
	return err
}

// clientContext is the context of conn, which carries its client if the
// server accepted it through a clientListener (see clientOf).
func clientContext(ctx context.Context, conn net.Conn) context.Context {
	if c, ok := conn.(*clientConn); ok {
		return withClient(ctx, c.client)
	}
	return ctx
}
