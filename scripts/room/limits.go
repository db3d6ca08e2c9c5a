package main

import (
	"fmt"
	"sync"
	"time"

	"example.com/userperf/common/api/guard"
	"golang.org/x/time/rate"
)

// limits are the room server's bounds. They keep what the server holds
// small whatever its clients do: a connection holds a few kilobytes, a
// body being read up to maxBody, and the rest is the room's hand-ins.
type limits struct {
	conns, clientConns   int           // connections open at once: in all, and from one client (see connLimits for the reserve)
	bodies, clientBodies int           // hand-ins being read at once: in all, and from one client
	newPerMinute         int           // participants one address may make in a minute, all at once at most
	wrongPerMinute       int           // wrong secrets one address may send in a minute, all at once at most
	participants         int           // participants in the room
	readTime             time.Duration // to read a request, its body included: a stalled body frees its slot then
}

// roomLimits are the bounds of go run ./scripts/room --serve: a room of a
// few dozen laptops, each handing in one file at a time, and a projector.
var roomLimits = limits{conns: 512, clientConns: 64, bodies: 64, clientBodies: 4, newPerMinute: 5, wrongPerMinute: 10,
	participants: 200, readTime: 10 * time.Second}

// connLimits are the connection bounds in the terms of the API's guard,
// whose Listener the room serves on. Its reserve for addresses that hold
// no connection has one for each participant and a few more, for the
// projector and the instructor: the addresses that fill the rest take one
// each of it, so fewer than participants+reserveExtra of them cannot lock
// a new one, or the page, out.
func (l limits) connLimits() guard.Limits {
	return guard.Limits{MaxConns: l.conns, MaxClientConns: l.clientConns, ReserveConns: min(l.participants+reserveExtra, l.conns-1)}
}

// reserveExtra is the room's reserve of connections beyond one per participant.
const reserveExtra = 8

// textAnswer is the room's answer to a connection its listener refuses.
func textAnswer(msg string) (contentType string, body []byte) {
	return "text/plain; charset=utf-8", []byte("room: " + msg + "\n")
}

// addresses counts what each client address holds and may still do: the
// bodies being read from it, and its rates of new participants and of
// wrong secrets. An address that holds nothing and whose rates are whole
// again is forgotten, so that the map is as large as what the server holds.
type addresses struct {
	mu     sync.Mutex
	limits limits
	bodies int // being read, from all addresses
	by     map[string]*address
	now    func() time.Time // the limiters' clock; tests set it
}

type address struct {
	bodies      int
	newcomers   *rate.Limiter // the participants it may make
	wrong       *rate.Limiter // the wrong secrets it may send
	toldNew     bool          // the log said that its new participants are refused, while they still are
	toldWrong   bool          // the log said that its secrets are refused unread, while they still are
	wrongSecret int           // wrong secrets it sent, refused or not, while it is remembered
}

func newAddresses(l limits) *addresses {
	return &addresses{limits: l, by: map[string]*address{}, now: time.Now}
}

// perMinute is a limiter of n a minute, n of them at once.
func perMinute(n int) *rate.Limiter {
	return rate.NewLimiter(rate.Every(time.Minute/time.Duration(n)), n)
}

// get returns host's counts, made if need be; the caller holds a.mu.
func (a *addresses) get(host string) *address {
	ad := a.by[host]
	if ad == nil {
		if len(a.by) >= 4*a.limits.conns {
			a.sweep()
		}
		ad = &address{newcomers: perMinute(a.limits.newPerMinute), wrong: perMinute(a.limits.wrongPerMinute)}
		a.by[host] = ad
	}
	return ad
}

// sweep forgets every address that holds nothing; the caller holds a.mu.
func (a *addresses) sweep() {
	for host := range a.by {
		a.forget(host)
	}
}

// forget drops host's counts if it holds nothing and its limiters are
// whole; the caller holds a.mu.
func (a *addresses) forget(host string) {
	ad, now := a.by[host], a.now()
	whole := func(l *rate.Limiter) bool { return l.TokensAt(now) >= float64(l.Burst()) }
	if ad != nil && ad.bodies == 0 && whole(ad.newcomers) && whole(ad.wrong) {
		delete(a.by, host)
	}
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

// mayMake takes one of host's new participants; if it has none left, it
// says how long until it has, and whether this is its first refusal since
// it last could.
func (a *addresses) mayMake(host string) (ok bool, wait time.Duration, first bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ad := a.get(host)
	now := a.now()
	if ad.newcomers.AllowN(now, 1) {
		ad.toldNew = false
		return true, 0, false
	}
	first, ad.toldNew = !ad.toldNew, true
	return false, until(ad.newcomers, now), first
}

// mayTrySecret says whether host may have a secret compared now: an
// address that sent wrongPerMinute wrong secrets is refused unread until
// its rate allows one more, however right, so that guessing goes no
// faster. If not, it says how long until it may, and whether this is the
// first refusal since it last could.
func (a *addresses) mayTrySecret(host string) (ok bool, wait time.Duration, first bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ad, now := a.get(host), a.now()
	if ad.wrong.TokensAt(now) >= 1 {
		ad.toldWrong = false
		return true, 0, false
	}
	first, ad.toldWrong = !ad.toldWrong, true
	return false, until(ad.wrong, now), first
}

// wrongSecret counts a wrong secret from host against its rate, and
// returns how many it sent while remembered.
func (a *addresses) wrongSecret(host string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	ad := a.get(host)
	ad.wrong.AllowN(a.now(), 1)
	ad.wrongSecret++
	return ad.wrongSecret
}

// until is how long from now until l has a token.
func until(l *rate.Limiter, now time.Time) time.Duration {
	r := l.ReserveN(now, 1)
	defer r.CancelAt(now)
	return r.DelayFrom(now)
}
