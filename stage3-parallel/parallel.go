package main

import (
	"os"
	"runtime"
	"strconv"
	"sync"

	"example.com/userperf/common/user"
)

// parallelMin is the smallest result, in users, that is encoded in parallel
// chunks; 0, the default, turns it off, for the measurements in README.md
// (idle, concurrent requests, another process holding the cores). To try
// it, set USERPERF_PARALLEL_MIN to a number of users.
var parallelMin, _ = strconv.Atoi(os.Getenv("USERPERF_PARALLEL_MIN"))

// appendUsersParallel appends the JSON array of users to dst, the same
// bytes as appendUsers. The users are cut into one chunk per core; the
// request encodes the first chunk straight into dst while a goroutine per
// other chunk encodes it into a buffer of its own, sized for that chunk.
// Then the request appends those buffers in order and gives them back.
func appendUsersParallel(dst []byte, users []*user.User) []byte {
	chunks := max(1, min(runtime.GOMAXPROCS(0), len(users)))
	bounds := func(k int) (int, int) { return k * len(users) / chunks, (k + 1) * len(users) / chunks }
	parts := make([][]byte, chunks)
	var wg sync.WaitGroup
	for k := 1; k < chunks; k++ {
		lo, hi := bounds(k)
		wg.Go(func() { parts[k] = appendUserList(getBuffer(encodedSize(users[lo:hi])), users[lo:hi]) })
	}
	_, firstEnd := bounds(0)
	dst = appendUserList(append(dst, '['), users[:firstEnd])
	wg.Wait()
	for _, part := range parts[1:] {
		dst = append(append(dst, ','), part...)
		putBuffer(part)
	}
	return append(dst, ']')
}
