package main

import (
	"runtime"
	"sync"
	"testing"

	"example.com/userperf/common/apitest"
	"example.com/userperf/common/bench"
	"example.com/userperf/common/user"
)

func TestParallelMatchesMarshal(t *testing.T) { apitest.ParallelMatchesMarshal(t, appendUsersParallel) }

func BenchmarkParallel(b *testing.B) { bench.Parallel(b, encodeUsers, encodeParallel, putBuffer) }

// encodeParallel is encodeUsers with stage 3's chunks.
func encodeParallel(users []*user.User) []byte {
	return appendUsersParallel(getBuffer(reservedSize(users)), users)
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
