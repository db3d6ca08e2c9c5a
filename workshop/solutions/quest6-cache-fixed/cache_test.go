package main

import (
	"testing"

	"example.com/userperf/common/user"
)

// The shared suites check that every answer is right; these check that the
// cache is what it says: used, dropped role by role, and bounded.

func newStore(t *testing.T) *Store {
	t.Helper()
	return New(user.MustGenerate(user.MinCount, user.DefaultSeed)).(*Store)
}

func TestASecondListIsServedFromTheCache(t *testing.T) {
	s := newStore(t)
	first, second := s.ListByRole(user.RoleAdmin), s.ListByRole(user.RoleAdmin)
	if &first[0] != &second[0] {
		t.Errorf("two lists of %q with no write between them were encoded twice", user.RoleAdmin)
	}
}

func TestAWriteDropsOnlyTheRolesItChanges(t *testing.T) {
	s := newStore(t)
	s.ListByRole(user.RoleAdmin)
	s.ListByRole(user.RoleEditor)
	added := user.User{ID: "zz-new", Name: "New", Email: "new@example.com", Roles: []string{user.RoleAdmin}}
	if !s.Add(added) {
		t.Fatal("Add refused a new id")
	}
	if _, cached := s.cache[user.RoleAdmin]; cached {
		t.Errorf("Add of a user with role %q left that role's body in the cache", user.RoleAdmin)
	}
	if _, cached := s.cache[user.RoleEditor]; !cached {
		t.Errorf("Add of a user without role %q dropped that role's body", user.RoleEditor)
	}

	s.ListByRole(user.RoleAdmin)
	if !s.Delete(added.ID) {
		t.Fatal("Delete found no user")
	}
	if _, cached := s.cache[user.RoleAdmin]; cached {
		t.Errorf("Delete of a user with role %q left that role's body in the cache", user.RoleAdmin)
	}
}

func TestRolesNobodyHoldsAreNotCached(t *testing.T) {
	s := newStore(t)
	for _, role := range []string{"nobody", "no-one", "team-9999", "Admin"} {
		if got := string(s.ListByRole(role)); got != "[]" {
			t.Errorf("ListByRole(%q) = %.40q, want []", role, got)
		}
	}
	if len(s.cache) != 0 {
		t.Errorf("the cache holds %d bodies for roles nobody holds; want none", len(s.cache))
	}
}
