package apitest

import (
	"net/http"
	"strings"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// testPathIDsDecodedOnce checks that an id in the path is percent-decoded
// exactly once, whichever bytes are escaped: %75 is a 'u', so
// /users/%750000001 names the same user as /users/u0000001, and %25 is a
// '%', so /users/%25750000001 names the id "%750000001", which nobody has.
func testPathIDsDecodedOnce(t *testing.T, newStage api.NewStage) {
	h, store := newServer(newStage)
	first, second := user.FormatID(1), user.FormatID(2)
	escaped := func(id string) string { return "%75" + strings.TrimPrefix(id, "u") }

	u, _ := store.Get(first)
	wantJSON(t, "GET /users/"+escaped(first), Do(h, "GET", "/users/"+escaped(first), ""), http.StatusOK, mustMarshal(u))

	twice := Do(h, "GET", "/users/%25"+strings.TrimPrefix(escaped(first), "%"), "")
	wantError(t, "GET of an id escaped twice", twice, http.StatusNotFound)
	if !strings.Contains(twice.Body.String(), `\"`+escaped(first)+`\"`) {
		t.Errorf("GET of an id escaped twice: %s, want it to name the id decoded once, %q", twice.Body, escaped(first))
	}

	if w := Do(h, "DELETE", "/users/"+escaped(second), ""); w.Code != http.StatusNoContent {
		t.Errorf("DELETE /users/%s: status %d, want 204", escaped(second), w.Code)
	}
	if w := Do(h, "GET", "/users/"+second, ""); w.Code != http.StatusNotFound {
		t.Errorf("GET /users/%s after its DELETE by an escaped id: status %d, want 404", second, w.Code)
	}
}
