package apitest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// APILayer checks what the API layer does alone, before any stage sees a
// request: every bad request and body that needs no stage to refuse is
// refused with its status, in words that say what was wrong, with nothing
// of the server in them. No stage can change any of it, so common/api's
// tests run it once, over newStage wrapped so that a request reaching the
// stage fails the test; Run, which every stage calls, keeps the checks
// whose outcome depends on the stage.
func APILayer(t *testing.T, newStage api.NewStage) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	guard := &unreachable{Stage: newStage(users), t: t}
	h := api.NewHandler(guard, users)

	for _, bad := range BadRequests() {
		guard.request = bad.Name
		w := Do(h, bad.Method, bad.Target, bad.Body)
		wantError(t, bad.Name, w, bad.Status)
		wantNoLeak(t, bad.Name, w.Body.String())
	}
	guard.request = "a bad body"
	testBadBodies(t, h)

	// Over a real connection, an oversized body is refused with 413 before
	// it is read to the end.
	guard.request = "a 10 MiB POST over TCP"
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/users", "application/json", bytes.NewReader(bytes.Repeat([]byte(" "), 10<<20)))
	if err != nil {
		t.Fatalf("10 MiB POST over TCP: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("10 MiB POST over TCP: status %d, want 413", resp.StatusCode)
	}
}

// unreachable is a stage that fails the test when it is called: the API
// layer must refuse the request named by request without asking it.
type unreachable struct {
	api.Stage
	t       *testing.T
	request string
}

func (s *unreachable) reached(method string) {
	s.t.Helper()
	s.t.Errorf("%s reached the stage's %s: the API layer must refuse it alone", s.request, method)
}

func (s *unreachable) ListByRole(role string) []byte {
	s.reached("ListByRole(" + clip(role, 40) + ")")
	return s.Stage.ListByRole(role)
}

func (s *unreachable) Get(id string) (user.User, bool) {
	s.reached("Get(" + clip(id, 40) + ")")
	return s.Stage.Get(id)
}

func (s *unreachable) Add(u user.User) bool {
	s.reached("Add(" + clip(u.ID, 40) + ")")
	return s.Stage.Add(u)
}

func (s *unreachable) Delete(id string) bool {
	s.reached("Delete(" + clip(id, 40) + ")")
	return s.Stage.Delete(id)
}

// Recycle passes the bodies back to a stage that reuses them.
func (s *unreachable) Recycle(body []byte) { api.Recycle(s.Stage, body) }
