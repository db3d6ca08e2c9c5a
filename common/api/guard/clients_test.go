package guard

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

func TestSharesBoundOneClient(t *testing.T) {
	const share = 1 << 20
	s := newClients(Limits{MaxClientBytes: share, MaxConns: 4})
	a, _ := s.enter("a", false)
	b, _ := s.enter("b", false)
	if !s.take(a, share) {
		t.Fatal("a client holding nothing could not take its whole share")
	}
	if s.take(a, SmallReservation+1) {
		t.Error("a client holding its whole share took a large reservation more")
	}
	if !s.take(b, share) {
		t.Error("another client could not take its share while the first holds its own")
	}
	small := 0
	for small <= SmallOverdraft/SmallReservation && s.take(a, SmallReservation) { // one more than may fit
		small++
	}
	if want := SmallOverdraft / SmallReservation; small != want {
		t.Errorf("a client holding its share took %d small reservations more, want %d (%d bytes)", small, want, SmallOverdraft)
	}
	if held := s.holding(a); held != share+SmallOverdraft {
		t.Errorf("the client holds %d bytes, want its share and the overdraft, %d", held, share+SmallOverdraft)
	}
	for range small {
		s.give(a, SmallReservation)
	}
	s.give(a, share)
	s.give(b, share)
	s.leave(a, false)
	s.leave(b, false)
	if len(s.byHost) != 0 {
		t.Errorf("after every reservation was given back, the shares still count %v", s.byHost)
	}
}

func TestClientIsItsRemoteHost(t *testing.T) {
	for addr, want := range map[string]string{
		"192.0.2.1:1234":     "192.0.2.1",
		"[2001:db8::1]:8080": "2001:db8::1",
		"not an address":     "not an address",
	} {
		if got := HostOf(addr); got != want {
			t.Errorf("remote address %q: client %q, want %q", addr, got, want)
		}
	}
}

// TestRefusalForTheShareTakesNothing has a client that holds its whole
// share ask for a large list: the 503 must leave every in-flight byte as
// it was.
func TestRefusalForTheShareTakesNothing(t *testing.T) {
	g := New(DefaultLimits, nil)
	cl, _ := g.clients.enter("192.0.2.1", false)
	g.clients.take(cl, g.clients.byteShare)
	req := httptest.NewRequest("GET", "/users?role=editor", nil)
	req.RemoteAddr = "192.0.2.1:1000"
	w := httptest.NewRecorder()
	if _, err := g.ReserveList(echo.New().NewContext(req, w), "editor", make([]byte, SmallReservation+1)); err == nil {
		t.Fatal("a large list from a client holding its share was reserved")
	} else if he, ok := err.(*echo.HTTPError); !ok || he.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" {
		t.Errorf("the refusal: %v with Retry-After %q, want 503 with 1", err, w.Header().Get("Retry-After"))
	}
	g.clients.give(cl, g.clients.byteShare)
	g.clients.leave(cl, false)
	if bytes, addresses := g.Held(); bytes != 0 || addresses != 0 {
		t.Errorf("after a refusal: %d in-flight bytes reserved, %d address(es) hold some; want none", bytes, addresses)
	}
}
