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

// Parallel measures encoding in parallel chunks (encodeOn: parallel=on)
// against in the request's goroutine (encodeOff: parallel=off), each body
// given back with recycle, with one request at a time and with 16 sharing
// the cores. The metric cores says whether the chunks found idle cores.
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
