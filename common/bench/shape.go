package bench

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/api/guard"
	"example.com/userperf/common/apitest"
	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// A Shape is how the users written into a store hold their roles: each
// holds Roles roles, each held by Holders users and no generated user.
// Every field is as short as the API takes, so that the most users and
// roles fit in the limits. Holders 1 is the "own" shape.
type Shape struct{ Roles, Holders int }

// Name is the sub-benchmark name, with the shape's parameters as keys.
func (s Shape) Name() string { return fmt.Sprintf("roles=%d/holders=%d", s.Roles, s.Holders) }

// User is the n-th user of the shape, from 0: with Holders 2, users 0 and
// 1 share their roles, then 2 and 3, and so on.
func (s Shape) User(n int) user.User {
	// The ids sort after the generated users' and in the order written.
	id := upper36(n)
	u := user.User{ID: "v" + strings.Repeat("0", max(0, 4-len(id))) + id, Name: "O", Email: "o@", Roles: make([]string, s.Roles)}
	for r := range s.Roles {
		u.Roles[r] = upper36(n/s.Holders*s.Roles + r)
	}
	return u
}

// Fill posts users of the shape to h, from user 0 on, until h refuses one
// because the store is full, and returns how many it took.
func (s Shape) Fill(h http.Handler) (int, error) {
	for n := 0; ; n++ {
		body, err := json.Marshal(s.User(n))
		if err != nil {
			return n, err
		}
		switch w := apitest.Do(h, "POST", "/users", string(body)); w.Code {
		case http.StatusCreated:
		case http.StatusConflict:
			return n, nil
		default:
			return n, fmt.Errorf("POST of user %d of %s: status %d: %s", n, s.Name(), w.Code, w.Body)
		}
	}
}

// upper36 writes n in base 36 in upper case: short, and never a generated
// id or role.
func upper36(n int) string { return strings.ToUpper(strconv.FormatInt(int64(n), 36)) }

// SoftLimit is the garbage collector's soft limit under api.DefaultLimits.
func SoftLimit() int64 { return guard.MemoryLimit(api.DefaultLimits) }

// FullStore measures GET of the largest list of the default data set
// through the Echo handler once users of the own shape, at the most roles,
// have filled the store, with the collector under SoftLimit as in a served
// stage; and reports the full store's live heap (heap-B).
func FullStore(b *testing.B, newStage api.NewStage) {
	shape := Shape{Roles: api.MaxRoles, Holders: 1}
	b.Run(shape.Name(), func(b *testing.B) {
		users := Users(user.DefaultCount)
		role := mostHeldRoles(users, 1)[0]
		want := plain.New(users).ListBody(role)
		handler := api.NewHandler(newStage(users), users)
		if _, err := shape.Fill(handler); err != nil {
			b.Fatal(err)
		}
		// The memory the filling left is returned, as a served stage's would
		// be once settled: else the first allocation under the limit pays.
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(SoftLimit()))
		debug.FreeOSMemory()
		heap := liveHeapBytes()
		serveList(b, handler, role, len(want))
		b.ReportMetric(float64(heap), "heap-B") // after the loop, which drops metrics reported before it
	})
}
