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
	h, store := newServer(newStage)
	check := func(what string, roles []string) {
		t.Helper()
		for _, role := range roles {
			wantJSON(t, what+": GET "+ListTarget(role), Do(h, "GET", ListTarget(role), ""), http.StatusOK, store.ListBody(role))
		}
	}

	// A new admin appears in role=admin at its place in id order (u0000050x
	// sorts among the generated ids), and so does a role nobody had.
	added := user.User{ID: "u0000050x", Name: `New "Admin" <&> 관리자`, Email: "new.admin@example.com",
		Roles: []string{"brand-new", user.RoleAdmin, "viewer"}}
	w := Do(h, "POST", "/users", string(mustMarshal(added)))
	wantJSON(t, "POST of a new admin", w, http.StatusCreated, mustMarshal(added))
	if loc := w.Header().Get("Location"); loc != "/users/"+added.ID {
		t.Errorf("POST: Location %q, want /users/%s", loc, added.ID)
	}
	store.Add(added)
	check("after POST", rolesTouched(added))
	wantJSON(t, "GET of the new user", Do(h, "GET", "/users/"+added.ID, ""), http.StatusOK, mustMarshal(added))

	// DELETE removes it from every list again.
	if w := Do(h, "DELETE", "/users/"+added.ID, ""); w.Code != http.StatusNoContent || w.Body.Len() != 0 {
		t.Errorf("DELETE of the new user: status %d, body %q; want 204 and no body", w.Code, w.Body)
	}
	store.Delete(added.ID)
	check("after DELETE", rolesTouched(added))
	wantError(t, "second DELETE", Do(h, "DELETE", "/users/"+added.ID, ""), http.StatusNotFound)
	wantError(t, "GET after DELETE", Do(h, "GET", "/users/"+added.ID, ""), http.StatusNotFound)

	// Deleting generated users from the middle, the front and the end keeps
	// every list right (an index of positions would break here).
	for _, i := range []int{5000, 0, user.DefaultCount - 1, 5001, 4999} {
		gone, _ := store.Get(user.FormatID(i))
		if w := Do(h, "DELETE", "/users/"+gone.ID, ""); w.Code != http.StatusNoContent {
			t.Fatalf("DELETE %s: status %d", gone.ID, w.Code)
		}
		store.Delete(gone.ID)
		check("after DELETE "+gone.ID, rolesTouched(gone))

		// Put back under the same id with other roles, it lists by those.
		back := gone
		back.Roles = []string{user.RoleEditor, "returned"}
		wantJSON(t, "POST of "+back.ID+" again", Do(h, "POST", "/users", string(mustMarshal(back))), http.StatusCreated, mustMarshal(back))
		store.Add(back)
		check("after re-adding "+back.ID, append(rolesTouched(gone), "returned"))
	}
}
