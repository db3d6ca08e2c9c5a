package apitest

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"example.com/userperf/common/api"
	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// testMaxUsers checks the limit on the number of users: a POST beyond it
// is refused with a JSON error and changes nothing, a DELETE or a POST
// that Add refused frees the slot again, and concurrent POSTs never take
// more slots than there are.
func testMaxUsers(t *testing.T, newStage api.NewStage) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	store := plain.New(users)
	limits := api.DefaultLimits
	limits.MaxUsers = len(users) + 1
	h := api.NewHandlerWithLimits(slowAdd{newStage(users)}, users, limits)
	newUser := func(id string) user.User {
		return user.User{ID: id, Name: "Capped " + id, Email: id + "@example.com", Roles: []string{"capped", user.RoleAdmin}}
	}
	post := func(u user.User) *http.Response {
		return Do(h, "POST", "/users", string(mustMarshal(u))).Result()
	}
	check := func(what string) {
		t.Helper()
		for _, role := range []string{"capped", user.RoleAdmin} {
			wantJSON(t, what+": GET "+ListTarget(role), Do(h, "GET", ListTarget(role), ""), http.StatusOK, store.ListBody(role))
		}
	}

	first, second := newUser("cap-1"), newUser("cap-2")
	wantJSON(t, "POST into the last slot", Do(h, "POST", "/users", string(mustMarshal(first))), http.StatusCreated, mustMarshal(first))
	store.Add(first)
	w := Do(h, "POST", "/users", string(mustMarshal(second)))
	wantError(t, "POST beyond the limit", w, http.StatusConflict)
	wantNoLeak(t, "POST beyond the limit", w.Body.String())
	wantError(t, "GET of the user refused", Do(h, "GET", "/users/cap-2", ""), http.StatusNotFound)
	check("after the refused POST")

	// A DELETE frees a slot, and a duplicate id that Add refuses gives
	// back the slot it took.
	if w := Do(h, "DELETE", "/users/"+user.FormatID(7), ""); w.Code != http.StatusNoContent {
		t.Fatalf("DELETE: status %d", w.Code)
	}
	store.Delete(user.FormatID(7))
	if r := post(first); r.StatusCode != http.StatusConflict {
		t.Errorf("POST of a taken id: status %d, want 409", r.StatusCode)
	}
	wantJSON(t, "POST into the slot a DELETE freed", Do(h, "POST", "/users", string(mustMarshal(second))), http.StatusCreated, mustMarshal(second))
	store.Add(second)
	check("after the DELETE and the POST")

	// Concurrent POSTs for three free slots: exactly three are stored.
	const writers, perWriter, free = 4, 5, 3
	for _, id := range []string{"cap-1", "cap-2", user.FormatID(8)} {
		if w := Do(h, "DELETE", "/users/"+id, ""); w.Code != http.StatusNoContent {
			t.Fatalf("DELETE %s: status %d", id, w.Code)
		}
		store.Delete(id)
	}
	var created atomic.Int32
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				switch r := post(newUser(fmt.Sprintf("race-%d-%d", w, i))); r.StatusCode {
				case http.StatusCreated:
					created.Add(1)
				case http.StatusConflict:
				default:
					t.Errorf("concurrent POST: status %d", r.StatusCode)
				}
			}
		})
	}
	wg.Wait()
	stored := 0
	for w := range writers {
		for i := range perWriter {
			if Do(h, "GET", fmt.Sprintf("/users/race-%d-%d", w, i), "").Code == http.StatusOK {
				stored++
			}
		}
	}
	if created.Load() != free || stored != free {
		t.Errorf("%d concurrent POSTs for %d free slots: %d answered 201 and %d stored", writers*perWriter, free, created.Load(), stored)
	}
}

// slowAdd is a stage whose Add pauses before storing, so that concurrent
// POSTs overlap in the handler: a limit checked before Add and counted
// after it would then let several of them through for the last slot.
type slowAdd struct{ api.Stage }

func (s slowAdd) Add(u user.User) bool {
	time.Sleep(time.Millisecond)
	return s.Stage.Add(u)
}
