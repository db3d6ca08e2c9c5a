package apitest

import (
	"maps"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// testHead checks that HEAD on a GET route answers as the GET does, with
// the same status and headers (Content-Length included) and no body, and
// that a HEAD of a list never has the stage build it, before and after
// writes of users with long, escape-heavy JSON change the lists' sizes.
func testHead(t *testing.T, newStage api.NewStage) {
	users := user.MustGenerate(user.DefaultCount, user.DefaultSeed)
	var lists atomic.Int64
	s := &server{t, api.NewHandler(watched{newStage(users), func(call, _ string) {
		if call == "ListByRole" {
			lists.Add(1)
		}
	}}, users), plain.New(users)}
	compare := func(target string) {
		t.Helper()
		get := s.do("GET", target, "")
		before := lists.Load()
		head := s.do("HEAD", target, "")
		if built := lists.Load() - before; built != 0 {
			t.Errorf("HEAD %s had the stage build %d list(s); want none", target, built)
		}
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
	for _, target := range []string{ListTarget(user.RoleAdmin), ListTarget("viewer"), ListTarget("nobody"),
		"/users?role=", "/users/" + user.FormatID(42), "/users/nobody", "/nowhere"} {
		compare(target)
	}

	// A user in a new role and in admin, whose JSON is six times its text,
	// then the removal of generated users down to an empty role.
	heavy := user.User{ID: "u0000050h", Name: "<&>\u2028\"\\" + string(rune(0)), Email: "<heavy>@example.com",
		Roles: []string{"<new>", user.RoleAdmin}}
	s.post("POST of a user", heavy)
	compare(ListTarget("<new>"))
	compare(ListTarget(user.RoleAdmin))
	for _, u := range users {
		if u.HasRole("owner") {
			s.delete(u.ID)
			compare(ListTarget("owner"))
		}
	}
	s.checkLists("once the owners are deleted", "owner")
	s.delete(heavy.ID)
	compare(ListTarget("<new>"))
	compare(ListTarget(user.RoleAdmin))

	// HEAD reads: it is not a way to write.
	wantStatus(t, "HEAD of a user", s.do("HEAD", "/users/"+user.FormatID(42), ""), http.StatusOK)
	wantStatus(t, "GET after HEAD of a user", s.do("GET", "/users/"+user.FormatID(42), ""), http.StatusOK)
}
