package guard

import (
	"context"
	"net"
	"sync"
)

// A request whose reservation is at most SmallReservation (a list of a few
// hundred users, an ordinary POST body) may take its client past
// MaxClientBytes, by up to SmallOverdraft in all: a client that holds
// MaxClientBytes in large lists can still read a user or a small list,
// while what it can hold stays bounded, by MaxClientBytes plus
// SmallOverdraft.
const (
	SmallReservation = 64 << 10
	SmallOverdraft   = 4 << 20
)

// clients counts, per client, what its requests and connections hold, so
// that one client cannot hold more than a part of either: seventeen
// clients that read nothing would otherwise hold every in-flight byte
// between them, a single client sending thousands of bodies all of them,
// and a single client opening thousands of connections every one.
//
// A client is the host of the remote address, so that one program opening
// many connections is still one client. X-Forwarded-For is not used: any
// client can write that header, and one that wrote a new address in each
// request would be a new client each time. Behind a proxy, every client
// has the proxy's address, and is one client.
type clients struct {
	maxClientBytes int64 // the in-flight bytes one client may hold, SmallOverdraft aside
	maxClientConns int   // the connections one client may hold open
	shared         int   // connections that clients holding one already may hold in all: the rest is the reserve

	mu     sync.Mutex
	conns  int                // connections open; under mu
	byHost map[string]*client // a client that holds nothing is not in it; under mu
}

// client is what one client holds.
type client struct {
	host  string
	conns int32 // connections open; under clients.mu (int32s, so that a client fits in 32 bytes)
	users int32 // connections open, and requests served without one (see Guard.take); under clients.mu
	held  int64 // in-flight bytes; under clients.mu
}

func newClients(limits Limits) *clients {
	return &clients{maxClientBytes: limits.MaxClientBytes, maxClientConns: limits.MaxClientConns,
		shared: limits.MaxConns - limits.ConnReserve(), byHost: map[string]*client{}}
}

// enter counts one more user of host's client, a connection or a request,
// and returns the client. A connection is not counted (refusal set) if the
// client holds MaxClientConns, or holds one and only the reserve is left.
func (cs *clients) enter(host string, conn bool) (cl *client, refusal string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.enterLocked(host, conn)
}

// enterLocked is enter, with cs.mu held.
func (cs *clients) enterLocked(host string, conn bool) (cl *client, refusal string) {
	cl = cs.byHost[host]
	if cl == nil {
		cl = &client{host: host}
		cs.byHost[host] = cl
	}
	switch {
	case conn && int(cl.conns) >= cs.maxClientConns:
		return nil, overClientConns // cl.users > 0: it stays in the map
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
	overClientConns = "you already hold %d connections to this server, the most one client may hold; " +
		"send your requests over those, or retry once one closes"
	inConnReserve = "you hold %d connections to this server, and the few left are kept for clients " +
		"that hold none; send your requests over those, or retry once one closes"
)

// leave counts one user of cl fewer, a connection if conn; the client is
// forgotten once nothing uses it.
func (cs *clients) leave(cl *client, conn bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.leaveLocked(cl, conn)
}

// leaveLocked is leave, with cs.mu held.
func (cs *clients) leaveLocked(cl *client, conn bool) {
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

// clientKey is the key of a connection's *clientConn in its context, which the
// server puts there when it accepts the connection (see ConnContext), so
// that a request finds its client without looking its address up.
type clientKey struct{}

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
