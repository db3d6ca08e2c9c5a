package main

import (
	"os"
	"runtime"
	"strconv"
	"sync"

	"example.com/userperf/common/user"
)

// parallelMin is the smallest result, in users, that is encoded in
// parallel chunks: the size that the rule of docs/stage3-parallel.md gave
// in two runs in a row of its measurement, under three loads.
// USERPERF_PARALLEL_MIN sets another (0 turns chunks off), so that a
// learner can apply the rule on a machine of their own.
var parallelMin = envInt("USERPERF_PARALLEL_MIN", 1000)

// envInt is the environment variable name as a number, or def if it is unset
// or not a number.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}

// appendUsersParallel appends the JSON array of users, in one chunk per
// core: the request encodes the first into dst while a goroutine per
// other chunk encodes it into a buffer sized for that chunk; then the
// request appends those in order and gives them back.
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
