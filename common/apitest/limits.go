package apitest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"example.com/userperf/common/api"
	"example.com/userperf/common/api/guard"
	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// newLimitedServer returns a server of the smaller data set, with limits that edit sets.
func newLimitedServer(t *testing.T, stage api.NewStage, edit func(users []user.User, l *api.Limits)) *server {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	limits := api.DefaultLimits
	edit(users, &limits)
	return &server{t, api.NewHandlerWithLimits(stage(users), users, limits), plain.New(users)}
}

// testMaxUsers checks the limit on the number of users: a POST beyond it
// is refused and changes nothing, a DELETE or a POST that Add refused frees
// the slot again, and concurrent POSTs never take more slots than there are.
func testMaxUsers(t *testing.T, newStage api.NewStage) {
	slow := func(users []user.User) api.Stage { return slowAdd{newStage(users)} }
	s := newLimitedServer(t, slow, func(users []user.User, l *api.Limits) { l.MaxUsers = len(users) + 1 })
	newUser := func(id string) user.User {
		return user.User{ID: id, Name: "Capped " + id, Email: id + "@example.com", Roles: []string{"capped", user.RoleAdmin}}
	}
	post := func(u user.User) int { return s.do("POST", "/users", string(mustMarshal(u))).Code }

	first, second := newUser("cap-1"), newUser("cap-2")
	s.post("POST into the last slot", first)
	wantError(t, "POST beyond the limit", s.do("POST", "/users", string(mustMarshal(second))), http.StatusConflict)
	wantError(t, "GET of the user refused", s.do("GET", "/users/cap-2", ""), http.StatusNotFound)
	s.checkLists("after the refused POST", "capped", user.RoleAdmin)

	// A DELETE frees a slot, and a duplicate id that Add refuses gives it back.
	s.delete(user.FormatID(7))
	if code := post(first); code != http.StatusConflict {
		t.Errorf("POST of a taken id: status %d, want 409", code)
	}
	s.post("POST into the slot a DELETE freed", second)
	s.checkLists("after the DELETE and the POST", "capped", user.RoleAdmin)

	// Concurrent POSTs for three free slots: exactly three are stored.
	const writers, perWriter, free = 4, 5, 3
	for _, id := range []string{"cap-1", "cap-2", user.FormatID(8)} {
		s.delete(id)
	}
	var created atomic.Int32
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				switch code := post(newUser(fmt.Sprintf("race-%d-%d", w, i))); code {
				case http.StatusCreated:
					created.Add(1)
				case http.StatusConflict:
				default:
					t.Errorf("concurrent POST: status %d", code)
				}
			}
		})
	}
	wg.Wait()
	stored := 0
	for w := range writers {
		for i := range perWriter {
			if s.do("GET", fmt.Sprintf("/users/race-%d-%d", w, i), "").Code == http.StatusOK {
				stored++
			}
		}
	}
	if created.Load() != free || stored != free {
		t.Errorf("%d concurrent POSTs for %d free slots: %d answered 201 and %d stored", writers*perWriter, free, created.Load(), stored)
	}
}

// slowAdd is a stage whose Add pauses, so that concurrent POSTs overlap: a
// limit checked before Add and counted after it would let several through.
type slowAdd struct{ api.Stage }

func (s slowAdd) Add(u user.User) bool {
	time.Sleep(time.Millisecond)
	return s.Stage.Add(u)
}

// largestUser is the user whose JSON is the longest the limits allow, as
// each character is written in six bytes (\u003c). n makes it distinct.
func largestUser(n int, common string) user.User {
	const escaped = "<"
	u := user.User{
		ID:    fmt.Sprintf("largest-%0*d", api.MaxIDBytes-len("largest-"), n),
		Name:  strings.Repeat(escaped, api.MaxNameBytes),
		Email: escaped + "@" + strings.Repeat(escaped, api.MaxEmailBytes-2),
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

// testStoredBytes checks the limit on what the stored users count, as
// testMaxUsers does the number.
func testStoredBytes(t *testing.T, newStage api.NewStage) {
	first, second := largestUser(1, "largest"), largestUser(2, "largest")
	s := newLimitedServer(t, newStage, func(users []user.User, l *api.Limits) {
		l.MaxStoredBytes = storedCost(users...) + storedCost(first) + storedCost(second) - 1 // room for one of them
	})
	check := func(what string) {
		t.Helper()
		for _, role := range []string{"largest", first.Roles[1], second.Roles[1], user.RoleAdmin} {
			s.checkLists(what, role)
			get, head := s.do("GET", ListTarget(role), ""), s.do("HEAD", ListTarget(role), "")
			if cl := head.Header().Get("Content-Length"); cl != strconv.Itoa(get.Body.Len()) {
				t.Errorf("%s: HEAD of role %q announces %s bytes, GET gives %d", what, role, cl, get.Body.Len())
			}
		}
	}

	s.post("POST of the largest user", first)
	wantError(t, "POST beyond the stored bytes", s.do("POST", "/users", string(mustMarshal(second))), http.StatusConflict, "store is full", "bytes")
	wantError(t, "GET of the user refused", s.do("GET", "/users/"+second.ID, ""), http.StatusNotFound)
	check("after the refused POST")

	// A small user still fits, and a taken id gives back what it reserved.
	small := user.User{ID: "small-1", Name: "Small", Email: "small@example.com", Roles: []string{"largest"}}
	s.post("POST of a small user", small)
	for range 3 {
		wantError(t, "POST of a taken id", s.do("POST", "/users", string(mustMarshal(small))), http.StatusConflict, "already exists")
	}
	s.delete(small.ID)

	// The DELETE of the first makes room for the second.
	s.delete(first.ID)
	s.post("POST into the room a DELETE made", second)
	check("after the DELETE and the POST")
}
