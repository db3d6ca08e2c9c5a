package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"example.com/userperf/common/api/guard"
	"example.com/userperf/common/user"
)

// fromAddr returns a GET of target sent from the remote address addr.
func fromAddr(target, addr string) *http.Request {
	req := httptest.NewRequest("GET", target, nil)
	req.RemoteAddr = addr
	return req
}

func TestOneClientHoldsAtMostMaxClientBytes(t *testing.T) {
	editorSize := len(newMapStage(user.MustGenerate(user.MinCount, user.DefaultSeed)).ListByRole(user.RoleEditor))
	if editorSize <= 64<<10 { // the small reservation that the guard lets past MaxClientBytes
		t.Fatalf("the editor list is %d bytes, no more than a small reservation: it cannot fill MaxClientBytes", editorSize)
	}
	limits := DefaultLimits
	limits.MaxClientBytes = int64(editorSize + editorSize/2) // room for one editor list per client, not two
	h, stage := newGated(user.RoleEditor, limits)

	first := make(chan *httptest.ResponseRecorder)
	go func() { first <- serve(h, fromAddr("/users?role=editor", "192.0.2.1:1000")) }()
	<-stage.entered // the first list holds its client's MaxClientBytes until released

	second := fromAddr("/users?role=editor", "192.0.2.1:1001") // the same client on another connection
	second.Header.Set("X-Forwarded-For", "198.51.100.7")
	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- serve(h, second) }()
	var w *httptest.ResponseRecorder
	select {
	case w = <-done:
	case <-stage.entered:
		close(stage.release)
		<-first
		t.Fatalf("a second editor list from the same client was built: status %d", (<-done).Code)
	}
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" || !strings.Contains(errorText(t, w), "you already hold") {
		t.Errorf("a second editor list from the same client: %d, Retry-After %q, body %s; want 503, a second and a JSON error about what it holds",
			w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	wantNoAddress(t, w.Body.String())
	if w := serve(h, fromAddr("/users?role=admin", "192.0.2.1:1002")); w.Code != http.StatusOK {
		t.Errorf("a small list from the client holding MaxClientBytes: status %d, want 200", w.Code)
	}
	if w := serve(h, fromAddr("/users/"+user.FormatID(1), "192.0.2.1:1003")); w.Code != http.StatusOK {
		t.Errorf("a user from the client holding MaxClientBytes: status %d, want 200", w.Code)
	}

	other := make(chan *httptest.ResponseRecorder)
	go func() { other <- serve(h, fromAddr("/users?role=editor", "192.0.2.2:1000")) }()
	<-stage.entered // another client's editor list is built: it holds its own
	close(stage.release)
	for _, w := range []*httptest.ResponseRecorder{<-first, <-other} {
		if w.Code != http.StatusOK || w.Body.Len() != editorSize {
			t.Errorf("an editor list within its client's MaxClientBytes: %d with %d bytes, want 200 with %d", w.Code, w.Body.Len(), editorSize)
		}
	}
	if w := serve(h, fromAddr("/users?role=editor", "192.0.2.1:1004")); w.Code != http.StatusOK {
		t.Errorf("an editor list once the client's first was sent: status %d, want 200", w.Code)
	}
}

// panicky is a stage whose lists of admin panic.
type panicky struct{ Stage }

func (s panicky) ListByRole(role string) []byte {
	if role == user.RoleAdmin {
		panic("a bug in the stage")
	}
	return s.Stage.ListByRole(role)
}

// newTestHandlers returns the API over stage, holding the smallest data
// set, and its handlers, whose reservations a test can look at.
func newTestHandlers(t *testing.T, stage func([]user.User) Stage) (http.Handler, *handlers) {
	t.Helper()
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	logger, _ := newTestLogger()
	h := newHandlers(stage(users), users, DefaultLimits, logger)
	e := newEcho()
	e.Logger.SetOutput(logger.Writer()) // the panic's log, which would clutter the test's output
	addAPIRoutes(e, h)
	return e, h
}

// wantNothingReserved fails t unless every in-flight byte is free and no
// client holds any.
func wantNothingReserved(t *testing.T, h *handlers, after string) {
	t.Helper()
	if bytes, clients := h.guard.Held(); bytes != 0 || clients != 0 {
		t.Errorf("after %s: %d in-flight bytes are still reserved, and %d client(s) hold some", after, bytes, clients)
	}
}

func TestReservationIsGivenBackOnEveryPath(t *testing.T) {
	e, h := newTestHandlers(t, func(users []user.User) Stage { return panicky{newMapStage(users)} })
	post := func(body string) *http.Request {
		return httptest.NewRequest("POST", "/users", strings.NewReader(body))
	}
	for _, tc := range []struct {
		what   string
		req    *http.Request
		status int
	}{
		{"a list sent", httptest.NewRequest("GET", "/users?role=editor", nil), http.StatusOK},
		{"a list whose stage panicked", httptest.NewRequest("GET", "/users?role=admin", nil), http.StatusInternalServerError},
		{"a user stored", post(validUser), http.StatusCreated},
		{"a body refused", post(`{"id":`), http.StatusBadRequest},
		{"a user refused", post(validUser), http.StatusConflict},
	} {
		if w := serve(e, tc.req); w.Code != tc.status {
			t.Errorf("%s: status %d, want %d", tc.what, w.Code, tc.status)
		}
		wantNothingReserved(t, h, tc.what)
	}
}

// counting is a stage that counts the calls it gets.
type counting struct {
	Stage
	calls *atomic.Int64
}

func (s counting) ListByRole(role string) []byte {
	s.calls.Add(1)
	return s.Stage.ListByRole(role)
}

func (s counting) Get(id string) (user.User, bool) {
	s.calls.Add(1)
	return s.Stage.Get(id)
}

func (s counting) Add(u user.User) bool {
	s.calls.Add(1)
	return s.Stage.Add(u)
}

func TestGoneClientCostsNothing(t *testing.T) {
	calls := new(atomic.Int64)
	e, h := newTestHandlers(t, func(users []user.User) Stage { return counting{newMapStage(users), calls} })
	ctx, hangUp := context.WithCancel(context.Background())
	hangUp() // as net/http does when the client closes the connection
	for _, req := range []*http.Request{
		httptest.NewRequest("GET", "/users?role=editor", nil),
		httptest.NewRequest("GET", "/users/"+user.FormatID(1), nil),
		httptest.NewRequest("POST", "/users", strings.NewReader(validUser)),
	} {
		w := serve(e, req.WithContext(ctx))
		if w.Code != guard.ErrClientGone.Code {
			t.Errorf("%s %s whose client has gone: status %d, want %d", req.Method, req.URL, w.Code, guard.ErrClientGone.Code)
		}
		wantNothingReserved(t, h, req.Method+" "+req.URL.String()+" whose client has gone")
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("requests whose clients had gone made %d call(s) to the stage, want none", n)
	}
}
