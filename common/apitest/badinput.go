package apitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// BadRequest is one malformed request and the status it must get.
type BadRequest struct {
	Name, Method, Target, Body string
	Status                     int
}

// newUserJSON is a valid POST body with one field replaced or removed.
func newUserJSON(id string, edit func(m map[string]any)) string {
	m := map[string]any{"id": id, "name": "Bad Input", "email": "bad.input@example.com", "roles": []string{"admin"}}
	if edit != nil {
		edit(m)
	}
	return string(mustMarshal(m))
}

// BadRequests lists every kind of bad input that the API layer must refuse
// alone, before any stage sees it (APILayer checks that none reaches one).
func BadRequests() []BadRequest {
	tooManyRoles := make([]string, api.MaxRoles+1)
	for i := range tooManyRoles {
		tooManyRoles[i] = fmt.Sprintf("r%d", i)
	}
	return []BadRequest{
		{"missing role", "GET", "/users", "", 400},
		{"role of another name", "GET", "/users?rol=admin", "", 400},
		{"empty role", "GET", "/users?role=", "", 400},
		{"10,000-byte role", "GET", "/users?role=" + strings.Repeat("a", 10_000), "", 400},
		{"role one byte over the limit", "GET", "/users?role=" + strings.Repeat("a", api.MaxRoleBytes+1), "", 400},
		{"role not UTF-8", "GET", "/users?role=%ff", "", 400},
		{"role with a broken character", "GET", "/users?role=ad%c3min", "", 400},
		{"role cut in a character", "GET", "/users?role=%e2%80", "", 400},
		{"role one character over the limit", "GET", "/users?role=" + url.QueryEscape(strings.Repeat("가", api.MaxRoleBytes/len("가")+1)), "", 400},
		{"role with a broken escape", "GET", "/users?role=%zz", "", 400},
		{"repeated role", "GET", "/users?role=admin&role=editor", "", 400},
		{"repeated role, same value", "GET", "/users?role=admin&role=admin", "", 400},
		{"semicolon in the query", "GET", "/users?role=admin;x", "", 400},
		{"10,001 query parameters", "GET", "/users?role=admin" + strings.Repeat("&x", 10_000), "", 400},

		{"malformed JSON", "POST", "/users", `{"id": "bad-1", "name": `, 400},
		{"not an object", "POST", "/users", `["bad-2"]`, 400},
		{"two objects", "POST", "/users", newUserJSON("bad-3", nil) + newUserJSON("bad-3b", nil), 400},
		{"unknown field", "POST", "/users", newUserJSON("bad-4", func(m map[string]any) { m["admin"] = true }), 400},
		{"missing id", "POST", "/users", newUserJSON("", func(m map[string]any) { delete(m, "id") }), 400},
		{"missing name", "POST", "/users", newUserJSON("bad-5", func(m map[string]any) { delete(m, "name") }), 400},
		{"missing email", "POST", "/users", newUserJSON("bad-6", func(m map[string]any) { delete(m, "email") }), 400},
		{"missing roles", "POST", "/users", newUserJSON("bad-7", func(m map[string]any) { delete(m, "roles") }), 400},
		{"null name", "POST", "/users", newUserJSON("bad-8", func(m map[string]any) { m["name"] = nil }), 400},
		{"empty name", "POST", "/users", newUserJSON("bad-9", func(m map[string]any) { m["name"] = "" }), 400},
		{"email without @", "POST", "/users", newUserJSON("bad-10", func(m map[string]any) { m["email"] = "nobody.example.com" }), 400},
		{"id with a space", "POST", "/users", newUserJSON("bad 11", nil), 400},
		{"id with a slash", "POST", "/users", newUserJSON("bad/12", nil), 400},
		{"id too long", "POST", "/users", newUserJSON(strings.Repeat("x", api.MaxIDBytes+1), nil), 400},
		{"no roles", "POST", "/users", newUserJSON("bad-13", func(m map[string]any) { m["roles"] = []string{} }), 400},
		{"too many roles", "POST", "/users", newUserJSON("bad-14", func(m map[string]any) { m["roles"] = tooManyRoles }), 400},
		{"role too long", "POST", "/users", newUserJSON("bad-15", func(m map[string]any) { m["roles"] = []string{strings.Repeat("r", api.MaxRoleBytes+1)} }), 400},
		{"empty role in roles", "POST", "/users", newUserJSON("bad-16", func(m map[string]any) { m["roles"] = []string{"admin", ""} }), 400},
		{"role listed twice", "POST", "/users", newUserJSON("bad-17", func(m map[string]any) { m["roles"] = []string{"admin", "admin"} }), 400},
		{"roles not strings", "POST", "/users", newUserJSON("bad-18", func(m map[string]any) { m["roles"] = []int{1} }), 400},
		{"name not UTF-8", "POST", "/users", rawUser(`"bad-20"`, "\"bad \xff\"", `"bad@example.com"`, `["admin"]`), 400},
		{"name in upper case", "POST", "/users", newUserJSON("bad-21", func(m map[string]any) { m["NAME"] = m["name"]; delete(m, "name") }), 400},
		{"id given twice", "POST", "/users", strings.Replace(newUserJSON("bad-22", nil), `"id":"bad-22"`, `"id":"bad-22","id":"bad-23"`, 1), 400},
		{"name a number", "POST", "/users", newUserJSON("bad-24", func(m map[string]any) { m["name"] = 24 }), 400},
		{"byte order mark", "POST", "/users", "\xef\xbb\xbf" + newUserJSON("bad-25", nil), 400},
		{"backslash before a letter", "POST", "/users", rawUser(`"bad-26"`, `"a\x"`, `"bad@example.com"`, `["admin"]`), 400},
		{"control byte in the id", "POST", "/users", newUserJSON("bad\x00-27", nil), 400},
		{"control byte in a key", "POST", "/users", `{"\u0001":1}`, 400},
		{"control byte in the email", "POST", "/users", newUserJSON("bad-28", func(m map[string]any) { m["email"] = "\x01" }), 400},
		{"role listed twice, with control bytes", "POST", "/users", newUserJSON("bad-29", func(m map[string]any) { m["roles"] = []string{"\x7f", "\x7f"} }), 400},
		{"10 MiB body", "POST", "/users", `{"id": "bad-19", "name": "` + strings.Repeat("n", 10<<20) + `"}`, 413},

		{"unknown path", "GET", "/nowhere", "", 404},
		{"unsupported method", "PUT", "/users", "", 405},
	}
}

