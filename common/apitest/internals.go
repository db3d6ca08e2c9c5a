package apitest

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// PoisonedSizes checks that a stage that reserves its bodies (stage 3 on)
// reserves what a request's users need, after many reads of users whose
// JSON is six times their text. It checks the capacity, not the bytes
// allocated: under -race, sync.Pool drops some of what it is given.
func PoisonedSizes(t *testing.T, newStage api.NewStage) {
	s := newStage(user.MustGenerate(user.DefaultCount, user.DefaultSeed))
	poison := strings.Repeat("<&>", 85) // 255 bytes that escape to 1,530
	for i := range 10 {
		u := user.User{ID: fmt.Sprintf("poison-%d", i), Name: poison, Email: poison + "@x", Roles: []string{"poison"}}
		if !s.Add(u) {
			t.Fatalf("Add(%s) refused", u.ID)
		}
	}
	for range 12 {
		api.Recycle(s, s.ListByRole("poison"))
	}

	body := s.ListByRole("viewer")
	if limit := 2 * len(body); cap(body) > limit {
		t.Errorf("after the poisoning requests, GET role=viewer reserved %d bytes for a body of %d: want at most %d",
			cap(body), len(body), limit)
	}
}

// FreeList is a stage's free list of bodies (buffer.go), held in List;
// bodies of more than MaxReused bytes are not kept.
type FreeList struct {
	Get       func(size int) []byte
	Put       func(body []byte)
	List      chan []byte
	MaxReused int
}

// BufferReuse checks the free list: a buffer given back is handed out
// again when it is large enough, and never when it is too small.
func BufferReuse(t *testing.T, l FreeList) {
	l.drain()
	buf := l.Get(1000)
	l.Put(append(buf, "leftover"...))
	again := l.Get(500)
	if len(again) != 0 || cap(again) != cap(buf) || &again[:1][0] != &buf[:1][0] {
		t.Errorf("getBuffer(500) after giving back a buffer of capacity %d: got len %d cap %d, a different buffer or not empty",
			cap(buf), len(again), cap(again))
	}
	l.Put(again)
	if larger := l.Get(cap(buf) + 1); cap(larger) < cap(buf)+1 {
		t.Errorf("getBuffer(%d) returned capacity %d", cap(buf)+1, cap(larger))
	}
	l.drain()
	l.Put(make([]byte, 0, l.MaxReused+1))
	if huge := l.Get(1); cap(huge) > l.MaxReused {
		t.Errorf("a buffer of more than maxReusedBytes was kept for reuse")
	}
}

// drain empties the free list, which other tests fill.
func (l FreeList) drain() {
	for len(l.List) > 0 {
		<-l.List
	}
}

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
