package api

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// wantJSONError fails t unless resp has status and a {"error": "..."} body.
func wantJSONError(t *testing.T, what string, status int, gotStatus int, contentType string, body []byte) {
	t.Helper()
	var answer map[string]string
	if gotStatus != status || contentType != "application/json" || json.Unmarshal(body, &answer) != nil || answer["error"] == "" {
		t.Errorf("%s: %d %s %.200q; want %d and a JSON error", what, gotStatus, contentType, body, status)
	}
}

func TestProfileSecondsAreBounded(t *testing.T) {
	h := NewProfilingHandler()
	for _, target := range []string{
		"/debug/pprof/profile?seconds=31",
		"/debug/pprof/profile?seconds=0",
		"/debug/pprof/profile?seconds=-1",
		"/debug/pprof/profile?seconds=1.5",
		"/debug/pprof/profile?seconds=abc",
		"/debug/pprof/profile?seconds=",
		"/debug/pprof/profile?seconds=1&seconds=2",
		"/debug/pprof/trace?seconds=3600",
		"/debug/pprof/heap?seconds=1000000",
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
		wantJSONError(t, "GET "+target, http.StatusBadRequest, w.Code, w.Header().Get("Content-Type"), w.Body.Bytes())
		if pprofPages["profile"].running.Load() || pprofPages["trace"].running.Load() {
			t.Fatalf("GET %s: a refused request started a profile", target)
		}
	}
}

// waitFor polls cond until it holds.
func waitFor(cond func() bool) {
	for !cond() {
		time.Sleep(time.Millisecond)
	}
}

func TestSecondConcurrentProfileIsAConflict(t *testing.T) {
	srv := httptest.NewServer(NewProfilingHandler())
	defer srv.Close()
	for _, tc := range []struct {
		path    string
		running *atomic.Bool
		second  string // the query of the second request, or "": seconds=1
	}{
		{"/debug/pprof/profile", &pprofPages["profile"].running, ""},
		{"/debug/pprof/trace", &pprofPages["trace"].running, ""},
		{"/debug/pprof/heap", &pprofPages["heap"].running, "gc=1"},
		{"/debug/pprof/goroutine", &pprofPages["goroutine"].running, "debug=2"},
	} {
		second := tc.path + "?" + cmp.Or(tc.second, "seconds=1")
		ctx, cancel := context.WithCancel(context.Background())
		first := make(chan error, 1)
		go func() {
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+tc.path+"?seconds=30", nil)
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			first <- err
		}()
		waitFor(tc.running.Load)

		resp, err := http.Get(srv.URL + second)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		wantJSONError(t, second+" while "+tc.path+" runs", http.StatusConflict, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		if tc.running != &pprofPages["profile"].running { // another kind is not held up
			other, err := http.Get(srv.URL + "/debug/pprof/allocs")
			if err != nil {
				t.Fatal(err)
			}
			other.Body.Close()
			if other.StatusCode != http.StatusOK {
				t.Errorf("/debug/pprof/allocs while %s runs: status %d, want 200", tc.path, other.StatusCode)
			}
		}

		cancel() // the first one ends early when its client goes away
		<-first
		waitFor(func() bool { return !tc.running.Load() })
		resp, err = http.Get(srv.URL + second)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s once the first one ended: status %d, want 200", second, resp.StatusCode)
		}
	}
}

func TestShutdownCutsARunningProfile(t *testing.T) {
	l := listenLoopback(t)
	s, logs := newTestServer(t, l, nil)
	s.drain = 100 * time.Millisecond
	r := startServer(t, s)
	profile := make(chan error, 1)
	go func() {
		resp, err := http.Get("http://" + l.Addr().String() + "/debug/pprof/profile?seconds=20")
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		profile <- err
	}()
	waitFor(pprofPages["profile"].running.Load)

	r.signals <- syscall.SIGTERM
	if err := r.wait(); err != nil {
		t.Errorf("serve: %v, want nil", err)
	}
	if out := logs.String(); !strings.Contains(out, "cut 1 connection(s)") {
		t.Errorf("the log does not count the profile's connection:\n%s", out)
	}
	<-profile // the client sees the connection end
	waitFor(func() bool { return !pprofPages["profile"].running.Load() })
}
