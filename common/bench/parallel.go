package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"example.com/userperf/common/apitest"
	"example.com/userperf/common/user"
)

// Parallel measures parallel chunks (encodeOn: parallel=on) against the
// request's own goroutine (encodeOff: parallel=off), each giving its body
// back with recycle, with one request at a time (clients=1) and with 16 at
// once (clients=16: goroutines sharing the cores, as a busy server's
// requests do). go run ./scripts/serialize runs it on an idle machine and
// again while another process keeps every core busy: the three conditions
// of the chapter's table. The metric "cores" says how many cores were busy
// meanwhile: whether the chunks found an idle core to run on.
func Parallel(b *testing.B, encodeOff, encodeOn func([]*user.User) []byte, recycle func([]byte)) {
	modes := []struct {
		name   string
		encode func([]*user.User) []byte
	}{{"off", encodeOff}, {"on", encodeOn}}
	for _, n := range []int{100, 300, 1000, user.DefaultCount} {
		users := apitest.UserPointers(n)
		want, _ := json.Marshal(users)
		for _, clients := range []int{1, 16} {
			for _, mode := range modes {
				b.Run(fmt.Sprintf("matches=%d/clients=%d/parallel=%s", n, clients, mode.name), func(b *testing.B) {
					if got := mode.encode(users); !bytes.Equal(got, want) {
						b.Fatalf("parallel=%s: %d users encode to other bytes than json.Marshal", mode.name, n)
					}
					b.ReportAllocs()
					stop := CPUTime(b)
					if clients == 1 {
						for b.Loop() {
							recycle(mode.encode(users))
						}
					} else {
						b.SetParallelism(max(1, clients/runtime.GOMAXPROCS(0)))
						b.RunParallel(func(pb *testing.PB) {
							for pb.Next() {
								recycle(mode.encode(users))
							}
						})
					}
					stop()
				})
			}
		}
	}
}
