package main

// Bodies are reused: Store.Recycle gives one back once it is written, and a
// later request encodes into it. The free list is a buffered channel (the
// "leaky buffer" of Effective Go): taking and giving back never block, a
// buffer that finds the list full is left to the garbage collector, and the
// list holds at most freeBuffers buffers of at most maxReusedBytes each.
const freeBuffers, maxReusedBytes = 16, 1 << 20

var freeList = make(chan []byte, freeBuffers)

// getBuffer returns an empty buffer with room for at least size bytes.
func getBuffer(size int) []byte {
	select {
	case buf := <-freeList:
		if cap(buf) >= size {
			return buf[:0]
		} // else drop it: the list fills with buffers that fit large bodies
	default:
	}
	return make([]byte, 0, size)
}

// putBuffer gives buf back; the caller must not touch it after. A rare huge
// body is not kept, so that it does not pin its memory for good.
func putBuffer(buf []byte) {
	if cap(buf) <= maxReusedBytes {
		select {
		case freeList <- buf:
		default:
		}
	}
}
