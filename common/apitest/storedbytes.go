package apitest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/api/guard"
	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// largestUser is the user whose JSON is the longest the limits allow: 32
// roles of 64 bytes, a 256-byte name and a 254-byte email, all of a
// character that JSON writes in six bytes (\u003c). Its POST body is 2.7 KB
// and its JSON 15.5 KB; n makes the id and the roles distinct, common is
// given as its first role.
func largestUser(n int, common string) user.User {
	const escaped = "<"
	u := user.User{
		ID:    fmt.Sprintf("largest-%0*d", api.MaxIDBytes-len("largest-"), n),
		Name:  strings.Repeat(escaped, api.MaxNameBytes),
		Email: strings.Repeat(escaped, 1) + "@" + strings.Repeat(escaped, api.MaxEmailBytes-2),
		Roles: []string{common},
	}
	for r := 1; r < api.MaxRoles; r++ {
		tag := fmt.Sprintf("-%d-%d", n, r)
		u.Roles = append(u.Roles, strings.Repeat(escaped, api.MaxRoleBytes-len(tag))+tag)
	}
	return u
}

// storedCost is what users count against Limits.MaxStoredBytes: their JSON
// once and once per role, and guard.RoleBytes per role.
func storedCost(users ...user.User) int64 {
	var sum int64
	for _, u := range users {
		sum += int64(len(mustMarshal(u)))*int64(1+len(u.Roles)) + guard.RoleBytes*int64(len(u.Roles))
	}
	return sum
}

// testStoredBytes checks the limit on what the stored users count: a POST
// that would pass it is refused with 409 and a JSON error and changes
// nothing, a DELETE makes room again, and so does a POST that fails.
func testStoredBytes(t *testing.T, newStage api.NewStage) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	store := plain.New(users)
	first, second := largestUser(1, "largest"), largestUser(2, "largest")
	limits := api.DefaultLimits
	limits.MaxStoredBytes = storedCost(users...) + storedCost(first) + storedCost(second) - 1 // room for one of them
	h := api.NewHandlerWithLimits(newStage(users), users, limits)
	check := func(what string) {
		t.Helper()
		for _, role := range []string{"largest", first.Roles[1], second.Roles[1], user.RoleAdmin} {
			wantJSON(t, what+": GET "+ListTarget(role), Do(h, "GET", ListTarget(role), ""), http.StatusOK, store.ListBody(role))
			wantHeadLikeGet(t, what, h, role)
		}
	}

	wantJSON(t, "POST of the largest user", Do(h, "POST", "/users", string(mustMarshal(first))), http.StatusCreated, mustMarshal(first))
	store.Add(first)
	w := Do(h, "POST", "/users", string(mustMarshal(second)))
	wantError(t, "POST beyond the stored bytes", w, http.StatusConflict)
	wantNoLeak(t, "POST beyond the stored bytes", w.Body.String())
	if msg := errorMessage(w); !strings.Contains(msg, "store is full") || !strings.Contains(msg, "bytes") {
		t.Errorf("POST beyond the stored bytes: error %q does not say that the store is full, in bytes", msg)
	}
	wantError(t, "GET of the user refused", Do(h, "GET", "/users/"+second.ID, ""), http.StatusNotFound)
	check("after the refused POST")

	// A small user still fits, and a taken id gives back what it reserved.
	small := user.User{ID: "small-1", Name: "Small", Email: "small@example.com", Roles: []string{"largest"}}
	wantJSON(t, "POST of a small user", Do(h, "POST", "/users", string(mustMarshal(small))), http.StatusCreated, mustMarshal(small))
	store.Add(small)
	for range 3 {
		if w := Do(h, "POST", "/users", string(mustMarshal(small))); w.Code != http.StatusConflict || !strings.Contains(errorMessage(w), "already exists") {
			t.Errorf("POST of a taken id: %d %q, want 409 already exists", w.Code, errorMessage(w))
		}
	}
	if w := Do(h, "DELETE", "/users/"+small.ID, ""); w.Code != http.StatusNoContent {
		t.Fatalf("DELETE %s: status %d", small.ID, w.Code)
	}
	store.Delete(small.ID)

	// The DELETE of the first makes room for the second.
	if w := Do(h, "DELETE", "/users/"+first.ID, ""); w.Code != http.StatusNoContent {
		t.Fatalf("DELETE of the largest user: status %d", w.Code)
	}
	store.Delete(first.ID)
	wantJSON(t, "POST into the room a DELETE made", Do(h, "POST", "/users", string(mustMarshal(second))), http.StatusCreated, mustMarshal(second))
	store.Add(second)
	check("after the DELETE and the POST")
}
