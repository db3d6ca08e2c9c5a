// Package guard keeps an API server within its limits, whatever its clients
// send or fail to read: the users stored (Ledger), the connections and how
// many of them one client may hold (Listener), and, around each route's
// handler, the bytes of lists and bodies in flight, how many of those one
// client may hold, and the least rate at which an answer must be taken
// (List, Body and Wrap, each wrapped around a handler once, the way Echo's
// BodyLimit middleware wraps one).
package guard

import (
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
)

// This file holds what a request passes, in the order it passes it: the
// Listener admitted its connection; List, Body or Wrap begins its answer
// with a paced Writer (pacing.go), takes the bytes in flight that its list
// or body needs, runs the handler and ends the answer. What a client is,
// and its connections, are in clients.go; a connection's refusal and
// closing in conns.go.

// Guard holds what the requests of one server hold: the in-flight bytes,
// what each client holds of them and of the connections, and the pace that
// answers must keep.
type Guard struct {
	// Pace is the least progress an answer must make. New sets DefaultPace;
	// a test may change it before the server starts.
	Pace Pace

	// Log gets a line for each answer that could not be sent whole. New
	// sets log.Default().
	Log *log.Logger

	// Answers counts the answers ended since the server started.
	Answers Answers

	inFlight         atomic.Int64
	maxInFlightBytes int64     // what inFlight may reach
	clients          *clients  // what each client holds
	ledger           *Ledger   // each list's size, for List
	answers          sync.Pool // of *answer: one serves each request, and is reused
	drained          atomic.Bool

	readingOut atomic.Int64 // cut clients whose rate is being measured (see readOut)
}

// New returns a guard of limits, whose lists are sized by ledger (nil: a
// guard that serves no List).
func New(limits Limits, ledger *Ledger) *Guard {
	return &Guard{Pace: DefaultPace, Log: log.Default(), maxInFlightBytes: limits.MaxInFlightBytes, clients: newClients(limits), ledger: ledger}
}

// Listener accepts at most MaxConns connections at once, of those at most
// MaxClientConns from any one client, and keeps the last few slots for
// clients that hold no connection. A connection beyond MaxClientConns or
// in the reserve is answered with 503 and closed as soon as it is accepted,
// while one beyond all of them waits in the kernel's accept queue, where it
// holds nothing of the server's, until one closes. Refusing at accept time
// keeps the slots for the other clients: a connection that only waited
// would take the next free slot, whoever needs it.
type Listener struct {
	net.Listener

	// Answer makes the 503 to a refused connection; Listen sets JSONAnswer.
	Answer func(msg string) (contentType string, body []byte)

	Refused    atomic.Int64 // connections answered 503, for MaxClientConns, the reserve, or at shutdown
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

// Listen wraps l in a Listener of limits, whose clients are g's.
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
		case overClientConns:
			l.refuse(conn, fmt.Sprintf(refusal, l.clients.maxClientConns), time.Time{})
			continue
		case inConnReserve:
			l.refuse(conn, fmt.Sprintf(refusal, l.clients.holdingConns(host)), time.Time{})
			continue
		}
		setSendBuffer(conn)
		return &clientConn{Conn: conn, client: cl, l: l}, nil
	}
}

// Answers counts the answers of a server since it started, for the last
// line of its log.
type Answers struct {
	Started  atomic.Int64
	Finished atomic.Int64 // sent whole
	Cut      atomic.Int64 // not sent whole
	Gone     atomic.Int64 // 499: the client went before the answer started
	Refused  atomic.Int64 // 503: the server had no room for them
}

// InProgress is how many answers have started and not ended.
func (a *Answers) InProgress() int64 {
	return a.Started.Load() - a.Finished.Load() - a.Cut.Load() - a.Gone.Load() - a.Refused.Load()
}

// answer is one request in the guard: the writer of its answer, and what
// it took of the in-flight bytes until end.
type answer struct {
	w       Writer
	client  *client
	entered bool  // the request entered client itself (see take)
	weight  int64 // taken from Guard.inFlight
	charge  int64 // taken from what the client may hold
}

