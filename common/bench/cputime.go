package bench

import (
	"testing"
	"time"
)

// CPUTime measures the CPU time the whole process spends while a
// benchmark's loop runs: call it just before the loop, and the function it
// returns just after. It reports two metrics beside the wall time (sec/op):
//
//	cpu-ns/op  the CPU time per operation, user and system, the garbage
//	           collector's included; benchstat shows it as cpu-sec/op
//	cores      the CPU time over the wall time
//
// The wall time is what a client waits, and it grows while another program
// holds a core this one wanted; the CPU time is the work one request costs,
// and it barely moves then. A design that splits a request's work across
// cores shows in cores: near 1 the other cores took none of it, near
// GOMAXPROCS they took their share. Where the operating system gives no CPU
// time, both metrics are left out.
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
