package bench

import (
	"testing"
	"time"
)

// CPUTime measures the process's CPU time while a benchmark's loop runs
// (call it just before the loop, and what it returns just after), and
// reports cpu-ns/op, the work one op costs whoever else holds the cores,
// and cores, the CPU time over the wall time: how far an op's work spread
// across cores. Where the system gives no CPU time, neither is reported.
func CPUTime(b *testing.B) (stop func()) {
	cpu0, wall0 := cpuTime(), time.Now()
	return func() {
		cpu, wall := cpuTime()-cpu0, time.Since(wall0)
		if cpu > 0 && wall > 0 && b.N > 0 {
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(cpu)/float64(wall), "cores")
		}
	}
}