// List wraps list, the handler of GET and HEAD /users?role=R, in the guard.
// role reads the request's role, or refuses the request. The ledger knows
// the size of the role's list, under the same lock as the writes, so a GET
// takes that many bytes in flight, or is refused with 503, before the stage
// builds anything; a list larger than the whole budget takes all of it, and
// so is built alone. A HEAD takes nothing, since its body is never sent:
// list answers it from the size alone.
func (g *Guard) List(role func(*http.Request) (string, error), list func(c echo.Context, role string, size int64) error) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		a := g.begin(c)
		defer g.end(c, a, &err)
		req := c.Request()
		if req.Context().Err() != nil {
			return ErrClientGone
		}
		r, err := role(req)
		if err != nil {
			return err
		}
		size := g.listSize(r)
		if req.Method != http.MethodHead {
			if err := g.reserve(c, a, size, min(size, g.maxInFlightBytes), "this list is"); err != nil {
				return err
			}
		}
		return list(c, r, size)
	}
}

// Body wraps create, the handler of a request with a body, in the guard.
// capacity says how large a buffer the body is read into, or refuses the
// request (a body announced as too large); the request takes that many
// bytes in flight, or is refused with 503, before the body is read:
// thousands of bodies arriving slowly would otherwise hold their buffers
// uncounted until the read timeout. A request refused before its body is
// read closes its connection after the answer: net/http would otherwise
// read the rest of the body first, for the next request, and so answer a
// body arriving slowly only at the read timeout.
func (g *Guard) Body(capacity func(*http.Request) (int, error), create func(c echo.Context, capacity int) error) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		a := g.begin(c)
		defer g.end(c, a, &err)
		if c.Request().Context().Err() != nil {
			return ErrClientGone
		}
		n, err := capacity(c.Request())
		if err == nil {
			err = g.reserve(c, a, int64(n), int64(n), "this body needs")
		}
		if err != nil {
			c.Response().Header().Set(echo.HeaderConnection, "close")
			return err
		}
		return create(c, n)
	}
}

// Wrap wraps next, a handler that takes no bytes in flight (a user's GET,
// a DELETE), in the guard.
func (g *Guard) Wrap(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		a := g.begin(c)
		defer g.end(c, a, &err)
		if c.Request().Context().Err() != nil {
			return ErrClientGone
		}
		return next(c)
	}
}

// begin counts the answer of c as started and gives it a Writer, which
// drops a HEAD's body and, behind a net/http server, paces the others.
func (g *Guard) begin(c echo.Context) *answer {
	g.Answers.Started.Add(1)
	a, _ := g.answers.Get().(*answer)
	if a == nil {
		a = new(answer)
	}
	req, res := c.Request(), c.Response()
	a.w = Writer{ResponseWriter: res.Writer, g: g, head: req.Method == http.MethodHead, ctx: req.Context(), req: req}
	// Only net/http's server puts itself in a request's context.
	if srv, ok := req.Context().Value(http.ServerContextKey).(*http.Server); ok {
		a.w.paced, a.w.rc = true, *http.NewResponseController(res.Writer)
		if c, ok := req.Context().Value(clientKey{}).(*clientConn); ok {
			a.w.conn = c.Conn
		}
		if srv.WriteTimeout > 0 {
			a.w.start = time.Now().Add(srv.WriteTimeout)
		}
	}
	res.Writer = &a.w
	return a
}

// listSize is the length of the body of GET /users?role=role, which
// encoding/json.Marshal makes '[', the users' encodings joined by commas,
// and ']'.
func (g *Guard) listSize(role string) int64 {
	g.ledger.mu.RLock()
	r, ok := g.ledger.roles[role]
	g.ledger.mu.RUnlock()
	if !ok {
		return int64(len("[]"))
	}
	return r.json + int64(r.users-1) + 2
}

// reserve takes weight bytes in flight for a list or body of size bytes,
// within what the request's client may hold, or refuses the request with
// 503, whose message says that it needs ("this list is") size bytes. A
// reservation larger than MaxClientBytes counts as MaxClientBytes, and so
// is served while its client holds nothing else. end gives back what it
// took, however the request ends: sent, cut, refused or panicking.
func (g *Guard) reserve(c echo.Context, a *answer, size, weight int64, needs string) error {
	if held, ok := g.take(c.Request(), a, min(weight, g.clients.maxClientBytes)); !ok {
		return refuse(c, fmt.Sprintf("you already hold %d bytes of the lists and bodies in flight, "+
			"and one client may hold %d at most; %s %d bytes; retry once your other answers are read",
			held, g.clients.maxClientBytes, needs, size))
	}
	if !g.takeInFlight(weight) {
		return refuse(c, fmt.Sprintf("the server is busy sending lists and reading bodies, "+
			"%d bytes at most at once, and %s %d bytes; retry in a second", g.maxInFlightBytes, needs, size))
	}
	a.weight = weight
	return nil
}

