package apitest

import (
	"net/http"
	"slices"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// rolesTouched returns the roles whose lists a write of u can change, each
// once, so that a wrong list is reported once.
func rolesTouched(u user.User) []string {
	roles := append([]string{user.RoleAdmin, user.RoleEditor}, u.Roles...)
	slices.Sort(roles)
	return slices.Compact(roles)
}

func testWrites(t *testing.T, newStage api.NewStage) {
	s := newServer(t, newStage)

	// A new admin appears in role=admin at its place in id order (u0000050x
	// sorts among the generated ids), and so does a role nobody had.
	added := user.User{ID: "u0000050x", Name: `New "Admin" <&> 관리자`, Email: "new.admin@example.com",
		Roles: []string{"brand-new", user.RoleAdmin, "viewer"}}
	w := s.do("POST", "/users", string(mustMarshal(added)))
	wantJSON(t, "POST of a new admin", w, http.StatusCreated, mustMarshal(added))
	if loc := w.Header().Get("Location"); loc != "/users/"+added.ID {
		t.Errorf("POST: Location %q, want /users/%s", loc, added.ID)
	}
	s.store.Add(added)
	s.checkLists("after POST", rolesTouched(added)...)
	wantJSON(t, "GET of the new user", s.do("GET", "/users/"+added.ID, ""), http.StatusOK, mustMarshal(added))

	s.delete(added.ID)
	s.checkLists("after DELETE", rolesTouched(added)...)
	wantError(t, "second DELETE", s.do("DELETE", "/users/"+added.ID, ""), http.StatusNotFound)
	wantError(t, "GET after DELETE", s.do("GET", "/users/"+added.ID, ""), http.StatusNotFound)

	// Deleting generated users from the middle, the front and the end keeps
	// every list right (an index of positions would break here).
	for _, i := range []int{5000, 0, user.DefaultCount - 1, 5001, 4999} {
		gone, _ := s.store.Get(user.FormatID(i))
		s.delete(gone.ID)
		s.checkLists("after DELETE "+gone.ID, rolesTouched(gone)...)

		// Put back under the same id with other roles, it lists by those.
		back := gone
		back.Roles = []string{user.RoleEditor, "returned"}
		s.post("POST of "+back.ID+" again", back)
		s.checkLists("after re-adding "+back.ID, append(rolesTouched(gone), "returned")...)
	}
}
