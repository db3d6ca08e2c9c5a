package api

import (
	"net"
	"net/http"
	"sync"
)

// A request whose reservation is at most smallReservation (a list of a few
// hundred users, an ordinary POST body) may go past its client's share, by
// up to smallOverdraft in all: a client that holds its whole share in large
// lists can still read a user or a small list, while what it can hold stays
// bounded, by its share plus smallOverdraft.
const (
	smallReservation = 64 << 10
	smallOverdraft   = 4 << 20
)

// shares counts, per client, the in-flight bytes that its requests hold, so
// that one client cannot hold more than share of them: seventeen clients
// that read nothing would otherwise hold the whole budget between them,
// and a single address sending thousands of bodies all of it.
//
// A client is the host of the request's remote address, so that one
// program opening many connections is still one client. X-Forwarded-For
// is not used: any client can write that header, and one that wrote a new
// address in each request would get a new share each time. Behind a proxy,
// every client has the proxy's address, and shares it.
type shares struct {
	share int64 // what one client may hold, smallOverdraft aside

	mu   sync.Mutex
	held map[string]int64 // by client; a client that holds nothing is not in it
}

func newShares(share int64) *shares {
	return &shares{share: share, held: map[string]int64{}}
}

// charge is what a reservation of weight bytes counts against its client's
// share. A reservation larger than the share counts the whole share: like a
// list larger than the whole budget, it is served while its client holds
// nothing else.
func (s *shares) charge(weight int64) int64 { return min(weight, s.share) }

// take counts charge against client's share and reports true, or reports
// false and counts nothing if the share has no room for it.
func (s *shares) take(client string, charge int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	after := s.held[client] + charge
	fits := after <= s.share || charge <= smallReservation && after <= s.share+smallOverdraft
	if !fits {
		return false
	}
	s.held[client] = after
	return true
}

// give takes charge, which take counted, off client's share again.
func (s *shares) give(client string, charge int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	left := s.held[client] - charge
	if left == 0 {
		delete(s.held, client) // the map holds only clients that hold something
		return
	}
	s.held[client] = left
}

// holding is what client holds now.
func (s *shares) holding(client string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held[client]
}

// clientOf names the client of req: the host of its remote address.
func clientOf(req *http.Request) string {
	host, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		return req.RemoteAddr // not host:port: the whole of it is the best name there is
	}
	return host
}
