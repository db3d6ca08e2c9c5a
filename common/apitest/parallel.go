package apitest

import (
	"bytes"
	"runtime"
	"testing"

	"example.com/userperf/common/user"
)

// UserPointers returns the first n generated users as a store hands them
// out: pointers in ascending id order.
func UserPointers(n int) []*user.User {
	users := user.MustGenerate(user.DefaultCount, user.DefaultSeed)
	ptrs := make([]*user.User, n)
	for i := range ptrs {
		ptrs[i] = &users[i]
	}
	return ptrs
}

// ParallelMatchesMarshal checks that stage 3's appendUsersParallel gives
// the bytes of json.Marshal around the chunk boundaries, with one chunk to
// more chunks than users.
func ParallelMatchesMarshal(t *testing.T, appendParallel func(dst []byte, users []*user.User) []byte) {
	for _, procs := range []int{1, 2, 3, 8} {
		old := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 100, 127, 128, 129, 1000} {
			users := UserPointers(n)
			if got, want := appendParallel(nil, users), mustMarshal(users); !bytes.Equal(got, want) {
				t.Errorf("GOMAXPROCS=%d, %d users: parallel chunks differ from json.Marshal, %s",
					procs, n, Mismatch(got, want))
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// ParallelMin checks that encodeUsers gives the same bytes on either side
// of *parallelMin, from which stage 3 encodes in chunks, and with chunks
// off (0). Its callers must not run in parallel.
func ParallelMin(t *testing.T, parallelMin *int, encodeUsers func([]*user.User) []byte) {
	old := *parallelMin
	t.Cleanup(func() { *parallelMin = old })
	users := UserPointers(1000)
	want := mustMarshal(users)
	for _, min := range []int{0, 1, 999, 1000, 1001} {
		*parallelMin = min
		if got := encodeUsers(users); !bytes.Equal(got, want) {
			t.Errorf("parallelMin=%d: 1000 users encode to other bytes than json.Marshal", min)
		}
	}
}
