package apitest

import (
	"fmt"
	"runtime"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// Each round of testNothingKept adds churnUsers users, each with
// churnRoles roles nobody else holds, then deletes them all.
const (
	churnUsers  = 2000
	churnRoles  = 4
	churnRounds = 4
)

// maxKeptPerRole is how many bytes of heap testNothingKept allows per role
// written after the first round. A stage that keeps an emptied role keeps
// its name (16 bytes on the heap) and its slot in a map, four times the
// bound or more; one that keeps nothing grows by a few kilobytes in all.
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
		t.Errorf("after %d users with %d roles of their own were added and deleted, the heap grew by %d bytes, "+
			"%.1f per role (at most %d allowed): the stage keeps something of users or roles that are gone, "+
			"such as an emptied role in its index",
			written/churnRoles, written, grew, float64(grew)/float64(written), maxKeptPerRole)
	}
	if body := stage.ListByRole(churnRole(churnRounds-1, 0, 0)); string(body) != "[]" {
		t.Errorf("a role whose users are all deleted lists %.100q, want []", body)
	}
}

// heapKept churns users through stage, without the API layer's own
// bookkeeping, and returns how much the heap grew over the rounds after the
// first (which grows the maps that Go keeps) and how many roles they wrote.
func heapKept(stage api.Stage) (grew int64, written int, err error) {
	var before uint64
	for r := range churnRounds {
		if r == 1 {
			before = liveHeap()
		}
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
	}
	grew = int64(liveHeap()) - int64(before)
	runtime.KeepAlive(stage)
	return grew, (churnRounds - 1) * churnUsers * churnRoles, nil
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
