package main

import (
	"fmt"
	"strings"
	"testing"

	"example.com/userperf/common/user"
)

// TestPoisonedSizesDoNotInflateOtherBodies plays a client that tries to
// make every response reserve too much: it stores users whose strings are
// full of characters that escape to six bytes each, and reads their role
// again and again. A request must still reserve only what its own users
// need, so a large read afterwards has a body whose capacity is about its
// size. (The capacity, not the bytes allocated: under -race, sync.Pool drops
// some of what it is given, and encoding/json then allocates more.)
func TestPoisonedSizesDoNotInflateOtherBodies(t *testing.T) {
	s := New(user.MustGenerate(user.DefaultCount, user.DefaultSeed)).(*Store)
	poison := strings.Repeat("<&>", 85) // 255 bytes that escape to 1,530
	for i := range 10 {
		u := user.User{ID: fmt.Sprintf("poison-%d", i), Name: poison, Email: poison + "@x", Roles: []string{"poison"}}
		if !s.Add(u) {
			t.Fatalf("Add(%s) refused", u.ID)
		}
	}
	for range 12 {
		s.Recycle(s.ListByRole("poison"))
	}

	body := s.ListByRole("viewer")
	if limit := 2 * len(body); cap(body) > limit {
		t.Errorf("after the poisoning requests, GET role=viewer reserved %d bytes for a body of %d: want at most %d",
			cap(body), len(body), limit)
	}
}

// TestBufferReuse checks the free list: a buffer given back is handed out
// again when it is large enough, and never when it is too small.
func TestBufferReuse(t *testing.T) {
	drainFreeList()
	buf := getBuffer(1000)
	putBuffer(append(buf, "leftover"...))
	again := getBuffer(500)
	if len(again) != 0 || cap(again) != cap(buf) || &again[:1][0] != &buf[:1][0] {
		t.Errorf("getBuffer(500) after giving back a buffer of capacity %d: got len %d cap %d, a different buffer or not empty",
			cap(buf), len(again), cap(again))
	}
	putBuffer(again)
	if larger := getBuffer(cap(buf) + 1); cap(larger) < cap(buf)+1 {
		t.Errorf("getBuffer(%d) returned capacity %d", cap(buf)+1, cap(larger))
	}
	drainFreeList()
	putBuffer(make([]byte, 0, maxReusedBytes+1))
	if huge := getBuffer(1); cap(huge) > maxReusedBytes {
		t.Errorf("a buffer of more than maxReusedBytes was kept for reuse")
	}
}

// drainFreeList empties the free list, which other tests fill.
func drainFreeList() {
	for {
		select {
		case <-freeList:
		default:
			return
		}
	}
}
