package main

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/apitest"
	"example.com/userperf/common/bench"
	"example.com/userperf/common/user"
)

// setParallelMin sets the parallel threshold for one test or benchmark.
// Tests that call it must not run in parallel with each other.
func setParallelMin(tb testing.TB, n int) {
	old := parallelMin
	parallelMin = n
	tb.Cleanup(func() { parallelMin = old })
}

// userPointers returns the first n generated users as the store hands them
// out.
func userPointers(n int) []*user.User {
	users := bench.Users(user.DefaultCount)
	ptrs := make([]*user.User, n)
	for i := range ptrs {
		ptrs[i] = &users[i]
	}
	return ptrs
}

// parallelSizes are result sizes around the chunk boundaries and the
// default threshold.
func parallelSizes() []int {
	sizes := []int{0, 1, 1000, 5000, user.DefaultCount}
	for _, n := range []int{chunkUsers, 2 * chunkUsers, 3 * chunkUsers, maxChunks * chunkUsers, defaultParallelMin} {
		sizes = append(sizes, n-1, n, n+1)
	}
	return sizes
}

// TestParallelMatchesSequential checks that the parallel path gives the
// same bytes as the sequential one, when workers take the chunks and when
// every worker is busy and the request encodes all chunks itself.
func TestParallelMatchesSequential(t *testing.T) {
	setParallelMin(t, 1)
	for _, n := range parallelSizes() {
		users := userPointers(n)
		want := appendUsers(nil, users)
		if got := encodeUsers(users); !bytes.Equal(got, want) {
			t.Errorf("%d users with idle workers: parallel output differs from sequential: %s", n, firstDifference(got, want))
		}
		release := occupyWorkers()
		got := encodeUsers(users)
		release()
		if !bytes.Equal(got, want) {
			t.Errorf("%d users with busy workers: parallel output differs from sequential: %s", n, firstDifference(got, want))
		}
	}
}

// TestSplitFromBothEnds runs the two parts of a split one after the other
// on the test's goroutine, so that each order is certain: the helpers take
// every chunk (from the back) before the request starts, or the request
// takes every chunk (from the front) before the helpers start.
func TestSplitFromBothEnds(t *testing.T) {
	chunkWorkers.start.Do(startChunkWorkers)
	if len(chunkWorkers.all) == 0 {
		t.Skip("GOMAXPROCS is 1: there are no workers")
	}
	for _, n := range parallelSizes() {
		if n < 2*chunkUsers {
			continue
		}
		users := userPointers(n)
		want := appendUsers(nil, users)

		s := newSplit(users)
		s.refs.Add(1)
		s.helper[0].help(new([]byte)) // takes every chunk
		if got := s.appendFront(nil); !bytes.Equal(got, want) {
			t.Errorf("%d users, all encoded by a helper: output differs from sequential: %s", n, firstDifference(got, want))
		}

		s = newSplit(users)
		s.refs.Add(1)
		h := &s.helper[0]
		got := s.appendFront(nil) // takes every chunk, then waits for none
		h.help(new([]byte))       // finds nothing left, and lets go of s
		if !bytes.Equal(got, want) {
			t.Errorf("%d users, all encoded by the request: output differs from sequential: %s", n, firstDifference(got, want))
		}
	}
}

// occupyWorkers makes every chunk worker busy until release is called, as
// if requests had claimed them (see offer) and had not handed them their
// task yet.
func occupyWorkers() (release func()) {
	chunkWorkers.start.Do(startChunkWorkers)
	n := len(chunkWorkers.all)
	wasParked := make([]bool, n)
	for i := range chunkWorkers.all {
		w := &chunkWorkers.all[i]
		for {
			if w.state.CompareAndSwap(spinning, claimed) {
				break
			}
			if w.state.CompareAndSwap(parked, claimed) {
				wasParked[i] = true
				break
			}
			runtime.Gosched() // the worker is busy with an earlier task
		}
	}
	return func() {
		// Hand each worker a task with nothing left to do.
		nothing := &split{helper: make([]helper, n)}
		nothing.refs.Store(int32(n) + 1) // never reaches 0: stays out of the pool
		for i := range chunkWorkers.all {
			h := &nothing.helper[i]
			*h = helper{split: nothing, index: i}
			if wasParked[i] {
				chunkWorkers.all[i].wake <- h
			} else {
				chunkWorkers.all[i].next.Store(h)
			}
		}
	}
}

