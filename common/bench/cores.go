package bench

import (
	"testing"
	"time"
)

// Cores measures how many cores the whole process keeps busy while a
// benchmark's loop runs: call it just before the loop, and the function it
// returns just after. That reports the CPU time the process used (user and
// system, the garbage collector's included) over the wall time, as the
// metric "cores". A design that splits a request's work across cores shows
// here whether the other cores took it: near 1 they did not, near
// GOMAXPROCS they did. Where the operating system gives no CPU time, the
// metric is left out.
func Cores(b *testing.B) (stop func()) {
	cpu0, wall0 := cpuTime(), time.Now()
	return func() {
		cpu, wall := cpuTime()-cpu0, time.Since(wall0)
		if cpu > 0 && wall > 0 {
			b.ReportMetric(float64(cpu)/float64(wall), "cores")
		}
	}
}
