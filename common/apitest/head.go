package apitest

import (
	"maps"
	"net/http"
	"slices"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// testHead checks that HEAD on a GET route answers as the GET does, with
// the same status and headers (Content-Length included), and no body.
func testHead(t *testing.T, newStage api.NewStage) {
	h, _ := newServer(newStage)
	for _, target := range []string{
		ListTarget(user.RoleAdmin),
		ListTarget("nobody"),
		"/users?role=",
		"/users/" + user.FormatID(42),
		"/users/nobody",
		"/nowhere",
	} {
		get, head := Do(h, "GET", target, ""), Do(h, "HEAD", target, "")
		if get.Body.Len() == 0 {
			t.Fatalf("GET %s has no body: the comparison would prove nothing", target)
		}
		if head.Code != get.Code {
			t.Errorf("HEAD %s: status %d, GET gives %d", target, head.Code, get.Code)
		}
		if !maps.EqualFunc(head.Header(), get.Header(), slices.Equal) {
			t.Errorf("HEAD %s: headers %v, GET gives %v", target, head.Header(), get.Header())
		}
		if head.Body.Len() != 0 {
			t.Errorf("HEAD %s: a body of %d bytes, want none", target, head.Body.Len())
		}
	}
	// HEAD reads: it is not a way to write.
	if w := Do(h, "HEAD", "/users/"+user.FormatID(42), ""); w.Code != http.StatusOK {
		t.Errorf("HEAD of a user: status %d", w.Code)
	}
	if w := Do(h, "GET", "/users/"+user.FormatID(42), ""); w.Code != http.StatusOK {
		t.Errorf("GET after HEAD of a user: status %d", w.Code)
	}
}
