//go:build unix

package crosscheck

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"example.com/userperf/common/api"
	"example.com/userperf/common/api/guard"
	"example.com/userperf/scripts/internal/stageserver"
)

// peakUsers is how many users of one role TestPeakMemory writes: with
// names of characters that JSON escapes and long emails, about what the
// stored bytes take, and a list of some 100 MiB.
const peakUsers = 90_000

// peakStages are the stages whose resident memory that shape drove
// highest: stage 1 encodes the list with encoding/json, stage 5 joins
// each user's stored JSON, and each allocates the whole list per read.
var peakStages = []string{"stage1-index", "stage5-materialized"}

// TestPeakMemory checks guard.PeakRSS, the bound docs/api.md states, on
// the real servers under the shape that drives them highest: the store
// filled with users of one role, whose list is then read back to back by
// one client and by four at once. The peak is what the kernel counted for
// the process (getrusage's maxrss) once it has exited.
func TestPeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("fills two servers with 90,000 users each")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bound := guard.PeakRSS(api.DefaultLimits)
	for _, stage := range peakStages {
		t.Run(stage, func(t *testing.T) {
			binary := filepath.Join(t.TempDir(), stage)
			build := exec.Command("go", "build", "-o", binary, "./"+stage)
			build.Dir = root
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build ./%s: %v\n%s", stage, err, out)
			}
			srv, err := stageserver.Start(stage, binary, filepath.Join(t.TempDir(), "log"), "")
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Stop()
			if _, err := srv.WaitReady(context.Background(), "/users/u0000001"); err != nil {
				t.Fatal(err)
			}
			fillOneRole(t, srv.URL, "peak")
			readList(t, srv.URL, "peak", 4)
			var clients sync.WaitGroup
			for range 4 {
				clients.Go(func() { readList(t, srv.URL, "peak", 1) })
			}
			clients.Wait()
			peak := maxRSS(srv.Stop())
			t.Logf("%s: peak resident memory %d MiB; bound %d MiB (MemoryLimit %d MiB)", stage, peak>>20, bound>>20,
				guard.MemoryLimit(api.DefaultLimits)>>20)
			if peak > bound {
				t.Errorf("%s: peak resident memory %d MiB, above guard.PeakRSS's %d MiB", stage, peak>>20, bound>>20)
			}
		})
	}
}

// fillOneRole posts peakUsers users holding role alone to the server at
// base, from four clients.
func fillOneRole(t *testing.T, base, role string) {
	name, email := strings.Repeat("<", 150), strings.Repeat("e", 240)+"@example.com"
	var posters sync.WaitGroup
	for c := range 4 {
		posters.Go(func() {
			client := &http.Client{}
			defer client.CloseIdleConnections()
			for n := c; n < peakUsers; n += 4 {
				body := fmt.Sprintf(`{"id":"peak-%06d","name":"%s","email":"%s","roles":[%q]}`, n, name, email, role)
				resp, err := client.Post(base+"/users", "application/json", strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				msg, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					t.Errorf("POST of user %d: %s: %s", n, resp.Status, msg)
					return
				}
			}
		})
	}
	posters.Wait()
}

// readList reads role's list from the server at base times, retrying a
// 503: another client's list holds the bytes in flight.
func readList(t *testing.T, base, role string, times int) {
	client := &http.Client{}
	defer client.CloseIdleConnections()
	for done := 0; done < times; {
		resp, err := client.Get(base + "/users?role=" + role)
		if err != nil {
			t.Error(err)
			return
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusServiceUnavailable:
			time.Sleep(20 * time.Millisecond)
		case resp.StatusCode != http.StatusOK || err != nil:
			t.Errorf("GET of the list: %s, %v", resp.Status, err)
			return
		default:
			done++
		}
	}
}

// maxRSS is the peak resident memory of an exited process in bytes:
// getrusage counts kibibytes on Linux, bytes on macOS.
func maxRSS(state interface{ SysUsage() any }) int64 {
	usage, ok := state.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(usage.Maxrss)
	}
	return int64(usage.Maxrss) << 10
}
