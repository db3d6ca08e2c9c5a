// Package bench is the benchmark suite that every stage runs, so that all
// stages produce the same benchmark names and benchstat lines them up:
//
//	BenchmarkListByRole/users=U/matches=M   lookup and serialization, in process
//	BenchmarkServeHTTP/users=U/matches=M    the same request through the Echo handler
//	BenchmarkBare                           its limit: a bare Echo handler writing a list built
//	                                        in advance (the floor runs it; see Bare)
//	BenchmarkWrite/users=U/roles=R          one Stage.Add and one Stage.Delete of a user
//	                                        holding the R most-held roles, in process
//	BenchmarkBuild/users=U                  building the stage, and the memory it holds;
//	BenchmarkBuild/roles=R/holders=1        the same for 10,000 users with R roles of their own
//	BenchmarkMixed/users=U/writes=W/clients=C
//	                                        requests of which W percent are writes, the rest
//	                                        reads, from C clients at once
//	BenchmarkFullStore/roles=R/holders=H    GET of the largest list once users of that Shape
//	                                        have filled the store to its limit (stages 5 and 6)
//
// ListByRole and ServeHTTP also report the garbage collections per request
// (gc-cycles/op, see GCCycles). Set USERPERF_MILLION=1 to add users=1000000.
package bench

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/apitest"
	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// Case is one data set size and result size.
type Case struct {
	Users, Matches int
}

// Name is the sub-benchmark name, with its parameters as benchstat keys.
func (c Case) Name() string { return fmt.Sprintf("users=%d/matches=%d", c.Users, c.Matches) }

// Role is the role that exactly c.Matches users hold at every size.
func (c Case) Role() string {
	if c.Matches == user.EditorCount {
		return user.RoleEditor
	}
	return user.RoleAdmin
}

// Cases are the benchmark's sizes: the case study's two result sizes at the
// default 10,000 users, and 100 matches at 1,000 and 100,000 users to show
// how each stage scales with the data rather than with the result.
func Cases() []Case {
	cases := []Case{{10_000, 100}, {10_000, 1_000}, {1_000, 100}, {100_000, 100}}
	if millionRequested() {
		cases = append(cases, Case{1_000_000, 100})
	}
	return cases
}

// millionRequested reports whether USERPERF_MILLION asks for a million users too.
func millionRequested() bool { return os.Getenv("USERPERF_MILLION") != "" }

var (
	usersMu     sync.Mutex
	cachedCount int
	cachedUsers []user.User
)

// Users returns a fresh copy of the default data set with count users;
// the strings and roles they hold are shared, which no stage modifies.
// Only the last set is kept: a larger live heap left by an earlier one
// would make the collector run less often in the benchmarks after it.
func Users(count int) []user.User {
	usersMu.Lock()
	defer usersMu.Unlock()
	if cachedCount != count {
		cachedUsers, cachedCount = nil, 0 // let the old set go before the new one is made
		cachedUsers, cachedCount = user.MustGenerate(count, user.DefaultSeed), count
	}
	return slices.Clone(cachedUsers)
}

// ListByRole measures Stage.ListByRole, and Recycle, as a request does.
func ListByRole(b *testing.B, newStage api.NewStage) {
	for _, c := range Cases() {
		b.Run(c.Name(), func(b *testing.B) {
			users := Users(c.Users)
			want := plain.New(users).ListBody(c.Role())
			stage := newStage(users)
			if got := stage.ListByRole(c.Role()); !bytes.Equal(got, want) {
				b.Fatalf("ListByRole(%q) differs from encoding/json.Marshal", c.Role())
			}
			b.ReportAllocs()
			stopGC, stopCPU := GCCycles(b), CPUTime(b)
			for b.Loop() {
				api.Recycle(stage, stage.ListByRole(c.Role()))
			}
			stopCPU()
			stopGC()
		})
	}
}

// ServeHTTP measures GET /users?role=R through the Echo handler.
func ServeHTTP(b *testing.B, newStage api.NewStage) {
	for _, c := range Cases() {
		b.Run(c.Name(), func(b *testing.B) {
			users := Users(c.Users)
			want := plain.New(users).ListBody(c.Role())
			serveList(b, api.NewHandler(newStage(users), users), c.Role(), len(want))
		})
	}
}

// serveList measures h answering GET /users?role=role into a
// DiscardWriter, and fails b unless the last answer was 200 with size
// bytes of body.
func serveList(b *testing.B, h http.Handler, role string, size int) {
	req := httptest.NewRequest("GET", apitest.ListTarget(role), nil)
	w := NewDiscardWriter()
	b.ReportAllocs()
	stopGC, stopCPU := GCCycles(b), CPUTime(b)
	for b.Loop() {
		w.Reset()
		h.ServeHTTP(w, req)
	}
	stopCPU()
	stopGC()
	if w.Status != http.StatusOK || w.Written != size {
		b.Fatalf("last response: status %d with %d bytes, want 200 with %d", w.Status, w.Written, size)
	}
}

// DiscardWriter is an http.ResponseWriter that counts the body and drops
// it, so that a benchmark measures the server's work, not a copy. Reset it
// before each request.
type DiscardWriter struct {
	header  http.Header
	Status  int // 200 if only the body was written
	Written int // bytes of body
}

func NewDiscardWriter() *DiscardWriter { return &DiscardWriter{header: http.Header{}} }

func (w *DiscardWriter) Header() http.Header { return w.header }

func (w *DiscardWriter) WriteHeader(status int) { w.Status = status }

func (w *DiscardWriter) Write(p []byte) (int, error) {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	w.Written += len(p)
	return len(p), nil
}

func (w *DiscardWriter) Reset() {
	clear(w.header)
	w.Status, w.Written = 0, 0
}
