package main

// The worker pool of this stage's first version, kept here, in test code
// only, so that BenchmarkParallel can measure it against the simple design
// in parallel.go (parallel=pool against parallel=on) on the same encoder.
// It is what a cleverer design looks like: GOMAXPROCS-1 workers shared by
// the process, chunks claimed from both ends of the result without locks,
// workers that poll for a while before they sleep, and reference-counted
// splits. The chapter shows what it bought.

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"example.com/userperf/common/user"
)

// poolChunkUsers is the usual number of users in a chunk; poolMaxChunks
// bounds the chunks of one request (larger results get larger chunks).
const (
	poolChunkUsers = 64
	poolMaxChunks  = 64
)

// split is one request's parallel encoding, shared by the request and the
// workers that help it. The last holder returns it to the pool.
type split struct {
	users  []*user.User
	chunks int
	// claims holds the next chunk to take from the front (low 32 bits)
	// and one past the next chunk to take from the back (high 32 bits).
	claims   atomic.Uint64
	refs     atomic.Int32
	finished atomic.Int32
	slots    [poolMaxChunks]slot
	helper   []helper
}

// slot locates a chunk in a helper's buffer.
type slot struct{ helper, start, end int }

// helper is a worker's part in a split.
type helper struct {
	split *split
	index int
	buf   []byte
}

var splits = sync.Pool{New: func() any {
	s := &split{helper: make([]helper, len(chunkWorkers.all))}
	for i := range s.helper {
		s.helper[i] = helper{split: s, index: i}
	}
	return s
}}

// appendUsersPool appends the JSON array of users to dst, the same
// bytes as appendUsers, with the help of the workers that are idle.
func appendUsersPool(dst []byte, users []*user.User) []byte {
	chunkWorkers.start.Do(startChunkWorkers)
	if len(users) < 2*poolChunkUsers || len(chunkWorkers.all) == 0 {
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
	s.chunks = min(poolMaxChunks, (len(users)+poolChunkUsers-1)/poolChunkUsers)
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
			h.buf = getBuffer(encodedSize(s.users) / 2)
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

// A worker that finished a task polls for the next one for spinWindow
// before it blocks: waking a blocked worker's thread takes a system call and
// the kernel's time to run it again, about as long as a chunk takes to
// encode, so requests that come one after another should find it awake.

// spinWindow is how long a worker polls for a task before it blocks.
const spinWindow = 100 * time.Microsecond

// States of a chunkWorker.
const (
	parked   int32 = iota // blocked on wake: a request hands it a task there
	spinning              // polling next: a request hands it a task there
	claimed               // taken by a request, or running a task
)

// chunkWorker is one worker. A request that changes the state from parked
// or spinning to claimed owns the worker and hands it exactly one task.
type chunkWorker struct {
	state   atomic.Int32
	next    atomic.Pointer[helper]
	wake    chan *helper // capacity 1: the one send never blocks
	scratch []byte       // where the worker encodes a chunk (see helper.help)
}

// maxScratch bounds the scratch buffer that a worker keeps between tasks.
const maxScratch = 1 << 20

var chunkWorkers struct {
	start sync.Once
	all   []chunkWorker
}

func startChunkWorkers() {
	// GOMAXPROCS is read once: the workers live as long as the process.
	chunkWorkers.all = make([]chunkWorker, runtime.GOMAXPROCS(0)-1)
	for i := range chunkWorkers.all {
		w := &chunkWorkers.all[i]
		w.state.Store(claimed) // until it runs
		w.wake = make(chan *helper, 1)
		go w.run()
	}
}

// offer hands h to a worker that is idle at this moment, if there is one.
// It never waits.
func offer(h *helper) bool {
	for i := range chunkWorkers.all {
		w := &chunkWorkers.all[i]
		if w.state.CompareAndSwap(spinning, claimed) {
			w.next.Store(h)
			return true
		}
		if w.state.CompareAndSwap(parked, claimed) {
			w.wake <- h
			return true
		}
	}
	return false
}

func (w *chunkWorker) run() {
	for {
		h := w.poll()
		if h == nil {
			h = <-w.wake
		}
		h.help(&w.scratch)
		if cap(w.scratch) > maxScratch {
			w.scratch = nil // one huge result must not pin its memory
		}
	}
}

// poll waits for a task for spinWindow. It returns nil if none came and the
// worker is now parked.
func (w *chunkWorker) poll() *helper {
	w.state.Store(spinning)
	deadline := time.Now().Add(spinWindow)
	for {
		if h := w.next.Swap(nil); h != nil {
			return h
		}
		if w.state.Load() == claimed {
			continue // a request took this worker: its task is on the way
		}
		if time.Now().After(deadline) && w.state.CompareAndSwap(spinning, parked) {
			return nil
		}
		runtime.Gosched()
	}
}
