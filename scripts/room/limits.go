package main

import (
	"fmt"
	"log"
	"net/http"
	"time"

	"example.com/userperf/common/api/guard"
	"golang.org/x/time/rate"
)

// limits are the room server's bounds: whatever its clients do, it holds a
// few kilobytes a connection, maxBody a body being read, and the hand-ins.
type limits struct {
	conns, clientConns   int           // connections open at once: in all, and from one address
	bodies, clientBodies int           // hand-ins being read at once: in all, and from one address
	perMinute            [2]int        // of each rate, what one address may spend in a minute, all at once at most
	participants         int           // participants in the room
	readTime             time.Duration // to read a request, its body included: a stalled body frees its slot then
}

// roomLimits are the bounds of go run ./scripts/room --serve: a room of a
// few dozen laptops, each handing in one file at a time, and a projector.
var roomLimits = limits{conns: 512, clientConns: 64, bodies: 64, clientBodies: 4, perMinute: [2]int{newcomers: 5, wrongSecrets: 10},
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

// refusals say, for each rate, why it refuses a hand-in (%d: limits.perMinute),
// and what the log says of the address (%s) it refuses.
var refusals = [2]struct{ reply, log string }{
	newcomers: {"your address made %d new participants in the last minute, the most one address may: " +
		"each participant hands in from their own machine, whose configuration folder keeps their id",
		"room: refusing new participants from %s: it made %d in the last minute, the most one address may"},
	wrongSecrets: {"your address sent %d wrong secrets in the last minute, the most one address may",
		"room: refusing the secrets of %s unread: it sent %d wrong ones in a minute, the most one address may"},
}

// address is what a client address holds and may still do. One that
// holds nothing and whose rates are whole again is forgotten.
type address struct {
	bodies int              // being read
	rates  [2]*rate.Limiter // of newcomers and of wrongSecrets
	told   [2]bool          // the log said that the rate refuses the address, which it still does
	spent  [2]int           // of each rate, while the address is remembered
}

// address returns host's counts, made if need be; the caller holds s.mu.
func (s *server) address(host string) *address {
	ad := s.addrs[host]
	if ad == nil {
		if len(s.addrs) >= 4*s.limits.conns {
			for host := range s.addrs {
				s.forget(host)
			}
		}
		ad = &address{}
		for kind, n := range s.limits.perMinute {
			ad.rates[kind] = rate.NewLimiter(rate.Every(time.Minute/time.Duration(n)), n)
		}
		s.addrs[host] = ad
	}
	return ad
}

// forget drops host's counts if it holds nothing and its rates are whole; the caller holds s.mu.
func (s *server) forget(host string) {
	ad, now := s.addrs[host], s.now()
	if ad == nil || ad.bodies > 0 {
		return
	}
	for _, l := range ad.rates {
		if l.TokensAt(now) < float64(l.Burst()) {
			return
		}
	}
	delete(s.addrs, host)
}

// startBody counts a body about to be read from host; if the room or host
// is reading as many as it may, it says which instead.
func (s *server) startBody(host string) (refusal string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ad := s.address(host)
	switch {
	case ad.bodies >= s.limits.clientBodies:
		return fmt.Sprintf("your address is sending %d hand-ins at once, the most one address may; retry in a second", ad.bodies)
	case s.bodies >= s.limits.bodies:
		return fmt.Sprintf("the room is reading %d hand-ins at once, the most it reads; retry in a second", s.bodies)
	}
	ad.bodies++
	s.bodies++
	return ""
}

func (s *server) endBody(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.address(host).bodies--
	s.bodies--
	s.forget(host)
}

// overRate refuses the hand-in, with 429 and when to retry, if host's rate
// of kind (newcomers or wrongSecrets) allows none now. The log says so at
// the first refusal since the rate last allowed one, so that a client that
// retries does not flood it. The caller holds s.mu.
func (s *server) overRate(w http.ResponseWriter, host string, kind int) bool {
	ad, now := s.address(host), s.now()
	if ad.rates[kind].TokensAt(now) >= 1 {
		ad.told[kind] = false
		return false
	}
	s.rateRefused[kind]++
	if !ad.told[kind] {
		log.Printf(refusals[kind].log, host, s.limits.perMinute[kind])
		ad.told[kind] = true
	}
	r := ad.rates[kind].ReserveN(now, 1)
	seconds := int(r.DelayFrom(now).Seconds()) + 1
	r.CancelAt(now)
	w.Header().Set("Retry-After", fmt.Sprint(seconds))
	httpError(w, http.StatusTooManyRequests, refusals[kind].reply+"; retry in %d s", s.limits.perMinute[kind], seconds)
	return true
}

// spend takes one of host's rate of kind, and returns how many host spent
// of it while remembered; the caller holds s.mu.
func (s *server) spend(host string, kind int) int {
	ad := s.address(host)
	ad.rates[kind].AllowN(s.now(), 1)
	ad.spent[kind]++
	return ad.spent[kind]
}
