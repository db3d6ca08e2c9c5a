package bench

import (
	"runtime/metrics"
	"testing"
)

// GCCycles counts the garbage collections while a benchmark's loop runs:
// call it just before the loop, and the function it returns just after. It
// reports them per operation as the metric "gc-cycles/op", so that benchstat
// compares how often each stage makes the collector run like any other
// unit. The set-up before the loop (generating users, building the stage)
// collects too, and is left out.
func GCCycles(b *testing.B) (stop func()) {
	before := gcCycles()
	return func() {
		b.ReportMetric(float64(gcCycles()-before)/float64(b.N), "gc-cycles/op")
	}
}

// gcCycles is the number of garbage collections the process has completed.
func gcCycles() uint64 {
	sample := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}
