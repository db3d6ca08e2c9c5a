package bench

import (
	"runtime/metrics"
	"testing"
)

// GCCycles reports the garbage collections per op of a benchmark's loop,
// set-up left out, as gc-cycles/op: call it just before the loop, and what
// it returns just after.
func GCCycles(b *testing.B) (stop func()) {
	before := gcCycles()
	return func() {
		b.ReportMetric(float64(gcCycles()-before)/float64(b.N), "gc-cycles/op")
	}
}

func gcCycles() uint64 {
	sample := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}