// take counts charge bytes against the client of req, or reports false
// and what the client holds if that would take it past MaxClientBytes
// (small reservations aside, see SmallOverdraft). A request served without
// the Listener (a test's, a benchmark's) finds no client in its connection:
// it enters its remote host's client itself, until end.
func (g *Guard) take(req *http.Request, a *answer, charge int64) (held int64, ok bool) {
	cs := g.clients
	var cl *client
	if c, ok := req.Context().Value(clientKey{}).(*clientConn); ok {
		cl = c.client
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cl == nil {
		cl, _ = cs.enterLocked(HostOf(req.RemoteAddr), false)
		a.entered = true
	}
	a.client = cl
	after := cl.held + charge
	if after > cs.maxClientBytes && (charge > SmallReservation || after > cs.maxClientBytes+SmallOverdraft) {
		return cl.held, false
	}
	cl.held, a.charge = after, charge
	return after, true
}

// takeInFlight takes weight bytes of the in-flight budget, or reports
// false if that many are not free. A request is refused at once rather than
// queued: a queue would hold the requests, and their connections, for as
// long as what is ahead takes to send, which one slow client can make long.
func (g *Guard) takeInFlight(weight int64) bool {
	for {
		held := g.inFlight.Load()
		if held+weight > g.maxInFlightBytes {
			return false
		}
		if g.inFlight.CompareAndSwap(held, held+weight) {
			return true
		}
	}
}

// end ends the answer of c however its handler ended: it gives back what
// the request took, answers *err, or a panic with 500, as the API's error
// (c.Error, Echo's HTTPErrorHandler), counts the answer, logs it if it was
// cut, and puts the writer back. *err is nil once answered.
func (g *Guard) end(c echo.Context, a *answer, err *error) {
	p := recover()
	if p != nil && p != http.ErrAbortHandler {
		*err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
	}
	g.release(a)
	if *err != nil {
		c.Error(*err)
		*err = nil
	}
	switch res := c.Response(); {
	case a.w.failed != nil:
		g.logCut(c, a.w.failed)
		g.Answers.Cut.Add(1)
	case !res.Committed || p == http.ErrAbortHandler:
		g.Answers.Cut.Add(1)
	case res.Status == ErrClientGone.Code:
		g.Answers.Gone.Add(1)
	case res.Status == http.StatusServiceUnavailable:
		g.Answers.Refused.Add(1)
	default:
		g.Answers.Finished.Add(1)
	}
	c.Response().Writer = a.w.ResponseWriter
	*a = answer{}
	g.answers.Put(a)
	if p == http.ErrAbortHandler { // net/http's way to cut an answer on purpose
		panic(p)
	}
}

// release gives back what the request of a took.
func (g *Guard) release(a *answer) {
	if a.weight != 0 {
		g.inFlight.Add(-a.weight)
	}
	if a.client == nil {
		return
	}
	g.clients.mu.Lock()
	defer g.clients.mu.Unlock()
	a.client.held -= a.charge
	if a.entered {
		g.clients.leaveLocked(a.client, false)
	}
}

// logCut logs an answer whose body could not be sent whole, with err, the
// write's error: the client would only see the connection end early, and
// the server would know nothing of it.
func (g *Guard) logCut(c echo.Context, err error) {
	why := "the client closed the connection"
	if cut, ok := errors.AsType[*CutError](err); ok {
		why = cut.Why
	}
	g.Log.Printf("answer cut: %s %s: %s after %d of %s bytes", c.Request().Method, c.Request().URL, why,
		c.Response().Size, c.Response().Header().Get(echo.HeaderContentLength))
}

// ErrClientGone answers a request whose client has closed its connection.
// Nobody reads it; 499 is the status that nginx and others log for it, so
// that a log tells it from an answer that was sent.
var ErrClientGone = echo.NewHTTPError(499, "the client closed the connection before the answer was built")

// refuse is the 503 with msg. The client is not named: an error body
// never names a socket address.
func refuse(c echo.Context, msg string) error {
	c.Response().Header().Set("Retry-After", "1")
	return echo.NewHTTPError(http.StatusServiceUnavailable, msg)
}

// EndDrain tells the guard that the server's shutdown drain is over, so
// that an answer cut from then on is logged as the server's doing.
func (g *Guard) EndDrain() { g.drained.Store(true) }

// Held is what the requests hold now: in-flight bytes, and how many
// clients hold any bytes or connections.
func (g *Guard) Held() (bytes int64, clients int) {
	g.clients.mu.Lock()
	defer g.clients.mu.Unlock()
	return g.inFlight.Load(), len(g.clients.byHost)
}
