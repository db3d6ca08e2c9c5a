package guard

import (
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// TestReserveListTakesTheLedgersSize has a GET reserve a list that only
// the ledger knows the size of, and a HEAD ask for it: the GET must hold
// the length of the body the stage would build, until its Release, and the
// HEAD be told that length and hold nothing.
func TestReserveListTakesTheLedgersSize(t *testing.T) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	stage := plain.NewLocked(users)
	g := New(DefaultLimits, NewLedger(stage, users, DefaultLimits, true))
	role := users[0].Roles[0]
	body := stage.ListByRole(role)
	reserve := func(method string) Reservation {
		t.Helper()
		req := httptest.NewRequest(method, "/users?role="+role, nil)
		r, err := g.ReserveList(echo.New().NewContext(req, httptest.NewRecorder()), role, nil)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if r.Size != int64(len(body)) {
			t.Errorf("%s: size %d, want the body's %d", method, r.Size, len(body))
		}
		return r
	}

	get := reserve("GET")
	if held, _ := g.Held(); held != int64(len(body)) {
		t.Errorf("a GET holds %d in-flight bytes, want its list's %d", held, len(body))
	}
	get.Release()
	head := reserve("HEAD")
	if held, addresses := g.Held(); held != 0 || addresses != 0 {
		t.Errorf("a HEAD holds %d in-flight bytes, by %d address(es), want none", held, addresses)
	}
	head.Release()
}
