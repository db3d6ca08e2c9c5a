package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"example.com/userperf/common/apitest"
	"example.com/userperf/common/bench"
	"example.com/userperf/common/user"
)

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

// encodeParallel is encodeUsers with stage 3's chunks.
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
	}{{"off", encodeUsers}, {"on", encodeParallel}}
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

// appendUsersParallel is stage 3's parallel.go over this stage's encoder,
// for BenchmarkParallel to measure its chunks: the request encodes the first chunk
// into dst while a goroutine per other chunk encodes it into a buffer sized
// for that chunk; then the request appends those in order.
func appendUsersParallel(dst []byte, users []*user.User) []byte {
	chunks := max(1, min(runtime.GOMAXPROCS(0), len(users)))
	parts := make([][]byte, chunks)
	var wg sync.WaitGroup
	for k := 1; k < chunks; k++ {
		chunk := users[k*len(users)/chunks : (k+1)*len(users)/chunks]
		wg.Go(func() { parts[k] = appendUserList(getBuffer(reservedSize(chunk)), chunk) })
	}
	dst = appendUserList(append(dst, '['), users[:len(users)/chunks])
	wg.Wait()
	for _, part := range parts[1:] {
		dst = append(append(dst, ','), part...)
		putBuffer(part)
	}
	return append(dst, ']')
}
