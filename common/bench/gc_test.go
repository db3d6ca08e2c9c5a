package bench

import (
	"runtime"
	"testing"
)

func TestGCCyclesCountsTheLoopOnly(t *testing.T) {
	perOp := func(work func()) float64 {
		return testing.Benchmark(func(b *testing.B) {
			runtime.GC() // set-up that collects, before the count starts
			stop := GCCycles(b)
			for b.Loop() {
				work()
			}
			stop()
		}).Extra["gc-cycles/op"]
	}
	if got := perOp(runtime.GC); got < 1 || got > 2 {
		t.Errorf("one collection per op: gc-cycles/op = %v, want 1 (or a little more)", got)
	}
	if got := perOp(func() {}); got > 0.01 {
		t.Errorf("no allocation: gc-cycles/op = %v, want about 0", got)
	}
}