// TestParallelConcurrentRequests runs many parallel encodings at once, so
// that workers and requests race for chunks; under -race it also checks
// that a chunk's buffer is handed over safely.
func TestParallelConcurrentRequests(t *testing.T) {
	setParallelMin(t, 1)
	const requests, rounds = 8, 20
	var wg sync.WaitGroup
	for r := range requests {
		wg.Go(func() {
			for i := range rounds {
				users := userPointers(100 + 37*r + 211*i)
				want := appendUsers(nil, users)
				got := encodeUsers(users)
				if !bytes.Equal(got, want) {
					t.Errorf("%d users: concurrent parallel output differs: %s", len(users), firstDifference(got, want))
					return
				}
				putBuffer(got)
			}
		})
	}
	wg.Wait()
}

func TestParallelMinFromEnv(t *testing.T) {
	for value, want := range map[string]int{"": defaultParallelMin, "off": math.MaxInt, "1": 1, "2500": 2500} {
		if got := parallelMinFromEnv(value); got != want {
			t.Errorf("parallelMinFromEnv(%q) = %d, want %d", value, got, want)
		}
	}
	for _, bad := range []string{"0", "-5", "on", "1e3"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("parallelMinFromEnv(%q) accepted a malformed value", bad)
				}
			}()
			parallelMinFromEnv(bad)
		}()
	}
}

// parallelMode is a setting of parallelMin that a benchmark compares.
type parallelMode struct {
	name string
	min  int
}

// parallelModes are parallel serialization switched off and at this
// stage's default.
var parallelModes = []parallelMode{{"off", math.MaxInt}, {"on", defaultParallelMin}}

// BenchmarkParallelThreshold measures one request at a time, with parallel
// chunks on (threshold 1) and off, for result sizes around the threshold:
// where parallel encoding starts to pay on an otherwise idle machine.
//
//	go test -run '^$' -bench ParallelThreshold -benchtime 200ms -count 6 ./stage3-parallel
func BenchmarkParallelThreshold(b *testing.B) {
	for _, n := range []int{100, 150, 200, 300, 400, 600, 1000, 2000} {
		users := userPointers(n)
		for _, mode := range []parallelMode{{"off", math.MaxInt}, {"on", 1}} {
			b.Run(fmt.Sprintf("matches=%d/parallel=%s", n, mode.name), func(b *testing.B) {
				setParallelMin(b, mode.min)
				b.ReportAllocs()
				for b.Loop() {
					putBuffer(encodeUsers(users))
				}
			})
		}
	}
}

// BenchmarkConcurrentServeHTTP measures throughput through the Echo handler
// with requests in flight on every core (b.RunParallel with one client per
// core, and with eight), with parallel chunks off and on: where the case
// study warns that splitting a request can only add work.
//
//	go test -run '^$' -bench ConcurrentServeHTTP -benchtime 500ms -count 6 ./stage3-parallel
func BenchmarkConcurrentServeHTTP(b *testing.B) {
	handler := api.NewHandler(New(bench.Users(user.DefaultCount)))
	for _, c := range []struct {
		role    string
		matches int
	}{{user.RoleAdmin, user.AdminCount}, {user.RoleEditor, user.EditorCount}} {
		for _, perCore := range []int{1, 8} {
			for _, mode := range parallelModes {
				clients := perCore * runtime.GOMAXPROCS(0)
				b.Run(fmt.Sprintf("matches=%d/clients=%d/parallel=%s", c.matches, clients, mode.name), func(b *testing.B) {
					setParallelMin(b, mode.min)
					concurrentGets(b, handler, apitest.ListTarget(c.role), perCore)
				})
			}
		}
	}
}

// concurrentGets sends GET target to handler from perCore goroutines per
// core until b.N requests are answered.
func concurrentGets(b *testing.B, handler http.Handler, target string, perCore int) {
	b.SetParallelism(perCore)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		w := bench.NewDiscardWriter()
		for pb.Next() {
			w.Reset()
			handler.ServeHTTP(w, req)
			if w.Status != http.StatusOK {
				b.Errorf("GET %s: status %d", target, w.Status)
				return
			}
		}
	})
}
