// Package guard keeps an API server within its limits, whatever its clients
// send or fail to read: the users stored (Ledger), the connections and each
// address's share of them (Listener), the bytes of lists and bodies in
// flight and each address's share of those (ReserveList, ReserveBody), and
// the least rate at which an answer must be taken (Writer). A GET reaches
// it through two calls and one writer: ReserveList, the reservation's
// Release, and the Writer that sends every answer; a POST or DELETE goes
// through the Ledger as well.
package guard

import (
	"fmt"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
)

// This file holds what a request reaches, in the order it reaches it: the
// Listener admits its connection, and a reservation takes the bytes its
// list or body needs. What they call beneath them is named for what it does:
// each address's share in clients.go, a list's size in ledger.go, a
// connection's refusal and closing in conns.go.

// Guard holds what the requests of one server hold: the in-flight bytes,
// each address's share of them and of the connections, and the pace that
// answers must keep.
type Guard struct {
	// Pace is the least progress an answer must make. New sets DefaultPace;
	// a test may change it before the server starts.
	Pace Pace

	// Log is where the rate of a client cut for the minimum rate is
	// logged once it is measured (see RateWindow); nil: log's default.
	Log *log.Logger

	inFlight atomic.Int64
	maxBytes int64    // what inFlight may reach
	clients  *clients // what each address holds
	ledger   *Ledger  // each list's size, for ReserveList
	drained  atomic.Bool

	readingOut atomic.Int64 // cut clients whose rate is being measured (see readOut)
}

// New returns a guard of limits, whose lists are sized by ledger (nil: a
// guard that reserves no list by its role).
func New(limits Limits, ledger *Ledger) *Guard {
	return &Guard{Pace: DefaultPace, maxBytes: limits.MaxInFlightBytes, clients: newClients(limits), ledger: ledger}
}

// Listener accepts at most MaxConns connections at once, of those at most
// the client's share from any one address, and keeps the last few slots
// for addresses that hold no connection. A connection beyond the share or
// in the reserve is answered with 503 and closed as soon as it is accepted,
// while one beyond all of them waits in the kernel's accept queue, where it
// holds nothing of the server's, until one closes. Refusing at accept time
// keeps the slots for the other addresses: a connection that only waited
// would take the next free slot, whoever needs it.
type Listener struct {
	net.Listener

	// Answer makes the 503 to a refused connection; Listen sets JSONAnswer.
	Answer func(msg string) (contentType string, body []byte)

	Refused    atomic.Int64 // connections answered 503, for their client's share, the reserve, or at shutdown
	Unanswered atomic.Int64 // connections refused and reset: MaxRefusing were being written, or the write failed

	// Of those, the connections the kernel had queued at shutdown (see Close).
	QueuedAnswered, QueuedReset atomic.Int64

	slots    chan struct{} // one per connection open
	writing  chan struct{} // one per refusal being written
	done     chan struct{} // closed with the listener
	once     sync.Once
	clients  *clients
	refusing sync.WaitGroup // the refusals being written
}

// Listen wraps l in a Listener of limits, whose addresses share g's.
func (g *Guard) Listen(l net.Listener, limits Limits) *Listener {
	return &Listener{Listener: l, Answer: JSONAnswer, slots: make(chan struct{}, limits.MaxConns),
		writing: make(chan struct{}, MaxRefusing), done: make(chan struct{}), clients: g.clients}
}

// Accept waits for a free slot, then for a connection whose client has
// room for it. The connection counts against its client until it closes
// (clientConn), and its requests find their client in their context (see
// ConnContext).
func (l *Listener) Accept() (net.Conn, error) {
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
		host := HostOf(conn.RemoteAddr().String())
		cl, refusal := l.clients.enter(host, true)
		switch refusal {
		case overConnShare:
			l.refuse(conn, fmt.Sprintf(refusal, l.clients.connShare), time.Time{})
			continue
		case inConnReserve:
			l.refuse(conn, fmt.Sprintf(refusal, l.clients.holdingConns(host)), time.Time{})
			continue
		}
		setSendBuffer(conn)
		return &clientConn{Conn: conn, client: cl, l: l}, nil
	}
}

// Reservation is what a request took of the in-flight bytes, until its
// Release.
type Reservation struct {
	Size int64 // the bytes of the list or body it was taken for

	g       *Guard
	client  *client
	entered bool  // the request entered client itself (see clientOf)
	weight  int64 // taken from Guard.inFlight
	charge  int64 // taken from the client's share
}

