package guard

import (
	"context"
	"fmt"
	"net"
	"sync"
)

// A reservation of at most SmallReservation (a small list, an ordinary
// body) may take its client past MaxClientBytes, by up to SmallOverdraft in
// all: a client holding MaxClientBytes in large lists can still read a user.
const (
	SmallReservation = 64 << 10
	SmallOverdraft   = 4 << 20
)

// clients counts what each client's requests and connections hold, so
// that no client holds more than its share of either. A client is the host
// of the remote address, never X-Forwarded-For, which any client can write.
type clients struct {
	maxClientBytes int64
	maxClientConns int
	shared         int // connections open beyond which the reserve begins

	mu     sync.Mutex
	conns  int                // connections open
	byHost map[string]*client // only clients that hold something
}

// client is what one client holds; under clients.mu.
type client struct {
	host  string
	conns int32 // connections open (int32s: a client fits in 32 bytes)
	users int32 // connections open, and requests served without one (see Guard.take)
	held  int64 // in-flight bytes
}

func newClients(limits Limits) *clients {
	return &clients{maxClientBytes: limits.MaxClientBytes, maxClientConns: limits.MaxClientConns,
		shared: limits.MaxConns - limits.ConnReserve(), byHost: map[string]*client{}}
}

// enterLocked counts one more user of host's client, a connection if conn,
// and returns the client; or, for a connection beyond MaxClientConns or in
// the reserve, why it is refused. cs.mu is held.
func (cs *clients) enterLocked(host string, conn bool) (cl *client, refusal string) {
	cl = cs.byHost[host]
	if cl == nil {
		cl = &client{host: host}
		cs.byHost[host] = cl
	}
	switch {
	case conn && int(cl.conns) >= cs.maxClientConns: // then cl.conns > 0: it stays in the map
		return nil, fmt.Sprintf("you already hold %d connections to this server, the most one client may hold; "+
			"send your requests over those, or retry once one closes", cs.maxClientConns)
	case conn && cl.conns > 0 && cs.conns >= cs.shared:
		return nil, fmt.Sprintf("you hold %d connections to this server, and the few left are kept for clients "+
			"that hold none; send your requests over those, or retry once one closes", cl.conns)
	case conn:
		cl.conns++
		cs.conns++
	}
	cl.users++
	return cl, ""
}

// leaveLocked counts one user of cl fewer, a connection if conn, and
// forgets the client once nothing uses it. cs.mu is held.
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

// clientKey is the context key of a request's *clientConn (see ConnContext).
type clientKey struct{}

// HostOf is the host of a remote address: what names its client.
func HostOf(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr // not host:port: the whole of it is the best name there is
	}
	return host
}

// ConnContext is http.Server's ConnContext: it puts conn's client in the
// context if a Listener accepted it.
func ConnContext(ctx context.Context, conn net.Conn) context.Context {
	if c, ok := conn.(*clientConn); ok {
		return context.WithValue(ctx, clientKey{}, c)
	}
	return ctx
}
