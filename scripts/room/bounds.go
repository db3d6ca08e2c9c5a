package main

import (
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// limits are the room server's bounds. They keep what the server holds
// small whatever its clients do: a connection holds a few kilobytes, a
// body being read up to maxBody, and the rest is the room's hand-ins.
type limits struct {
	conns, addressConns   int           // connections open at once: in all, and from one address
	bodies, addressBodies int           // hand-ins being read at once: in all, and from one address
	newPerMinute          int           // participants one address may make in a minute
	participants          int           // participants in the room
	readTime              time.Duration // to read a request, its body included: a stalled body frees its slot then
}

// roomLimits are the bounds of go run ./scripts/room --serve: a room of a
// few dozen laptops, each handing in one file at a time, and a projector.
var roomLimits = limits{conns: 512, addressConns: 64, bodies: 64, addressBodies: 4, newPerMinute: 5, participants: 200,
	readTime: 10 * time.Second}

// addresses counts what each client address holds and has made: its
// connections, the bodies being read from it, and the participants it made
// in the last minute. An address that holds nothing and made no one is
// forgotten, so that the map is as large as what the server holds.
type addresses struct {
	mu     sync.Mutex
	limits limits
	bodies int // being read, from all addresses
	by     map[string]*address
	now    func() time.Time // the clock of the participants made; tests set it
}

type address struct {
	conns, bodies int
	made          []time.Time // the participants it made in the last minute, oldest first
	told          bool        // the log said that it was refused, while it still is
}

func newAddresses(l limits) *addresses {
	return &addresses{limits: l, by: map[string]*address{}, now: time.Now}
}

// get returns host's counts, made if need be; the caller holds a.mu.
func (a *addresses) get(host string) *address {
	ad := a.by[host]
	if ad == nil {
		ad = &address{}
		a.by[host] = ad
	}
	return ad
}

// forget drops host's counts if they are all zero; the caller holds a.mu.
func (a *addresses) forget(host string) {
	ad := a.by[host]
	if ad == nil {
		return
	}
	ad.prune(a.now())
	if ad.conns == 0 && ad.bodies == 0 && len(ad.made) == 0 {
		delete(a.by, host)
	}
}

// prune drops the participants made more than a minute before now.
func (ad *address) prune(now time.Time) {
	i := 0
	for i < len(ad.made) && now.Sub(ad.made[i]) >= time.Minute {
		i++
	}
	ad.made = ad.made[i:]
}

// enterConn counts a connection from host, unless host holds its share already.
func (a *addresses) enterConn(host string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	ad := a.get(host)
	if ad.conns >= a.limits.addressConns {
		a.forget(host)
		return false
	}
	ad.conns++
	return true
}

func (a *addresses) leaveConn(host string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.get(host).conns--
	a.forget(host)
}

// startBody counts a body about to be read from host; if the room or host
// is reading as many as it may, it says which instead.
func (a *addresses) startBody(host string) (refusal string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ad := a.get(host)
	switch {
	case ad.bodies >= a.limits.addressBodies:
		a.forget(host)
		return fmt.Sprintf("your address is sending %d hand-ins at once, the most one address may; retry in a second", ad.bodies)
	case a.bodies >= a.limits.bodies:
		a.forget(host)
		return fmt.Sprintf("the room is reading %d hand-ins at once, the most it reads; retry in a second", a.bodies)
	}
	ad.bodies++
	a.bodies++
	return ""
}

func (a *addresses) endBody(host string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.get(host).bodies--
	a.bodies--
	a.forget(host)
}

// mayMake says whether host may make a participant now; if not, how long
// until it may, and whether this is its first refusal since it last could.
func (a *addresses) mayMake(host string) (ok bool, wait time.Duration, first bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	ad := a.get(host)
	ad.prune(now)
	if len(ad.made) < a.limits.newPerMinute {
		ad.told = false
		return true, 0, false
	}
	first, ad.told = !ad.told, true
	return false, ad.made[0].Add(time.Minute).Sub(now), first
}

// made counts a participant that host made now.
func (a *addresses) made(host string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ad := a.get(host)
	ad.made = append(ad.made, a.now())
}

// connLimiter accepts at most limits.conns connections at once, and of
// those at most limits.addressConns from one address. A connection beyond
// its address's share is answered with 503 and closed as soon as it is
// accepted, so that the slots stay for the other addresses; one beyond all
// of them waits in the kernel's accept queue, where it holds nothing of
// the server's, until a connection closes.
type connLimiter struct {
	net.Listener
	addrs    *addresses
	slots    chan struct{} // one per connection open
	refusing chan struct{} // one per refusal being written
	done     chan struct{} // closed with the listener
	once     sync.Once
}

func newConnLimiter(l net.Listener, addrs *addresses) *connLimiter {
	return &connLimiter{Listener: l, addrs: addrs, slots: make(chan struct{}, addrs.limits.conns),
		refusing: make(chan struct{}, 64), done: make(chan struct{})}
}

// Accept waits for a free slot, then for a connection whose address has room for it.
func (l *connLimiter) Accept() (net.Conn, error) {
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
		host := hostOf(conn.RemoteAddr().String())
		if l.addrs.enterConn(host) {
			return &limitedConn{Conn: conn, host: host, l: l}, nil
		}
		l.refuse(conn, fmt.Sprintf("room: your address holds %d connections to the room, the most one address may; retry once one closes\n",
			l.addrs.limits.addressConns))
	}
}

func (l *connLimiter) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// refuse answers 503 with msg on conn and closes it, without waiting for
// the request: HTTP allows an answer before it. The connection is closed
// for writing, then drained for a moment, so that the kernel does not
// reset it for the request it did not read, discarding the answer. When
// many refusals are being written already, conn is closed without one.
func (l *connLimiter) refuse(conn net.Conn, msg string) {
	select {
	case l.refusing <- struct{}{}:
	default:
		conn.Close()
		return
	}
	go func() {
		defer func() { <-l.refusing }()
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(time.Second))
		fmt.Fprintf(conn, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\n"+
			"Retry-After: 1\r\nConnection: close\r\n\r\n%s", len(msg), msg)
		if tcp, ok := conn.(*net.TCPConn); ok {
			tcp.CloseWrite()
			io.Copy(io.Discard, io.LimitReader(conn, maxBody+16<<10))
		}
	}()
}

// limitedConn holds its slot and counts against its address until it is closed.
type limitedConn struct {
	net.Conn
	host string
	l    *connLimiter
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.addrs.leaveConn(c.host)
		<-c.l.slots
	})
	return err
}

// hostOf is the host of a remote address.
func hostOf(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr // not host:port: the whole of it is the best name there is
	}
	return host
}
