package guard

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

// from is a GET sent from host.
func from(host string) *http.Request {
	req := httptest.NewRequest("GET", "/users?role=editor", nil)
	req.RemoteAddr = host + ":1000"
	return req
}

func TestMaxClientBytesBoundsOneClient(t *testing.T) {
	const most = 1 << 20
	g := New(Limits{MaxClientBytes: most, MaxInFlightBytes: 1 << 30, MaxConns: 4}, nil)
	var taken []*answer
	take := func(host string, charge int64) bool {
		a := new(answer)
		taken = append(taken, a)
		_, ok := g.take(from(host), a, charge)
		return ok
	}
	if !take("a", most) {
		t.Fatal("a client holding nothing could not take MaxClientBytes")
	}
	if take("a", SmallReservation+1) {
		t.Error("a client holding MaxClientBytes took a large reservation more")
	}
	if !take("b", most) {
		t.Error("another client could not take MaxClientBytes while the first holds its own")
	}
	small := 0
	for small <= SmallOverdraft/SmallReservation && take("a", SmallReservation) { // one more than may fit
		small++
	}
	if want := SmallOverdraft / SmallReservation; small != want {
		t.Errorf("a client holding MaxClientBytes took %d small reservations more, want %d (%d bytes)", small, want, SmallOverdraft)
	}
	if held := g.clients.byHost["a"].held; held != most+SmallOverdraft {
		t.Errorf("the client holds %d bytes, want MaxClientBytes and the overdraft, %d", held, most+SmallOverdraft)
	}
	for _, a := range taken {
		g.release(a)
	}
	if len(g.clients.byHost) != 0 {
		t.Errorf("after every reservation was given back, the clients still count %v", g.clients.byHost)
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

// TestRefusalForMaxClientBytesTakesNothing has a client that holds
// MaxClientBytes ask for a large list: the 503 must leave every in-flight
// byte as it was.
func TestRefusalForMaxClientBytesTakesNothing(t *testing.T) {
	g := New(DefaultLimits, nil)
	holding := new(answer)
	g.take(from("192.0.2.1"), holding, g.clients.maxClientBytes)
	w := httptest.NewRecorder()
	a := new(answer)
	if err := g.reserve(echo.New().NewContext(from("192.0.2.1"), w), a, SmallReservation+1, SmallReservation+1, "this list is"); err == nil {
		t.Fatal("a large list from a client holding MaxClientBytes was reserved")
	} else if he, ok := err.(*echo.HTTPError); !ok || he.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" {
		t.Errorf("the refusal: %v with Retry-After %q, want 503 with 1", err, w.Header().Get("Retry-After"))
	}
	g.release(a)
	g.release(holding)
	if bytes, clients := g.Held(); bytes != 0 || clients != 0 {
		t.Errorf("after a refusal: %d in-flight bytes reserved, %d client(s) hold some; want none", bytes, clients)
	}
}
