package main

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// Response bodies are reused across requests: Store.Recycle gives a body
// back once the handler has written it, and the next request takes it from
// a pool instead of allocating. The pools are split by capacity, in powers
// of two from 1 KiB to 1 MiB, so that a request for 100 users does not hold
// a buffer grown for 100,000, and a request never gets a buffer too small
// for its estimate. Larger buffers are not pooled: one rare huge response
// must not pin its memory for good. sync.Pool itself drops what stays
// unused for two garbage collections.
const (
	minPooledShift = 10 // 1 KiB: smaller bodies still get a 1 KiB buffer
	maxPooledShift = 20 // 1 MiB: the largest buffer that is pooled
)

// bufferPools[k] holds *[]byte boxes of empty slices whose capacity is at
// least 1<<(minPooledShift+k) and less than twice that.
var bufferPools [maxPooledShift - minPooledShift + 1]sync.Pool

// emptyBoxes holds *[]byte boxes whose slice has been taken out. sync.Pool
// stores an interface, and putting a []byte or a fresh *[]byte in one
// allocates; recycling the boxes as well makes a pooled buffer free.
var emptyBoxes = sync.Pool{New: func() any { return new([]byte) }}

// getBuffer returns an empty slice with a capacity of at least size.
func getBuffer(size int) []byte {
	class := 0
	if size > 1<<minPooledShift {
		class = bits.Len(uint(size-1)) - minPooledShift // round up to a power of two
	}
	if class >= len(bufferPools) {
		return make([]byte, 0, size)
	}
	if box, ok := bufferPools[class].Get().(*[]byte); ok {
		buf := *box
		*box = nil
		emptyBoxes.Put(box)
		return buf
	}
	return make([]byte, 0, 1<<(minPooledShift+class))
}

// putBuffer makes buf's memory available to getBuffer. The caller must not
// use buf afterwards.
func putBuffer(buf []byte) {
	class := bits.Len(uint(cap(buf))) - 1 - minPooledShift // round down
	if class < 0 || class >= len(bufferPools) {
		return
	}
	box := emptyBoxes.Get().(*[]byte)
	*box = buf[:0]
	bufferPools[class].Put(box)
}

// sizeEstimate is a running average of the encoded size of one user,
// measured on the responses themselves, so that a buffer is requested at
// the size the response will have rather than at a guess (the case study
// reserves 100 bytes per user; here the generated users average more).
type sizeEstimate struct {
	perUser atomic.Int64 // bytes per user, in 1/256 of a byte
}

// sizes is the estimate shared by every request of the process.
var sizes = newSizeEstimate(128)

func newSizeEstimate(bytesPerUser int64) *sizeEstimate {
	e := new(sizeEstimate)
	e.perUser.Store(bytesPerUser << 8)
	return e
}

// estimate returns the expected size of n users encoded as an array, plus
// an eighth for users larger than the average.
func (e *sizeEstimate) estimate(n int) int {
	body := n * int(e.perUser.Load()>>8)
	return body + body/8 + len("[]")
}

// observe feeds the size of a response of n users into the average, moving
// it halfway towards the measured size. It writes only when the two differ
// by more than 1/16 (less than the estimate's margin of 1/8): if every
// request wrote the same shared word, the cores would fight over its cache
// line, which costs more than a slightly stale estimate.
func (e *sizeEstimate) observe(n, size int) {
	if n == 0 {
		return
	}
	old := e.perUser.Load()
	diff := int64(size-len("[]"))<<8/int64(n) - old
	if diff > old/16 || -diff > old/16 {
		e.perUser.Store(old + diff/2)
	}
}
