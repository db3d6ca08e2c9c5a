package guard

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// A request whose reservation is at most SmallReservation (a list of a few
// hundred users, an ordinary POST body) may go past its client's share, by
// up to SmallOverdraft in all: a client that holds its whole share in large
// lists can still read a user or a small list, while what it can hold stays
// bounded, by its share plus SmallOverdraft.
const (
	SmallReservation = 64 << 10
	SmallOverdraft   = 4 << 20
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
	byteShare int64 // in-flight bytes one client may hold, SmallOverdraft aside
	connShare int   // connections one client may hold open
	shared    int   // connections that clients holding one already may hold in all: the rest is the reserve

	mu     sync.Mutex
	conns  int                // connections open; under mu
	byHost map[string]*client // a client that holds nothing is not in it; under mu
}

// client is what one address holds.
type client struct {
	host  string
	conns int32 // connections open; under clients.mu (int32s, so that a client fits in 32 bytes)
	users int32 // connections open, and requests served without one (see clientOf); under clients.mu
	held  int64 // in-flight bytes; under clients.mu
}

func newClients(limits Limits) *clients {
	return &clients{byteShare: limits.MaxClientBytes, connShare: limits.ConnShare(),
		shared: limits.MaxConns - limits.ConnReserve(), byHost: map[string]*client{}}
}

// enter counts one more user of host's client, a connection or a request,
// and returns the client. A connection is not counted (refusal set) if the
// client holds its share of them, or holds one and only the reserve is
// left.
func (cs *clients) enter(host string, conn bool) (cl *client, refusal string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cl = cs.byHost[host]
	if cl == nil {
		cl = &client{host: host}
		cs.byHost[host] = cl
	}
	switch {
	case conn && int(cl.conns) >= cs.connShare:
		return nil, overConnShare // cl.users > 0: it stays in the map
	case conn && cl.conns > 0 && cs.conns >= cs.shared:
		return nil, inConnReserve
	case conn:
		cl.conns++
		cs.conns++
	}
	cl.users++
	return cl, ""
}

// Why a connection is refused.
const (
	overConnShare = "your address already holds %d connections to this server, the most one address may hold; " +
		"send your requests over those, or retry once one closes"
	inConnReserve = "your address holds %d connections to this server, and the few left are kept for addresses " +
		"that hold none; send your requests over those, or retry once one closes"
)

// leave counts one user of cl fewer, a connection if conn; the client is
// forgotten once nothing uses it.
func (cs *clients) leave(cl *client, conn bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if conn {
		cl.conns--
		cs.conns--
	}
	cl.users--
	if cl.users == 0 && cs.byHost[cl.host] == cl {
		delete(cs.byHost, cl.host)
	}
}

// holdingConns is how many connections host's client holds.
func (cs *clients) holdingConns(host string) int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cl := cs.byHost[host]; cl != nil {
		return int(cl.conns)
	}
	return 0
}

// take counts charge bytes against cl's share and reports true, or reports
// false and counts nothing if the share has no room for them.
func (cs *clients) take(cl *client, charge int64) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	after := cl.held + charge
	if after > cs.byteShare && (charge > SmallReservation || after > cs.byteShare+SmallOverdraft) {
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

// clientKey is the key of a connection's *clientConn in its context, which the
// server puts there when it accepts the connection (see ConnContext), so
// that a request finds its client without looking its address up.
type clientKey struct{}

// clientOf returns the client of req, and whether the request entered it
// itself and must leave it once done: a handler served without the API's
// server (a test's, a benchmark's) has no client in the connection.
func (cs *clients) clientOf(req *http.Request) (cl *client, entered bool) {
	if c, ok := req.Context().Value(clientKey{}).(*clientConn); ok {
		return c.client, false
	}
	cl, _ = cs.enter(HostOf(req.RemoteAddr), false)
	return cl, true
}

// HostOf is the host of a remote address: what names its client.
func HostOf(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr // not host:port: the whole of it is the best name there is
	}
	return host
}

// ConnContext is the context of conn, which carries its client if the
// server accepted it through a Listener: http.Server's ConnContext.
func ConnContext(ctx context.Context, conn net.Conn) context.Context {
	if c, ok := conn.(*clientConn); ok {
		return context.WithValue(ctx, clientKey{}, c)
	}
	return ctx
}
