package harness

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// busyCores is how many cores the machine kept busy over the last second,
// from /proc/stat (all but idle and iowait; steal too, the time the
// hypervisor gave to others). Not the load average: that remembers the
// last minute, and so a check's own tests.
func busyCores() (float64, bool) {
	before, ok := cpuTimes()
	time.Sleep(time.Second)
	after, ok2 := cpuTimes()
	if !ok || !ok2 {
		return 0, false
	}
	var total, idle float64
	for i := range after {
		total += after[i] - before[i]
	}
	idle = after[3] - before[3] + after[4] - before[4]
	if total <= 0 {
		return 0, true
	}
	return (total - idle) / total * float64(runtime.NumCPU()), true
}

// cpuTimes are the first eight counters of /proc/stat's "cpu" line.
func cpuTimes() ([]float64, bool) {
	data, err := os.ReadFile("/proc/stat")
	first, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(first)
	if err != nil || len(fields) < 9 || fields[0] != "cpu" {
		return nil, false
	}
	times := make([]float64, 8)
	for i := range times {
		times[i], _ = strconv.ParseFloat(fields[i+1], 64)
	}
	return times, true
}
