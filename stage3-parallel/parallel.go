package main

import (
	"os"
	"runtime"
	"strconv"
	"sync"

	"example.com/userperf/common/user"
)

// parallelMin is the smallest result, in users, encoded in parallel chunks;
// 0, the default, turns them off, for the measurements in README.md. To try
// them, set USERPERF_PARALLEL_MIN to a number of users.
var parallelMin, _ = strconv.Atoi(os.Getenv("USERPERF_PARALLEL_MIN"))

// appendUsersParallel appends the same bytes as appendUsers, in one chunk
// per core: the request encodes the first into dst while a goroutine per
// other chunk encodes it into a buffer sized for that chunk; then the
// request appends those in order and gives them back.
func appendUsersParallel(dst []byte, users []*user.User) []byte {
	chunks := max(1, min(runtime.GOMAXPROCS(0), len(users)))
	parts := make([][]byte, chunks)
	var wg sync.WaitGroup
	for k := 1; k < chunks; k++ {
		chunk := users[k*len(users)/chunks : (k+1)*len(users)/chunks]
		wg.Go(func() { parts[k] = appendUserList(getBuffer(encodedSize(chunk)), chunk) })
	}
	dst = appendUserList(append(dst, '['), users[:len(users)/chunks])
	wg.Wait()
	for _, part := range parts[1:] {
		dst = append(append(dst, ','), part...)
		putBuffer(part)
	}
	return append(dst, ']')
}
