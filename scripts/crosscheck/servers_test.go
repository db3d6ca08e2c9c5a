// Package crosscheck holds one test, TestStageServersAgree: it builds every
// stage's server, starts them all on loopback, sends each the same random
// sequences of requests over real HTTP, and requires the same status,
// headers and bytes from all of them. The in-process differential tests
// compare each stage with a reference; this checks the real binaries
// against each other, socket and all.
//
//	go test -v ./scripts/crosscheck
package crosscheck

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"example.com/userperf/common/apitest"
	"example.com/userperf/common/user"
	"example.com/userperf/scripts/internal/stages"
	"example.com/userperf/scripts/internal/stageserver"
)

// The sequences sent: the same generator as the in-process differential
// test, with other seeds, so that the two tests cover different requests.
const (
	firstSeed, sequences = 100, 4
	requestsPerSequence  = 60
)

// The headers that must agree; Date and the like differ by nature.
var comparedHeaders = []string{"Content-Type", "Content-Length", "Location"}

func TestStageServersAgree(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	list := stageFolders(t, root)
	if len(list) < 2 {
		t.Fatalf("found %d stages in %s; need two to compare", len(list), root)
	}
	binaries := buildAll(t, root, list)
	users := user.MustGenerate(user.DefaultCount, user.DefaultSeed)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	client := &http.Client{Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()

	for seed := uint64(firstSeed); seed < firstSeed+sequences; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			// Fresh servers for every sequence: each starts from the
			// generated users, as the sequence assumes.
			servers := startAll(t, binaries)
			for i, r := range apitest.RandomRequests(seed, requestsPerSequence, users) {
				want, err := send(ctx, client, servers[0].URL, r)
				if err != nil {
					t.Fatalf("request %d, %s %.100s, to %s: %v", i+1, r.Method, r.Target, servers[0].Name, err)
				}
				for _, s := range servers[1:] {
					got, err := send(ctx, client, s.URL, r)
					if err != nil {
						t.Fatalf("request %d, %s %.100s, to %s: %v", i+1, r.Method, r.Target, s.Name, err)
					}
					if diff := got.diff(want); diff != "" {
						t.Fatalf("request %d, %s %.100s: %s and %s differ: %s",
							i+1, r.Method, r.Target, s.Name, servers[0].Name, diff)
					}
				}
			}
		})
	}
}

// stageFolders lists the stages of the workspace, without the floor,
// which serves bytes made in advance and takes no writes.
func stageFolders(t *testing.T, root string) []stages.Folder {
	list, err := stages.List(root)
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(list, func(s stages.Folder) bool { return s.Name == stages.Floor })
}

// buildAll builds every stage's server into a temporary folder and returns
// the binaries' paths by stage name.
func buildAll(t *testing.T, root string, list []stages.Folder) map[string]string {
	bin := t.TempDir()
	binaries := map[string]string{}
	for _, s := range list {
		binaries[s.Name] = filepath.Join(bin, s.Name)
		build := exec.Command("go", "build", "-o", binaries[s.Name], "./"+s.Dir)
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build ./%s: %v\n%s", s.Dir, err, out)
		}
	}
	return binaries
}

// startAll starts every stage in stage order, and stops them when t ends.
func startAll(t *testing.T, binaries map[string]string) []*stageserver.Server {
	logs := t.TempDir()
	var servers []*stageserver.Server
	for _, stage := range slices.SortedFunc(maps.Keys(binaries), stages.Compare) {
		s, err := stageserver.Start(stage, binaries[stage], filepath.Join(logs, stage+".log"), "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Stop() })
		if _, err := s.WaitReady(context.Background(), "/users?role=admin"); err != nil {
			t.Fatal(err)
		}
		servers = append(servers, s)
	}
	return servers
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func send(ctx context.Context, client *http.Client, base string, r apitest.Request) (response, error) {
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, base+r.Target, body)
	if err != nil {
		return response{}, err
	}
	if r.Body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, b}, err
}

// diff describes how r differs from want, or is empty.
func (r response) diff(want response) string {
	if r.status != want.status {
		return fmt.Sprintf("status %d, want %d", r.status, want.status)
	}
	for _, h := range comparedHeaders {
		if got, w := r.header.Get(h), want.header.Get(h); got != w {
			return fmt.Sprintf("%s %q, want %q", h, got, w)
		}
	}
	if !bytes.Equal(r.body, want.body) {
		return fmt.Sprintf("bodies of %d and %d bytes differ", len(r.body), len(want.body))
	}
	return ""
}
