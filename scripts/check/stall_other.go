//go:build !linux

package main

import (
	"errors"
	"os"
	"time"
)

// cpuTime is not known here: only the wall-time limit stops a run of tests.
func cpuTime(int) (time.Duration, bool) { return 0, false }

func dump(*os.Process) error { return errors.New("no goroutine dump on this system") }
