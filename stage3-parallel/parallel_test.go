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

// TestParallelMatchesSequential checks that both parallel designs give the
// same bytes as the sequential encoder for result sizes around the chunk
// boundaries, with one to more chunks than users.
func TestParallelMatchesSequential(t *testing.T) {
	for _, procs := range []int{1, 2, 3, 8} {
		old := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 100, 127, 128, 129, 1000, user.DefaultCount} {
			users := userPointers(n)
			want := appendUsers(nil, users)
			for _, mode := range parallelModes()[1:] {
				if got := mode.encode(users); !bytes.Equal(got, want) {
					t.Errorf("parallel=%s, GOMAXPROCS=%d, %d users: output differs from sequential:\n got %.200q\nwant %.200q",
						mode.name, procs, n, got, want)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// TestParallelMinTurnsItOn checks that encodeUsers takes the parallel path
// from parallelMin users on, and gives the same bytes there.
func TestParallelMinTurnsItOn(t *testing.T) {
	users := userPointers(1000)
	want := appendUsers(nil, users)
	for _, min := range []int{0, 1, 999, 1000, 1001} {
		setParallelMin(t, min)
		if got := encodeUsers(users); !bytes.Equal(got, want) {
			t.Errorf("parallelMin=%d: 1000 users encode to other bytes", min)
		}
	}
}

// parallelMode is one way to encode a result, for BenchmarkParallel.
type parallelMode struct {
	name   string
	encode func([]*user.User) []byte
}

// parallelModes are the request's own goroutine (off), the simple parallel
// design of parallel.go (on), and the first version's worker pool (pool,
// pool_test.go), each into a reserved, reused body.
func parallelModes() []parallelMode {
	return []parallelMode{
		{"off", func(u []*user.User) []byte { return appendUsers(getBuffer(encodedSize(u)), u) }},
		{"on", func(u []*user.User) []byte { return appendUsersParallel(getBuffer(encodedSize(u)), u) }},
		{"pool", func(u []*user.User) []byte { return appendUsersPool(getBuffer(encodedSize(u)), u) }},
	}
}

// BenchmarkParallel measures parallel chunks against the request's own
// goroutine, with one request at a time (clients=1) and with many at once
// (clients=16: 16 goroutines sharing the cores, as a busy server's requests
// do). ./scripts/stage3.sh runs it on an idle machine and again while
// another process keeps every core busy, the three conditions of the
// stage's chapter.
func BenchmarkParallel(b *testing.B) {
	for _, n := range []int{100, 300, 1000, user.DefaultCount} {
		users := userPointers(n)
		for _, clients := range []int{1, 16} {
			for _, mode := range parallelModes() {
				b.Run(fmt.Sprintf("matches=%d/clients=%d/parallel=%s", n, clients, mode.name), func(b *testing.B) {
					b.ReportAllocs()
					if clients == 1 {
						for b.Loop() {
							putBuffer(mode.encode(users))
						}
						return
					}
					b.SetParallelism(max(1, clients/runtime.GOMAXPROCS(0)))
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							putBuffer(mode.encode(users))
						}
					})
				})
			}
		}
	}
}
