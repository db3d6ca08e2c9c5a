package apitest

import (
	"slices"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// emptiedRolesStage is the plain stage with an index whose Delete takes the
// user out of each role's list but leaves the emptied list in the map: the
// leak that testNothingKept is there to catch.
type emptiedRolesStage struct {
	api.Stage
	byRole map[string][]string
}

func (s *emptiedRolesStage) Add(u user.User) bool {
	if !s.Stage.Add(u) {
		return false
	}
	for _, r := range u.Roles {
		s.byRole[r] = append(s.byRole[r], u.ID)
	}
	return true
}

func (s *emptiedRolesStage) Delete(id string) bool {
	u, ok := s.Stage.Get(id)
	if !ok {
		return false
	}
	for _, r := range u.Roles {
		s.byRole[r] = slices.DeleteFunc(s.byRole[r], func(held string) bool { return held == id })
	}
	return s.Stage.Delete(id)
}

func TestNothingKeptCatchesEmptiedRoles(t *testing.T) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)

	// The control: the plain stage keeps nothing of users that are gone.
	grew, written, err := heapKept(NewPlain(users))
	if err != nil {
		t.Fatal(err)
	}
	if grew > maxKeptPerRole*int64(written) {
		t.Fatalf("the plain stage grew by %d bytes over %d roles written: the bound is too tight to tell a leak", grew, written)
	}

	leaky := &emptiedRolesStage{Stage: NewPlain(users), byRole: map[string][]string{}}
	grew, written, err = heapKept(leaky)
	if err != nil {
		t.Fatal(err)
	}
	if grew <= maxKeptPerRole*int64(written) {
		t.Errorf("a stage that kept %d emptied roles grew by %d bytes, within the bound of %d a role: testNothingKept would pass it",
			len(leaky.byRole), grew, maxKeptPerRole)
	}
}
