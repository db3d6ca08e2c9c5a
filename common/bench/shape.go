package bench

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
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
// holds Roles roles, and each of those roles is held by Holders users and
// by no generated user. The roles, ids and other fields are as short as
// the API takes, so that the most users and roles fit in the limits: the
// shapes in which a stage that keeps something per role or per holder
// holds the most for what the limits count. Holders 1 is the "own" shape:
// every role is one user's own.
type Shape struct{ Roles, Holders int }

// Name is the sub-benchmark name, with the shape's parameters as keys.
func (s Shape) Name() string { return fmt.Sprintf("roles=%d/holders=%d", s.Roles, s.Holders) }

// User is the n-th user of the shape, from 0: with Holders 2, users 0 and
// 1 share their roles, then 2 and 3, and so on.
func (s Shape) User(n int) user.User {
	// The ids sort after the generated users' and in the order written, so
	// that each is inserted at the end.
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

// upper36 writes n in base 36 with upper-case letters: short, and never
// an id or a role of the generated users, which all hold lower-case ones.
func upper36(n int) string { return strings.ToUpper(strconv.FormatInt(int64(n), 36)) }

// SoftLimit is the soft memory limit that api.Main gives the garbage
// collector with DefaultLimits. A stage whose heap nears it makes the
// collector run all the time.
func SoftLimit() int64 { return guard.MemoryLimit(api.DefaultLimits) }

// FullShapes are the shapes of FullStore: the own shape at the most roles
// a user may hold.
func FullShapes() []Shape { return []Shape{{Roles: api.MaxRoles, Holders: 1}} }

// FullStore measures GET of the largest list of the default data set
// through the Echo handler, once users of a shape have filled the store to
// its limit, with the garbage collector under SoftLimit as in a served
// stage: a stage that holds more than the limits count makes each read pay
// for collections. It reports the live heap of the full store (heap-B).
func FullStore(b *testing.B, newStage api.NewStage) {
	for _, shape := range FullShapes() {
		b.Run(shape.Name(), func(b *testing.B) {
			users := Users(user.DefaultCount)
			role := mostHeldRoles(users, 1)[0]
			want := plain.New(users).ListBody(role)
			handler := api.NewHandler(newStage(users), users)
			if _, err := shape.Fill(handler); err != nil {
				b.Fatal(err)
			}
			// The soft limit, then the memory the filling left returned, as a
			// served stage's would be once it settled: else the first
			// allocation under the limit pays for returning it.
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(SoftLimit()))
			debug.FreeOSMemory()
			heap := liveHeapBytes()
			req := httptest.NewRequest("GET", apitest.ListTarget(role), nil)
			w := NewDiscardWriter()
			if handler.ServeHTTP(w, req); w.Status != http.StatusOK || w.Written != len(want) {
				b.Fatalf("GET %s: status %d with %d bytes, want 200 with %d", req.URL, w.Status, w.Written, len(want))
			}
			b.ReportAllocs()
			stopGC, stopCPU := GCCycles(b), CPUTime(b)
			for b.Loop() {
				w.Reset()
				handler.ServeHTTP(w, req)
			}
			stopCPU()
			stopGC()
			b.ReportMetric(float64(heap), "heap-B") // after the loop, which drops metrics reported before it
			if w.Status != http.StatusOK || w.Written != len(want) {
				b.Fatalf("last response: status %d with %d bytes, want 200 with %d", w.Status, w.Written, len(want))
			}
		})
	}
}
