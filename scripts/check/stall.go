package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"example.com/userperf/scripts/internal/testevents"
)

// stalled watches p until done, and reports whether it stopped p, with a dump of its goroutines,
// for using no CPU for a minute while no test ended. Only Linux has /proc, where the CPU time is
// read: elsewhere only the wall-time limit stops a run of tests.
func stalled(p *os.Process, events *testevents.Run, done <-chan struct{}) bool {
	used, since := time.Duration(0), time.Now()
	for {
		select {
		case <-done:
			return false
		case <-time.After(5 * time.Second):
		}
		cpu, ok := cpuTime(p.Pid)
		if !ok || cpu-used > time.Second || events.Quiet() < time.Minute {
			used, since = cpu, time.Now()
		} else if time.Since(since) > time.Minute {
			return p.Signal(syscall.SIGQUIT) == nil // a Go program prints every goroutine's stack and exits
		}
	}
}

// cpuTime is the CPU time, user and system, that process pid has used so far, from /proc.
func cpuTime(pid int) (time.Duration, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	_, after, found := strings.Cut(string(stat), ") ") // the command's name may hold spaces
	fields := strings.Fields(after)
	if err != nil || !found || len(fields) < 13 {
		return 0, false
	}
	user, err1 := strconv.ParseInt(fields[11], 10, 64)
	system, err2 := strconv.ParseInt(fields[12], 10, 64)
	const tick = 10 * time.Millisecond // /proc counts in USER_HZ, 100 a second on Linux
	return time.Duration(user+system) * tick, err1 == nil && err2 == nil
}
