// Package guard keeps an API server within its limits, whatever its clients
// send or fail to read: the users stored (Ledger), the connections
// (Listener), and around each handler the bytes in flight and the pace of
// the answer (List, Body and Wrap). docs/api.md states every limit.
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

// Guard holds what the requests of one server hold: the in-flight bytes,
// and what each client holds of them and of the connections.
type Guard struct {
	Pace    Pace        // the least progress an answer must make; a test may change it
	Log     *log.Logger // a line for each answer not sent whole
	Answers Answers     // the answers ended since the server started

	inFlight         atomic.Int64
	maxInFlightBytes int64
	clients          *clients
	ledger           *Ledger      // each list's size, for List
	answers          sync.Pool    // of *answer, reused from request to request
	drained          atomic.Bool  // the shutdown drain is over (EndDrain)
	readingOut       atomic.Int64 // cut clients whose rate is being measured (readOut)
}

// New returns a guard of limits whose lists are sized by ledger (nil: no List).
func New(limits Limits, ledger *Ledger) *Guard {
	return &Guard{Pace: DefaultPace, Log: log.Default(), maxInFlightBytes: limits.MaxInFlightBytes, clients: newClients(limits), ledger: ledger}
}

// Listener accepts at most MaxConns connections at once, at most
// MaxClientConns of them from one client, and keeps the reserve for
// clients that hold none. A connection beyond MaxClientConns or in the
// reserve is answered 503 as it is accepted: had it waited, it would take
// the next free slot, whoever needed it. One beyond MaxConns waits in the
// kernel's queue, holding nothing of the server's.
type Listener struct {
	net.Listener
	Answer func(msg string) (contentType string, body []byte) // the 503's body; Listen sets JSONAnswer

	Refused    atomic.Int64 // connections answered 503
	Unanswered atomic.Int64 // connections refused and reset
	// Of those, the connections the kernel had queued at shutdown (see Close).
	QueuedAnswered, QueuedReset atomic.Int64

	slots    chan struct{} // one per connection open
	writing  chan struct{} // one per refusal being written
	done     chan struct{} // closed with the listener
	once     sync.Once
	clients  *clients
	refusing sync.WaitGroup
}

// Listen wraps l in a Listener of limits, whose clients are g's.
func (g *Guard) Listen(l net.Listener, limits Limits) *Listener {
	return &Listener{Listener: l, Answer: JSONAnswer, slots: make(chan struct{}, limits.MaxConns),
		writing: make(chan struct{}, MaxRefusing), done: make(chan struct{}), clients: g.clients}
}

// Accept waits for a free slot, then for a connection whose client has
// room for it, which it holds until the connection closes.
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
		l.clients.mu.Lock()
		cl, refusal := l.clients.enterLocked(HostOf(conn.RemoteAddr().String()), true)
		l.clients.mu.Unlock()
		if refusal != "" {
			l.refuse(conn, refusal, time.Time{})
			continue
		}
		setSendBuffer(conn)
		return &clientConn{Conn: conn, client: cl, l: l}, nil
	}
}

// Answers counts the answers of a server since it started.
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

// answer is one request in the guard: its writer, and what it took until end.
type answer struct {
	w       Writer
	client  *client
	entered bool  // the request entered client itself (see take)
	weight  int64 // taken from Guard.inFlight
	charge  int64 // taken from what the client may hold
}

// List wraps list, the handler of GET and HEAD /users?role=R, whose role
// role reads. A GET takes its list's size, known to the ledger, in flight
// before the stage builds anything, or is refused with 503; a list larger
// than the whole budget takes all of it. A HEAD takes nothing.
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

// Body wraps create, the handler of a request with a body, whose buffer
// of capacity bytes is taken in flight before the body is read: thousands
// of slow bodies would otherwise hold their buffers uncounted. A refusal
// closes the connection, or net/http would read the rest of the body
// first, for the next request.
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

// Wrap wraps next, a handler that takes no bytes in flight.
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

// begin counts the answer of c as started and gives it a Writer.
func (g *Guard) begin(c echo.Context) *answer {
	g.Answers.Started.Add(1)
	a, _ := g.answers.Get().(*answer)
	if a == nil {
		a = new(answer)
	}
	req, res := c.Request(), c.Response()
	a.w = Writer{ResponseWriter: res.Writer, g: g, head: req.Method == http.MethodHead, ctx: req.Context(), req: req}
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

// listSize is the length of the body of GET /users?role=role: '[', the
// users' encodings joined by commas, and ']'.
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
// within what its client may hold, or refuses the request with 503, whose
// message says that it needs ("this list is") size bytes. end gives it back.
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
// (SmallOverdraft aside). A request served without the Listener (a
// test's) enters its remote host's client itself, until end.
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
// false. It never queues: one slow client could make a queue long.
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
// the request took, answers *err or a panic through c.Error, counts the
// answer and logs it if it was cut. *err is nil once answered.
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

// logCut logs an answer not sent whole, and err, why.
func (g *Guard) logCut(c echo.Context, err error) {
	why := "the client closed the connection"
	if cut, ok := errors.AsType[*CutError](err); ok {
		why = cut.Why
	}
	g.Log.Printf("answer cut: %s %s: %s after %d of %s bytes", c.Request().Method, c.Request().URL, why,
		c.Response().Size, c.Response().Header().Get(echo.HeaderContentLength))
}

// ErrClientGone answers a request whose client has gone: nobody reads it,
// but 499, nginx's status for it, tells it apart in a log.
var ErrClientGone = echo.NewHTTPError(499, "the client closed the connection before the answer was built")

// refuse is the 503 with msg.
func refuse(c echo.Context, msg string) error {
	c.Response().Header().Set("Retry-After", "1")
	return echo.NewHTTPError(http.StatusServiceUnavailable, msg)
}

// EndDrain tells the guard that the shutdown drain is over: a cut from
// then on is the server's doing.
func (g *Guard) EndDrain() { g.drained.Store(true) }

// Held is the in-flight bytes, and how many clients hold any bytes or
// connections.
func (g *Guard) Held() (bytes int64, clients int) {
	g.clients.mu.Lock()
	defer g.clients.mu.Unlock()
	return g.inFlight.Load(), len(g.clients.byHost)
}