// ReserveList takes the in-flight bytes of the body of GET /users?role=role
// for the request of c, or refuses it with 503, before the stage builds the
// body. built is the body if the stage keeps its lists built, whose length
// is then the size; otherwise the ledger knows the size, under the same
// lock as the writes. A list larger than the whole budget takes all of it,
// and so is built alone. A HEAD takes nothing, since its body is never
// sent, and is told the size alone.
func (g *Guard) ReserveList(c echo.Context, role string, built []byte) (Reservation, error) {
	size := int64(len(built))
	if built == nil {
		size = g.ledger.listSize(role)
	}
	if c.Request().Method == http.MethodHead {
		return Reservation{Size: size}, nil
	}
	return g.reserve(c, size, min(size, g.maxBytes), "this list is")
}

// ReserveBody takes size bytes of the in-flight budget for the buffer of
// the POST body of c, or refuses it with 503, before the body is read.
func (g *Guard) ReserveBody(c echo.Context, size int64) (Reservation, error) {
	return g.reserve(c, size, size, "this body needs")
}

// reserve takes weight bytes of the in-flight budget for a list or body of
// size bytes, for the request of c, within its client's share, or refuses
// the request with 503, whose message says that it needs ("this list is")
// size bytes. The caller defers Release, so that the bytes come back
// however the request ends: sent, cut, refused or panicking. A request
// whose client has gone takes nothing: net/http cancels its context when
// the connection closes.
func (g *Guard) reserve(c echo.Context, size, weight int64, needs string) (Reservation, error) {
	req := c.Request()
	if req.Context().Err() != nil {
		return Reservation{}, ErrClientGone
	}
	// A reservation larger than the share counts the whole share, and so
	// is served while its client holds nothing else.
	cl, entered := g.clients.clientOf(req)
	r := Reservation{Size: size, g: g, client: cl, entered: entered, weight: weight, charge: min(weight, g.clients.byteShare)}
	if !g.clients.take(cl, r.charge) {
		held := g.clients.holding(cl)
		r.weight, r.charge = 0, 0 // neither was taken
		r.Release()
		return Reservation{}, refuse(c, fmt.Sprintf("your address already holds %d bytes of the lists and bodies in flight, "+
			"and one address may hold %d at most; %s %d bytes; retry once your other answers are read",
			held, g.clients.byteShare, needs, size))
	}
	if !g.takeInFlight(weight) {
		r.weight = 0
		r.Release()
		return Reservation{}, refuse(c, fmt.Sprintf("the server is busy sending lists and reading bodies, "+
			"%d bytes at most at once, and %s %d bytes; retry in a second", g.maxBytes, needs, size))
	}
	return r, nil
}

// takeInFlight takes weight bytes of the in-flight budget, or reports
// false if that many are not free. A request is refused at once rather than
// queued: a queue would hold the requests, and their connections, for as
// long as what is ahead takes to send, which one slow client can make long.
func (g *Guard) takeInFlight(weight int64) bool {
	for {
		held := g.inFlight.Load()
		if held+weight > g.maxBytes {
			return false
		}
		if g.inFlight.CompareAndSwap(held, held+weight) {
			return true
		}
	}
}

// Release gives back what the reservation took.
func (r Reservation) Release() {
	if r.weight != 0 {
		r.g.inFlight.Add(-r.weight)
	}
	if r.charge != 0 {
		r.g.clients.give(r.client, r.charge)
	}
	if r.entered {
		r.g.clients.leave(r.client, false)
	}
}

// ErrClientGone answers a request whose client has closed its connection.
// Nobody reads it; 499 is the status that nginx and others log for it, so
// that a log tells it from an answer that was sent.
var ErrClientGone = echo.NewHTTPError(499, "the client closed the connection before the answer was built")

// refuse is the 503 with msg. The address is not named: an error body
// never names a socket address.
func refuse(c echo.Context, msg string) error {
	c.Response().Header().Set("Retry-After", "1")
	return echo.NewHTTPError(http.StatusServiceUnavailable, msg)
}

// EndDrain tells the guard that the server's shutdown drain is over, so
// that an answer cut from then on is logged as the server's doing.
func (g *Guard) EndDrain() { g.drained.Store(true) }

// Held is what the requests hold now: in-flight bytes, and how many
// addresses hold any bytes or connections.
func (g *Guard) Held() (bytes int64, addresses int) {
	g.clients.mu.Lock()
	defer g.clients.mu.Unlock()
	return g.inFlight.Load(), len(g.clients.byHost)
}
