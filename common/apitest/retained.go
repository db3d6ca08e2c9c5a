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

// heapKept churns users through stage and returns how much the heap grew
// over the rounds after the first, and how many roles those rounds wrote.
// The first round lets every slice and map reach the size the churn needs,
// since Go keeps what they grew to; the later rounds must then hold the
// heap where it was. The stage is called directly, so that the API layer's
// own bookkeeping is not counted here.
func heapKept(stage api.Stage) (grew int64, written int, err error) {
	round := func(r int) error {
		for i := range churnUsers {
			u := user.User{ID: churnID(r, i), Name: "Churn", Email: "churn@example.com"}
			for k := range churnRoles {
				u.Roles = append(u.Roles, churnRole(r, i, k))
			}
			if !stage.Add(u) {
				return fmt.Errorf("Add(%s) refused", u.ID)
			}
			// Some reads, so that a stage that keeps something per role
			// read, such as a cache, keeps it here too: every fourth user's
			// role is enough to pass the bound, and costs a quarter.
			if i%4 == 0 {
				api.Recycle(stage, stage.ListByRole(u.Roles[0]))
			}
		}
		for i := range churnUsers {
			if id := churnID(r, i); !stage.Delete(id) {
				return fmt.Errorf("Delete(%s) found nobody", id)
			}
		}
		return nil
	}
	if err := round(0); err != nil {
		return 0, 0, err
	}
	before := liveHeap()
	for r := 1; r < churnRounds; r++ {
		if err := round(r); err != nil {
			return 0, 0, err
		}
	}
	after := liveHeap()
	runtime.KeepAlive(stage)
	return int64(after) - int64(before), (churnRounds - 1) * churnUsers * churnRoles, nil
}

func churnID(round, i int) string { return fmt.Sprintf("zz-churn-%d-%05d", round, i) }

func churnRole(round, i, k int) string { return fmt.Sprintf("own-%d-%05d-%d", round, i, k) }

// liveHeap returns the bytes the heap holds after a collection. It
// collects twice, because a sync.Pool keeps its objects through one.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
