package bench

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used so far, user and kernel.
// Windows counts it in clock ticks of about 15.6 ms, so a benchmark needs a
// -benchtime of a second or more for it to mean much.
func cpuTime() time.Duration {
	var creation, exit, kernel, user syscall.Filetime
	process, err := syscall.GetCurrentProcess()
	if err != nil || syscall.GetProcessTimes(process, &creation, &exit, &kernel, &user) != nil {
		return 0
	}
	// A Filetime counts 100 ns intervals; Nanoseconds reads it as a date, so
	// the two halves are joined here.
	ticks := func(t syscall.Filetime) int64 { return int64(t.HighDateTime)<<32 | int64(t.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
