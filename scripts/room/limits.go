package main

import (
	"fmt"
	"sync"
	"time"

	"example.com/userperf/common/api/guard"
	"golang.org/x/time/rate"
)

// limits are the room server's bounds: whatever its clients do, it holds a
// few kilobytes a connection, maxBody a body being read, and the hand-ins.
type limits struct {
	conns, clientConns   int           // connections open at once: in all, and from one address
	bodies, clientBodies int           // hand-ins being read at once: in all, and from one address
	newPerMinute         int           // participants one address may make in a minute, all at once at most
	wrongPerMinute       int           // wrong secrets one address may send in a minute, all at once at most
	participants         int           // participants in the room
	readTime             time.Duration // to read a request, its body included: a stalled body frees its slot then
}

// roomLimits are the bounds of go run ./scripts/room --serve: a room of a
// few dozen laptops, each handing in one file at a time, and a projector.
var roomLimits = limits{conns: 512, clientConns: 64, bodies: 64, clientBodies: 4, newPerMinute: 5, wrongPerMinute: 10,
	participants: 200, readTime: 10 * time.Second}

// connLimits are the connection bounds in the terms of the API's guard. Its
// reserve, for addresses that hold no connection, keeps one for each
// participant and a few for the projector and the instructor: the addresses
// that fill the rest cannot lock a new one, or the page, out.
func (l limits) connLimits() guard.Limits {
	return guard.Limits{MaxConns: l.conns, MaxClientConns: l.clientConns, ReserveConns: min(l.participants+8, l.conns-1)}
}

// The rates an address is held to, each per minute.
const (
	newcomers    = iota // the participants it makes
	wrongSecrets        // the wrong secrets it sends
)

// addresses counts what each client address holds and may still do. One
// that holds nothing and whose rates are whole again is forgotten.
type addresses struct {
	mu     sync.Mutex
	limits limits
	bodies int // being read, from all addresses
	by     map[string]*address
	now    func() time.Time // the rates' clock; tests stop it
}

type address struct {
	bodies int              // being read
	rates  [2]*rate.Limiter // of newcomers and of wrongSecrets
	told   [2]bool          // the log said that the rate refuses the address, which it still does
	spent  [2]int           // of each rate, while the address is remembered
}

// get returns host's counts, made if need be; the caller holds a.mu.
func (a *addresses) get(host string) *address {
	ad := a.by[host]
	if ad == nil {
		if len(a.by) >= 4*a.limits.conns {
			for host := range a.by {
				a.forget(host)
			}
		}
		perMinute := func(n int) *rate.Limiter { return rate.NewLimiter(rate.Every(time.Minute/time.Duration(n)), n) }
		ad = &address{rates: [2]*rate.Limiter{perMinute(a.limits.newPerMinute), perMinute(a.limits.wrongPerMinute)}}
		a.by[host] = ad
	}
	return ad
}

// forget drops host's counts if it holds nothing and its rates are whole; the caller holds a.mu.
func (a *addresses) forget(host string) {
	ad, now := a.by[host], a.now()
	if ad == nil || ad.bodies > 0 {
		return
	}
	for _, l := range ad.rates {
		if l.TokensAt(now) < float64(l.Burst()) {
			return
		}
	}
	delete(a.by, host)
}

// startBody counts a body about to be read from host; if the room or host
// is reading as many as it may, it says which instead.
func (a *addresses) startBody(host string) (refusal string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ad := a.get(host)
	switch {
	case ad.bodies >= a.limits.clientBodies:
		return fmt.Sprintf("your address is sending %d hand-ins at once, the most one address may; retry in a second", ad.bodies)
	case a.bodies >= a.limits.bodies:
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

// wait is how long until host's rate of kind (newcomers or wrongSecrets) allows
// one more, 0 if it does now; tell says whether this is its first refusal
// since it last allowed one, so that a client that retries does not flood the log.
func (a *addresses) wait(host string, kind int) (wait time.Duration, tell bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ad, now := a.get(host), a.now()
	if ad.rates[kind].TokensAt(now) >= 1 {
		ad.told[kind] = false
		return 0, false
	}
	r := ad.rates[kind].ReserveN(now, 1)
	defer r.CancelAt(now)
	tell, ad.told[kind] = !ad.told[kind], true
	return r.DelayFrom(now), tell
}

// spend takes one of host's rate of kind, and returns how many host spent of it while remembered.
func (a *addresses) spend(host string, kind int) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	ad := a.get(host)
	ad.rates[kind].AllowN(a.now(), 1)
	ad.spent[kind]++
	return ad.spent[kind]
}