// StageBadRequests lists the bad requests that only a stage can refuse, as
// only it knows which ids exist. None of them may change what it holds.
func StageBadRequests() []BadRequest {
	return []BadRequest{
		{"duplicate id", "POST", "/users", newUserJSON(user.FormatID(1), nil), 409},
		{"DELETE of an unknown id", "DELETE", "/users/nobody", "", 404},
		{"GET of an unknown id", "GET", "/users/nobody", "", 404},
		{"GET of an id with a zero byte", "GET", "/users/%00", "", 404},
		{"DELETE of an id with control bytes", "DELETE", "/users/%01%7f%ff", "", 404},
	}
}

// testBadInput sends the bad requests that reach the stage, each followed
// by reads of what it could have changed, so that a stage that stores or
// drops something on a refused request is named with that request.
func testBadInput(t *testing.T, newStage api.NewStage) {
	s := newServer(t, newStage)
	dup, _ := s.store.Get(user.FormatID(1))
	for _, bad := range StageBadRequests() {
		wantError(t, bad.Name, s.do(bad.Method, bad.Target, bad.Body), bad.Status)
		// A POST of dup's id could touch dup's roles; the others are checked
		// on the two fixed roles, which are short to read.
		roles := []string{user.RoleAdmin, user.RoleEditor}
		if bad.Method == "POST" {
			roles = rolesTouched(dup)
		}
		after := fmt.Sprintf("after the refused %s (%s %s)", bad.Name, bad.Method, clip(bad.Target, 80))
		s.checkLists(after, roles...)
		wantJSON(t, after+": GET /users/"+dup.ID, s.do("GET", "/users/"+dup.ID, ""), http.StatusOK, mustMarshal(dup))
		if t.Failed() {
			return // the later requests would repeat what this one found
		}
	}

	t.Run("UnusualBodiesStoredAsSent", func(t *testing.T) { testUnusualBodies(t, newStage) })
	t.Run("MaxUsers", func(t *testing.T) { testMaxUsers(t, newStage) })
	t.Run("MaxStoredBytes", func(t *testing.T) { testStoredBytes(t, newStage) })
	t.Run("PathIDsDecodedOnce", func(t *testing.T) { testPathIDsDecodedOnce(t, newStage) })
}

// testUnusualBodies checks that bodies which only look unusual are stored
// exactly as sent: a surrogate pair is one character, and U+FFFD sent as
// such is what was sent.
func testUnusualBodies(t *testing.T, newStage api.NewStage) {
	s := newServer(t, newStage)
	for _, name := range []string{`"pair \ud83d\ude00"`, `"replacement \ufffd \uFFFD ` + "\uFFFD" + `"`} {
		var want user.User
		body := rawUser(`"strict-ok"`, name, `"ok@example.com"`, `["strict-ok"]`)
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatal(err)
		}
		wantJSON(t, "POST of the name "+name, s.do("POST", "/users", body), http.StatusCreated, mustMarshal(want))
		s.store.Add(want)
		wantJSON(t, "GET of the name "+name, s.do("GET", "/users/strict-ok", ""), http.StatusOK, mustMarshal(want))
		s.checkLists("the role of the name "+name, "strict-ok")
		s.delete("strict-ok")
	}
}

// testPathIDsDecodedOnce checks that an id in the path is percent-decoded
// exactly once: /users/%750000001 names u0000001 (%75 is 'u'), and
// /users/%25750000001 names "%750000001", which nobody has.
func testPathIDsDecodedOnce(t *testing.T, newStage api.NewStage) {
	s := newServer(t, newStage)
	first, second := user.FormatID(1), user.FormatID(2)
	escaped := func(id string) string { return "%75" + strings.TrimPrefix(id, "u") }

	u, _ := s.store.Get(first)
	wantJSON(t, "GET /users/"+escaped(first), s.do("GET", "/users/"+escaped(first), ""), http.StatusOK, mustMarshal(u))
	twice := s.do("GET", "/users/%25"+strings.TrimPrefix(escaped(first), "%"), "")
	wantErrorSaying(t, "GET of an id escaped twice", twice, http.StatusNotFound, `"`+escaped(first)+`"`)

	if w := s.do("DELETE", "/users/"+escaped(second), ""); w.Code != http.StatusNoContent {
		t.Errorf("DELETE /users/%s: status %d, want 204", escaped(second), w.Code)
	}
	wantError(t, "GET /users/"+second+" after its DELETE by an escaped id", s.do("GET", "/users/"+second, ""), http.StatusNotFound)
}
