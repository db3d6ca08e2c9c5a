package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"example.com/userperf/common/user"
)

// gatedStage is a stage whose lists of one role wait for the test: each
// such list says it has started on entered and then waits for release.
type gatedStage struct {
	Stage
	role    string
	entered chan struct{}
	release chan struct{}
	lists   *atomic.Int64 // lists started, of any role
}

func (s gatedStage) ListByRole(role string) []byte {
	s.lists.Add(1)
	if role == s.role {
		s.entered <- struct{}{}
		<-s.release
	}
	return s.Stage.ListByRole(role)
}

// newGated returns a handler with limits over a gatedStage for role, over
// the smallest data set.
func newGated(role string, limits Limits) (http.Handler, gatedStage) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	stage := gatedStage{newMapStage(users), role, make(chan struct{}, 4), make(chan struct{}), new(atomic.Int64)}
	return NewHandlerWithLimits(stage, users, limits), stage
}

// serve sends one request to h and returns the response.
func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestListBeyondInFlightBytesIs503(t *testing.T) {
	adminSize := len(newMapStage(user.MustGenerate(user.MinCount, user.DefaultSeed)).ListByRole(user.RoleAdmin))
	limits := DefaultLimits
	limits.MaxInFlightBytes = int64(adminSize + adminSize/2) // room for one admin list, not two
	h, stage := newGated(user.RoleAdmin, limits)

	first := make(chan *httptest.ResponseRecorder)
	go func() { first <- serve(h, httptest.NewRequest("GET", "/users?role=admin", nil)) }()
	<-stage.entered // the first list holds its bytes until released

	second := make(chan *httptest.ResponseRecorder)
	go func() { second <- serve(h, httptest.NewRequest("GET", "/users?role=admin", nil)) }()
	var w *httptest.ResponseRecorder
	select {
	case w = <-second:
	case <-stage.entered:
		close(stage.release)
		<-first
		t.Fatalf("a second list beyond the bytes in flight was built: status %d", (<-second).Code)
	}
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" || !strings.Contains(errorText(t, w), "busy") {
		t.Errorf("a second list beyond the bytes in flight: %d, Retry-After %q, body %s; want 503, a Retry-After and a JSON error",
			w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if w := serve(h, httptest.NewRequest("GET", "/users?role=nobody", nil)); w.Code != http.StatusOK {
		t.Errorf("a list that fits in what is left: status %d, want 200", w.Code)
	}
	if w := serve(h, httptest.NewRequest("HEAD", "/users?role=admin", nil)); w.Code != http.StatusOK {
		t.Errorf("a HEAD, which builds nothing, while the bytes are taken: status %d, want 200", w.Code)
	}

	close(stage.release)
	if w := <-first; w.Code != http.StatusOK || w.Body.Len() != adminSize {
		t.Errorf("the first list: %d with %d bytes, want 200 with %d", w.Code, w.Body.Len(), adminSize)
	}
	if w := serve(h, httptest.NewRequest("GET", "/users?role=admin", nil)); w.Code != http.StatusOK {
		t.Errorf("a list once the first has been sent: status %d, want 200", w.Code)
	}
}

func TestListLargerThanInFlightBytesIsSentAlone(t *testing.T) {
	limits := DefaultLimits
	limits.MaxInFlightBytes = 1
	h, stage := newGated("viewer", limits)
	close(stage.release)
	w := serve(h, httptest.NewRequest("GET", "/users?role=admin", nil))
	if want := stage.Stage.ListByRole(user.RoleAdmin); w.Code != http.StatusOK || w.Body.String() != string(want) {
		t.Errorf("a list larger than the whole limit: status %d with %d bytes, want 200 with %d", w.Code, w.Body.Len(), len(want))
	}
}

func TestGoneClientIsNotListedFor(t *testing.T) {
	h, stage := newGated("", DefaultLimits)
	ctx, hangUp := context.WithCancel(context.Background())
	hangUp() // as net/http does when the client closes the connection
	w := serve(h, httptest.NewRequest("GET", "/users?role=admin", nil).WithContext(ctx))
	if n := stage.lists.Load(); n != 0 || w.Code == http.StatusOK {
		t.Errorf("a GET whose client has gone: status %d after %d list(s) built; want no list built, and no 200", w.Code, n)
	}
}

func TestCutAnswerIsLogged(t *testing.T) {
	l := listenLoopback(t)
	logger, logs := newTestLogger()
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	stage := gatedStage{newMapStage(users), user.RoleAdmin, make(chan struct{}, 1), make(chan struct{}), new(atomic.Int64)}
	s, err := newServer(testConfig(), stage, users, l, nil, logger)
	if err != nil {
		t.Fatal(err)
	}
	s.servers[0].WriteTimeout = 50 * time.Millisecond
	r := startServer(t, s)
	go func() {
		<-stage.entered
		time.Sleep(200 * time.Millisecond) // past the write timeout: the answer cannot go out
		close(stage.release)
	}()
	if resp, err := http.Get("http://" + l.Addr().String() + "/users?role=admin"); err == nil {
		resp.Body.Close()
		t.Errorf("an answer written after the write timeout arrived: status %d", resp.StatusCode)
	}
	r.signals <- syscall.SIGTERM // waits for the handler, so that its log is written
	if err := r.wait(); err != nil {
		t.Fatal(err)
	}
	if out := logs.String(); !strings.Contains(out, "answer cut: GET /users?role=admin: the write timeout passed after") {
		t.Errorf("the cut answer is not logged:\n%s", out)
	}
}

func TestGeneratedUsersBeyondStoredBytesAreRefused(t *testing.T) {
	api := listenLoopback(t)
	logger, logs := newTestLogger()
	cfg := testConfig()
	cfg.limits.MaxStoredBytes = 1 << 20
	users := user.MustGenerate(user.DefaultCount, user.DefaultSeed)
	_, err := newServer(cfg, newMapStage(users), users, api, nil, logger)
	if err == nil || !strings.Contains(err.Error(), "more than -max-stored-mib 1") {
		t.Errorf("%d users with -max-stored-mib 1: error %v, want a refusal", len(users), err)
	}
	if logs.String() != "" {
		t.Errorf("logged before refusing:\n%s", logs)
	}
}

// errorText returns the message of a JSON error answer, failing t if the
// answer is not one.
func errorText(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var body map[string]string
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Header().Get("Content-Type") != "application/json" {
		t.Errorf("answer %d %q is not a JSON error", w.Code, w.Body)
	}
	return body["error"]
}

func TestBodyBeyondInFlightBytesIs503(t *testing.T) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	for _, tc := range []struct {
		room   int64 // in-flight bytes
		status int
	}{
		{int64(len(validUser)), http.StatusServiceUnavailable}, // one byte short of the body's buffer
		{int64(len(validUser)) + 1, http.StatusCreated},
	} {
		limits := DefaultLimits
		limits.MaxInFlightBytes = tc.room
		h := NewHandlerWithLimits(newMapStage(users), users, limits)
		w := serve(h, httptest.NewRequest("POST", "/users", strings.NewReader(validUser)))
		if w.Code != tc.status {
			t.Errorf("a POST of %d bytes with %d in-flight bytes: status %d, want %d", len(validUser), tc.room, w.Code, tc.status)
		}
		if w.Code == http.StatusServiceUnavailable && (errorText(t, w) == "" || w.Header().Get("Retry-After") != "1") {
			t.Errorf("the refused POST: %q, Retry-After %q; want a JSON error and a second", w.Body, w.Header().Get("Retry-After"))
		}
	}
}
