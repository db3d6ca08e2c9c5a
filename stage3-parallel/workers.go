package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The chunk workers: GOMAXPROCS-1 goroutines shared by the whole process,
// started on first use, that encode chunks for requests (parallel.go).
//
// A worker that has nothing to do blocks, and its thread goes to sleep.
// Waking it takes a system call and the kernel's time to schedule the
// thread again: tens of microseconds on the VM of README.md's measurements,
// about as long as a 1,000-user response takes to encode. Besides, the Go
// scheduler puts a goroutine woken by a channel send in the waker's own
// "run next" slot, and an idle core takes it from there only after a
// deliberate pause (usleep(3) in the runtime's runqgrab, which Linux's
// default timer slack of 50 µs stretches). So a worker that finished a task
// keeps polling for the next one for spinWindow before it blocks: requests
// that come one after the other find it awake, as the Go runtime's own idle
// threads spin a little before they sleep. It calls runtime.Gosched while
// it polls, so that a goroutine waiting for its core runs first.

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
