package guard

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// TestListTakesTheLedgersSize has a GET and a HEAD of a list that only the
// ledger knows the size of: the handler must be told the length of the
// body the stage would build, and the GET hold that many bytes in flight
// until it ends, the HEAD none.
func TestListTakesTheLedgersSize(t *testing.T) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	stage := plain.New(users)
	g := New(DefaultLimits, NewLedger(stage, users, DefaultLimits))
	role := users[0].Roles[0]
	want := int64(len(stage.ListByRole(role)))
	var held int64
	h := g.List(func(*http.Request) (string, error) { return role, nil }, func(c echo.Context, r string, size int64) error {
		if r != role || size != want {
			t.Errorf("%s: the handler got role %q of %d bytes, want %q of %d", c.Request().Method, r, size, role, want)
		}
		held, _ = g.Held()
		return c.NoContent(http.StatusOK)
	})
	e := echo.New()
	for method, wantHeld := range map[string]int64{"GET": want, "HEAD": 0} {
		h(e.NewContext(httptest.NewRequest(method, "/users?role="+role, nil), httptest.NewRecorder()))
		if held != wantHeld {
			t.Errorf("%s holds %d in-flight bytes while it is answered, want %d", method, held, wantHeld)
		}
		if bytes, clients := g.Held(); bytes != 0 || clients != 0 {
			t.Errorf("after a %s: %d in-flight bytes, %d client(s) hold some; want none", method, bytes, clients)
		}
	}
}
