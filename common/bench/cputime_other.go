//go:build !unix

package bench

import "time"

// cpuTime is 0 where getrusage does not exist: Cores reports nothing.
func cpuTime() time.Duration { return 0 }
