package apitest

import (
	"fmt"
	"runtime"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// The size of testNothingKept's churn: each round adds churnUsers users,
// each with churnRoles roles nobody else holds, then deletes them all.
const (
	churnUsers  = 2000
	churnRoles  = 4
	churnRounds = 4
)

// maxKeptPerRole is how many bytes of heap testNothingKept allows per role
// written after the first round. A stage that keeps an emptied role keeps
// at least the role's name (these names are 13 bytes, so 16 on the heap)
// and its slot in a map, four times the bound or more. A stage that keeps
// nothing is left with what the runtime and the test allocate between two
// measurements, which does not grow with the number of roles: a few
// kilobytes against the bound's 96,000 bytes.
const maxKeptPerRole = 4

// testNothingKept checks that a stage whose users come and go does not
// grow: roles that a server saw once and whose users are gone must not
// stay in its index, or a long-running server leaks with every new role.
// The first round lets every slice and map reach the size the churn needs,
// since Go keeps what they grew to; the later rounds must then hold the
// heap where it was. The stage is called directly, so that the API layer's
// own bookkeeping is not counted here.
func testNothingKept(t *testing.T, newStage api.NewStage) {
	stage := newStage(user.MustGenerate(user.MinCount, user.DefaultSeed))
	round := func(r int) {
		t.Helper()
		for i := range churnUsers {
			u := user.User{ID: fmt.Sprintf("zz-churn-%d-%05d", r, i), Name: "Churn", Email: "churn@example.com"}
			for k := range churnRoles {
				u.Roles = append(u.Roles, fmt.Sprintf("own-%d-%05d-%d", r, i, k))
			}
			if !stage.Add(u) {
				t.Fatalf("Add(%s) refused", u.ID)
			}
			api.Recycle(stage, stage.ListByRole(u.Roles[0]))
		}
		for i := range churnUsers {
			if id := fmt.Sprintf("zz-churn-%d-%05d", r, i); !stage.Delete(id) {
				t.Fatalf("Delete(%s) found nobody", id)
			}
		}
	}
	round(0)
	before := liveHeap()
	for r := 1; r < churnRounds; r++ {
		round(r)
	}
	after := liveHeap()
	runtime.KeepAlive(stage)

	written := (churnRounds - 1) * churnUsers * churnRoles
	if grew := int64(after) - int64(before); grew > maxKeptPerRole*int64(written) {
		t.Errorf("after %d users with %d roles of their own were added and deleted, the heap grew by %d bytes, "+
			"%.1f per role (at most %d allowed): the stage keeps something of users or roles that are gone, "+
			"such as an emptied role in its index",
			written/churnRoles, written, grew, float64(grew)/float64(written), maxKeptPerRole)
	}
	if body := stage.ListByRole(fmt.Sprintf("own-%d-%05d-%d", churnRounds-1, 0, 0)); string(body) != "[]" {
		t.Errorf("a role whose users are all deleted lists %.100q, want []", body)
	}
}

// liveHeap returns the bytes the heap holds after a collection. It
// collects twice, because a sync.Pool keeps its objects through one.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
