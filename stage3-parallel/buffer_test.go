package main

import "testing"

// TestBufferClasses checks the pool's invariant: getBuffer(size) never
// returns a buffer with less capacity than size, whatever was put back,
// nor one that is not empty.
func TestBufferClasses(t *testing.T) {
	sizes := []int{0, 1, 1000, 1023, 1024, 1025, 1500, 2047, 2048, 2049, 100_000, 1 << 20, 1<<20 + 1, 3 << 20}
	for range 20 {
		for _, c := range sizes {
			putBuffer(make([]byte, c/2, c)) // not empty: putBuffer must empty it
		}
		for _, size := range sizes {
			buf := getBuffer(size)
			if cap(buf) < size || len(buf) != 0 {
				t.Fatalf("getBuffer(%d) gave len %d, cap %d", size, len(buf), cap(buf))
			}
			putBuffer(buf)
		}
	}
}

// TestSizeEstimate checks that the running average follows the measured
// size of a user and keeps its margin above it.
func TestSizeEstimate(t *testing.T) {
	e := newSizeEstimate(128)
	for _, perUser := range []int{150, 400, 90} {
		for range 20 {
			e.observe(100, 100*perUser+len("[]"))
		}
		got, body := e.estimate(1000), 1000*perUser+len("[]")
		if got < body || got > body+body/4 {
			t.Errorf("after responses of %d bytes per user: estimate(1000) = %d, want %d plus at most a quarter", perUser, got, body)
		}
	}
	e.observe(0, 2) // an empty result says nothing about the size of a user
	if got := e.estimate(0); got != len("[]") {
		t.Errorf("estimate(0) = %d, want %d", got, len("[]"))
	}
}
