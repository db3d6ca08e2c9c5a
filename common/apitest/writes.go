package apitest

import (
	"fmt"
	"maps"
	"math"
	"net/http"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/apitest/plain"
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

// Each round of testNothingKept adds churnUsers users, each with
// churnRoles roles nobody else holds, then deletes them all.
const (
	churnUsers  = 2000
	churnRoles  = 4
	churnRounds = 5
)

// maxKeptPerRole is how many bytes of heap testNothingKept allows per role
// written in a round. A stage that keeps an emptied role keeps its name (16
// bytes on the heap) and its slot in a map, four times the bound or more;
// one that keeps nothing grows by nothing in most rounds.
const maxKeptPerRole = 4

// testNothingKept checks that a stage whose users come and go does not
// grow, as it would with every new role if emptied roles stayed indexed.
func testNothingKept(t *testing.T, newStage api.NewStage) {
	stage := newStage(user.MustGenerate(user.MinCount, user.DefaultSeed))
	grew, written, err := heapKept(stage)
	if err != nil {
		t.Fatal(err)
	}
	if grew > maxKeptPerRole*int64(written) {
		t.Errorf("in each of %d rounds, %d users with %d roles of their own were added and deleted, and the heap grew "+
			"by %d bytes or more, %.1f per role (at most %d allowed): the stage keeps something of users or roles "+
			"that are gone, such as an emptied role in its index",
			churnRounds-1, written/churnRoles, written, grew, float64(grew)/float64(written), maxKeptPerRole)
	}
	if body := stage.ListByRole(churnRole(churnRounds-1, 0, 0)); string(body) != "[]" {
		t.Errorf("a role whose users are all deleted lists %.100q, want []", body)
	}
}

// heapKept churns users through stage, without the API layer's own
// bookkeeping, and returns the least the heap grew in any round after the
// first (which grows the maps that Go keeps) and how many roles a round
// writes. The least, because a leak grows the heap in every round, while a
// map may grow its table in any one round even when nothing is kept.
func heapKept(stage api.Stage) (grew int64, written int, err error) {
	grew = math.MaxInt64
	var before int64
	for r := range churnRounds {
		for i := range churnUsers {
			u := user.User{ID: churnID(r, i), Name: "Churn", Email: "churn@example.com"}
			for k := range churnRoles {
				u.Roles = append(u.Roles, churnRole(r, i, k))
			}
			if !stage.Add(u) {
				return 0, 0, fmt.Errorf("Add(%s) refused", u.ID)
			}
			// Reads, for a stage that keeps something per role read, such
			// as a cache: every fourth user's role passes the bound.
			if i%4 == 0 {
				api.Recycle(stage, stage.ListByRole(u.Roles[0]))
			}
		}
		for i := range churnUsers {
			if id := churnID(r, i); !stage.Delete(id) {
				return 0, 0, fmt.Errorf("Delete(%s) found nobody", id)
			}
		}
		after := int64(liveHeap())
		if r > 0 {
			grew = min(grew, after-before)
		}
		before = after
	}
	runtime.KeepAlive(stage)
	return grew, churnUsers * churnRoles, nil
}

func churnID(round, i int) string { return fmt.Sprintf("zz-churn-%d-%05d", round, i) }

func churnRole(round, i, k int) string { return fmt.Sprintf("own-%d-%05d-%d", round, i, k) }

// liveHeap returns the bytes the heap holds after two collections: a
// sync.Pool keeps its objects through one.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
