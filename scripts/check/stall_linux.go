package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

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

// dump has a Go program print every goroutine's stack and exit.
func dump(p *os.Process) error { return p.Signal(syscall.SIGQUIT) }
