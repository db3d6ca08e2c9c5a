package main

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

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
// out: pointers in ascending id order.
func userPointers(n int) []*user.User {
	users := bench.Users(user.DefaultCount)
	ptrs := make([]*user.User, n)
	for i := range ptrs {
		ptrs[i] = &users[i]
	}
	return ptrs
}

// TestParallelMatchesSequential checks that the parallel path gives the
// same bytes as the sequential one for every result size around the chunk
// boundaries, with one to more chunks than users.
func TestParallelMatchesSequential(t *testing.T) {
	setParallelMin(t, 1)
	for _, procs := range []int{1, 2, 3, 8} {
		old := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 100, 1000, user.DefaultCount} {
			users := userPointers(n)
			want := appendUsers(nil, users)
			if got := encodeUsers(users); !bytes.Equal(got, want) {
				t.Errorf("GOMAXPROCS=%d, %d users: parallel output differs from sequential:\n got %.200q\nwant %.200q", procs, n, got, want)
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// BenchmarkParallel measures parallel chunks against the request's own
// goroutine, with one request at a time (clients=1) and with many at once
// (clients=16: 16 goroutines sharing the cores, as a busy server's requests
// do). ./scripts/parallel.sh runs it on an idle machine and again while
// another process keeps every core busy, the three conditions of the
// stage's chapter.
func BenchmarkParallel(b *testing.B) {
	for _, n := range []int{100, 300, 1000, user.DefaultCount} {
		users := userPointers(n)
		for _, clients := range []int{1, 16} {
			for _, mode := range []struct {
				name string
				min  int
			}{{"off", 0}, {"on", 1}} {
				b.Run(fmt.Sprintf("matches=%d/clients=%d/parallel=%s", n, clients, mode.name), func(b *testing.B) {
					setParallelMin(b, mode.min)
					b.ReportAllocs()
					if clients == 1 {
						for b.Loop() {
							putBuffer(encodeUsers(users))
						}
						return
					}
					b.SetParallelism(max(1, clients/runtime.GOMAXPROCS(0)))
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							putBuffer(encodeUsers(users))
						}
					})
				})
			}
		}
	}
}
