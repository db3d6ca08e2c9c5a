// Package guard keeps an API server within its limits, whatever its clients
// send or fail to read: the users stored (Ledger), the bytes of lists and
// bodies in flight (Guard.Reserve), each address's share of those bytes and
// of the connections (Listener), and the least rate at which an answer must
// be taken (Writer). The handlers of package api reach it through two calls
// and one writer: Ledger.ListSize, Guard.Reserve and the Writer that sends
// every answer.
package guard

import (
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/labstack/echo/v4"
)

// Guard holds what the requests of one server hold: the in-flight bytes,
// each address's share of them and of the connections, and the pace that
// answers must keep.
type Guard struct {
	// Pace is the least progress an answer must make. New sets DefaultPace;
	// a test may change it before the server starts.
	Pace Pace

	inFlight atomic.Int64
	maxBytes int64    // what inFlight may reach
	clients  *clients // what each address holds
	drained  atomic.Bool
}

// New returns a guard of limits.
func New(limits Limits) *Guard {
	return &Guard{Pace: DefaultPace, maxBytes: limits.MaxInFlightBytes, clients: newClients(limits)}
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

// Kind is what a reservation is for, which sizes it and says it in a
// refusal.
type Kind int

const (
	List Kind = iota // a list's body, built and sent
	Body             // a POST body's buffer, read
)

// Reservation is what a request took of the in-flight bytes, for Release.
type Reservation struct {
	client  *client
	entered bool  // the request entered client itself (see clientOf)
	weight  int64 // taken from Guard.inFlight
	charge  int64 // taken from the client's share
}

// Reserve takes size bytes of the in-flight budget for the request of c,
// within its client's share, or refuses the request with 503. A list
// larger than the whole budget takes all of it, and so is built alone. The
// caller defers Release, so that the bytes come back however the request
// ends: sent, cut, refused or panicking. A request whose client has gone
// takes nothing: net/http cancels its context when the connection closes.
func (g *Guard) Reserve(c echo.Context, kind Kind, size int64) (Reservation, error) {
	req := c.Request()
	if req.Context().Err() != nil {
		return Reservation{}, ErrClientGone
	}
	weight := size
	if kind == List {
		weight = min(size, g.maxBytes)
	}
	// A reservation larger than the share counts the whole share, and so
	// is served while its client holds nothing else.
	cl, entered := g.clients.clientOf(req)
	r := Reservation{client: cl, entered: entered, weight: weight, charge: min(weight, g.clients.byteShare)}
	if !g.clients.take(cl, r.charge) {
		held := g.clients.holding(cl)
		r.weight, r.charge = 0, 0 // neither was taken
		g.Release(r)
		return Reservation{}, refuse(c, fmt.Sprintf("your address already holds %d bytes of the lists and bodies in flight, "+
			"and one address may hold %d at most; %s; retry once your other answers are read", held, g.clients.byteShare, kind.needs(size)))
	}
	if !g.takeInFlight(weight) {
		r.weight = 0
		g.Release(r)
		return Reservation{}, refuse(c, fmt.Sprintf("the server is busy sending lists and reading bodies, "+
			"%d bytes at most at once, and %s; retry in a second", g.maxBytes, kind.needs(size)))
	}
	return r, nil
}

// needs says what a request of kind and size needs, for a refusal.
func (kind Kind) needs(size int64) string {
	if kind == List {
		return fmt.Sprintf("this list is %d bytes", size)
	}
	return fmt.Sprintf("this body needs %d bytes", size)
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

// Release gives back what Reserve took.
func (g *Guard) Release(r Reservation) {
	g.inFlight.Add(-r.weight)
	if r.charge != 0 {
		g.clients.give(r.client, r.charge)
	}
	if r.entered {
		g.clients.leave(r.client, false)
	}
}
