package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

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
// out: pointers in ascending id order.
func userPointers(n int) []*user.User {
	users := bench.Users(user.DefaultCount)
	ptrs := make([]*user.User, n)
	for i := range ptrs {
		ptrs[i] = &users[i]
	}
	return ptrs
}

// marshal is the reference: encoding/json.Marshal of the whole slice.
func marshal(t *testing.T, users []*user.User) []byte {
	want, err := json.Marshal(users)
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// TestParallelMatchesMarshal checks that the chunks, joined, give the bytes
// of json.Marshal for result sizes around the chunk boundaries, with one
// chunk to more chunks than users.
func TestParallelMatchesMarshal(t *testing.T) {
	for _, procs := range []int{1, 2, 3, 8} {
		old := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 100, 127, 128, 129, 1000} {
			users := userPointers(n)
			if got, want := appendUsersParallel(nil, users), marshal(t, users); !bytes.Equal(got, want) {
				t.Errorf("GOMAXPROCS=%d, %d users: parallel chunks differ from json.Marshal, %s",
					procs, n, apitest.Mismatch(got, want))
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// TestParallelMinTurnsItOn checks that encodeUsers gives the same bytes on
// either side of parallelMin, and with chunks off (0).
func TestParallelMinTurnsItOn(t *testing.T) {
	users := userPointers(1000)
	want := marshal(t, users)
	for _, min := range []int{0, 1, 999, 1000, 1001} {
		setParallelMin(t, min)
		if got := encodeUsers(users); !bytes.Equal(got, want) {
			t.Errorf("parallelMin=%d: 1000 users encode to other bytes than json.Marshal", min)
		}
	}
}

// encodeSerial and encodeParallel are the two ways BenchmarkParallel
// encodes a result, each into a reserved, reused body, whatever
// parallelMin says.
func encodeSerial(users []*user.User) []byte {
	return append(appendUserList(append(getBuffer(reservedSize(users)), '['), users), ']')
}

func encodeParallel(users []*user.User) []byte {
	return appendUsersParallel(getBuffer(reservedSize(users)), users)
}

// BenchmarkParallel measures parallel chunks (parallel=on) against the
// request's own goroutine (parallel=off), with one request at a time
// (clients=1) and with 16 at once (clients=16: goroutines sharing the cores,
// as a busy server's requests do). go run ./scripts/serialize runs it on an idle
// machine and again while another process keeps every core busy: the three
// conditions of the chapter's table. The metric "cores" says how many cores
// were busy meanwhile: whether the chunks found an idle core to run on.
func BenchmarkParallel(b *testing.B) {
	modes := []struct {
		name   string
		encode func([]*user.User) []byte
	}{{"off", encodeSerial}, {"on", encodeParallel}}
	for _, n := range []int{100, 300, 1000, user.DefaultCount} {
		users := userPointers(n)
		want, _ := json.Marshal(users)
		for _, clients := range []int{1, 16} {
			for _, mode := range modes {
				b.Run(fmt.Sprintf("matches=%d/clients=%d/parallel=%s", n, clients, mode.name), func(b *testing.B) {
					if got := mode.encode(users); !bytes.Equal(got, want) {
						b.Fatalf("parallel=%s: %d users encode to other bytes than json.Marshal", mode.name, n)
					}
					b.ReportAllocs()
					stop := bench.CPUTime(b)
					if clients == 1 {
						for b.Loop() {
							putBuffer(mode.encode(users))
						}
					} else {
						b.SetParallelism(max(1, clients/runtime.GOMAXPROCS(0)))
						b.RunParallel(func(pb *testing.PB) {
							for pb.Next() {
								putBuffer(mode.encode(users))
							}
						})
					}
					stop()
				})
			}
		}
	}
}
