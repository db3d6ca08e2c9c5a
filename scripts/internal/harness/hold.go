package harness

import (
	"runtime"
	"sync"
	"time"
)

// HoldCores keeps every core busy from this process, as another program
// would on a busy laptop, until stop is called or limit has passed: the
// benchmarks, which run in processes of their own, must wait for a core.
func HoldCores(limit time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	deadline := time.Now().Add(limit)
	for range runtime.NumCPU() {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-done:
					return
				default:
				}
				if n%(1<<20) == 0 && time.Now().After(deadline) {
					return
				}
			}
		})
	}
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}
