package main

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"example.com/userperf/common/user"
)

// Parallel serialization. A large result is cut into small chunks, and the
// request takes chunks from the front, encoding them straight into the
// body, while idle workers take chunks from the back into buffers of their
// own; when the two ends meet, the request waits for the chunks the workers
// are still encoding and appends theirs in order.
//
// The workers (workers.go) are a fixed set shared by the process, not a
// goroutine per chunk per request. The rest of the design follows from the
// case study's caveat, that parallelism can lose under concurrent load:
//
//   - A request offers the work only to workers that are idle at that
//     moment, and never waits for one to become free.
//   - Taking chunks from both ends balances itself: a worker that wakes up
//     late, or gets no core because every core serves a request, simply
//     takes fewer chunks or none, and the request encodes the rest itself.
//     It waits only for chunks that a worker has started, which are small.
//
// parallelMin, chunkUsers and the workers' spinWindow come from the
// measurements in README.md.

// parallelMin is the smallest number of users encoded in parallel.
// Set USERPERF_PARALLEL_MIN to change it, or to "off" to encode every
// response on the request's own goroutine.
var parallelMin = parallelMinFromEnv(os.Getenv("USERPERF_PARALLEL_MIN"))

// defaultParallelMin: on the 2-core machine of README.md's measurements,
// 300 users and more were encoded faster in parallel in every run, while
// 200 users won in some runs and lost a few percent in others; concurrent
// requests lost nothing measurable.
const defaultParallelMin = 300

// chunkUsers is the usual number of users in a chunk: a few microseconds of
// work, long enough that claiming it costs little, short enough that the
// request rarely waits long for a worker's last chunk.
const chunkUsers = 64

// maxChunks bounds the chunks of one request; larger results get larger
// chunks.
const maxChunks = 64

func parallelMinFromEnv(value string) int {
	switch value {
	case "":
		return defaultParallelMin
	case "off":
		return math.MaxInt
	}
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 {
		panic(fmt.Sprintf("USERPERF_PARALLEL_MIN=%q: want a number of users (at least 1) or \"off\"", value))
	}
	return n
}

// split is one request's parallel encoding, shared by the request and the
// workers that help it. Splits are pooled; the last of the request and its
// helpers to let go of one returns it to the pool.
type split struct {
	users  []*user.User
	chunks int
	// claims holds the next chunk to take from the front (low 32 bits)
	// and one past the next chunk to take from the back (high 32 bits).
	claims   atomic.Uint64
	refs     atomic.Int32    // the request and the helpers that still hold the split
	finished atomic.Int32    // chunks that helpers have finished
	slots    [maxChunks]slot // where each chunk taken from the back was put
	helper   []helper        // one per worker
}

// slot locates a chunk in a helper's buffer.
type slot struct{ helper, start, end int }

// helper is a worker's part in a split.
type helper struct {
	split *split
	index int
	buf   []byte // the chunks this helper encoded, from the buffer pool
}

var splits = sync.Pool{New: func() any {
	s := &split{helper: make([]helper, len(chunkWorkers.all))}
	for i := range s.helper {
		s.helper[i] = helper{split: s, index: i}
	}
	return s
}}

// appendUsersParallel appends the JSON array of users to dst, the same
// bytes as appendUsers, with the help of the workers that are idle.
func appendUsersParallel(dst []byte, users []*user.User) []byte {
	chunkWorkers.start.Do(startChunkWorkers)
	if len(users) < 2*chunkUsers || len(chunkWorkers.all) == 0 {
		return appendUsers(dst, users)
	}
	s := newSplit(users)
	helped := false
	for i := range s.helper {
		s.refs.Add(1)
		if !offer(&s.helper[i]) {
			s.refs.Add(-1)
			break // no worker is idle: do not wait for one
		}
		helped = true
	}
	if !helped {
		s.release()
		return appendUsers(dst, users)
	}
	return s.appendFront(dst)
}

// newSplit returns a split of users from the pool, held by the caller.
func newSplit(users []*user.User) *split {
	s := splits.Get().(*split)
	s.users = users
	s.chunks = min(maxChunks, (len(users)+chunkUsers-1)/chunkUsers)
	s.claims.Store(uint64(s.chunks) << 32)
	s.refs.Store(1)
	s.finished.Store(0)
	return s
}

// appendFront is the request's part: it encodes chunks from the front into
// dst until none is left, then appends the helpers' chunks, and lets go of
// the split.
func (s *split) appendFront(dst []byte) []byte {
	dst = append(dst, '[')
	for {
		i, ok := s.claim(true)
		if !ok {
			break
		}
		dst = s.appendChunk(dst, i)
	}
	// Every chunk is taken; the helpers took those from met on. Waiting
	// for the last of them is short, so it polls rather than blocks: a
	// blocked request would be woken on the helper's core and leave its
	// own idle (see workers.go on what waking a core costs).
	met := int(s.claims.Load() & math.MaxUint32)
	for s.finished.Load() < int32(s.chunks-met) {
		runtime.Gosched()
	}
	for _, c := range s.slots[met:s.chunks] {
		dst = append(dst, s.helper[c.helper].buf[c.start:c.end]...)
	}
	for i := range s.helper {
		if s.helper[i].buf != nil {
			putBuffer(s.helper[i].buf)
			s.helper[i].buf = nil
		}
	}
	s.release()
	return append(dst, ']')
}

// help encodes chunks from the back until none is left. Each chunk is
// encoded into scratch, memory that only this worker touches, and then
// copied to h.buf in one piece. Encoding straight into h.buf, which the
// request read on its own core the last time, made the helper twice as slow
// as the request on the VM of README.md: every few-byte append to a cache
// line that the other core holds waits for that core to give the line up,
// while one large copy streams whole lines.
func (h *helper) help(scratch *[]byte) {
	s := h.split
	for {
		i, ok := s.claim(false)
		if !ok {
			break
		}
		if h.buf == nil {
			h.buf = getBuffer(sizes.estimate(len(s.users) / 2))
		}
		*scratch = s.appendChunk((*scratch)[:0], i)
		start := len(h.buf)
		h.buf = append(h.buf, *scratch...)
		s.slots[i] = slot{h.index, start, len(h.buf)}
		s.finished.Add(1)
	}
	s.release()
}

// claim takes the next chunk from the front or the back, if any is left.
func (s *split) claim(front bool) (int, bool) {
	for {
		claims := s.claims.Load()
		next, end := claims&math.MaxUint32, claims>>32
		if next >= end {
			return 0, false
		}
		if front && s.claims.CompareAndSwap(claims, claims+1) {
			return int(next), true
		}
		if !front && s.claims.CompareAndSwap(claims, claims-1<<32) {
			return int(end - 1), true
		}
	}
}

// appendChunk appends chunk i of the array, with the comma before it.
func (s *split) appendChunk(dst []byte, i int) []byte {
	if i > 0 {
		dst = append(dst, ',')
	}
	n := len(s.users)
	return appendUserList(dst, s.users[i*n/s.chunks:(i+1)*n/s.chunks])
}

// release lets go of the split; the last holder returns it to the pool.
func (s *split) release() {
	if s.refs.Add(-1) == 0 {
		s.users = nil // the pool must not keep the users alive
		splits.Put(s)
	}
}
