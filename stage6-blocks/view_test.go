package main

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"example.com/userperf/common/user"
)

// TestViewOutlivesWrites checks the rule that replaces stage1's copies: a
// list that findByRole has handed out keeps the same users in the same order
// whatever is written afterwards, so a reader can encode it after releasing
// the lock. Updating a list or a block in place (slices.Insert and
// slices.Delete on the shared backing array, as stage1 does with its lists)
// fails this test even without -race: the view's elements shift under it.
func TestViewOutlivesWrites(t *testing.T) {
	s := New(user.MustGenerate(user.DefaultCount, user.DefaultSeed)).(*Store)
	view := s.findByRole(user.RoleAdmin)
	before := slices.Clone(view)
	admins := usersOf(view)
	want := slices.Clone(encodeUsers(view))

	// Delete every other admin (the first one and some from the middle
	// included), then add admins whose ids sort between the remaining ones.
	remaining := len(admins)
	for i := 0; i < len(admins); i += 2 {
		if !s.Delete(admins[i].ID) {
			t.Fatalf("Delete(%s) found no user", admins[i].ID)
		}
		remaining--
	}
	for i := 1; i < len(admins); i += 4 {
		added := user.User{ID: admins[i].ID + "-new", Name: "new", Email: "new@example.com",
			Roles: []string{user.RoleAdmin, fmt.Sprintf("added-%d", i)}}
		if !s.Add(added) {
			t.Fatalf("Add(%s) refused", added.ID)
		}
		remaining++
	}

	sameBlock := func(a, b block) bool { return slices.Equal(a.users, b.users) && bytes.Equal(a.json, b.json) }
	if !slices.EqualFunc(view, before, sameBlock) || !slices.Equal(usersOf(view), admins) {
		t.Errorf("a view taken before the writes changed after them: writes must build new lists, not edit the published ones")
	}
	if got := encodeUsers(before); !bytes.Equal(got, want) {
		t.Errorf("the old view encodes to other bytes than before the writes: a stored user or a block was modified")
	}
	// The store itself has moved on: half the admins gone, the new ones in.
	if now := len(usersOf(s.findByRole(user.RoleAdmin))); now != remaining {
		t.Errorf("after the writes role %q has %d users, want %d", user.RoleAdmin, now, remaining)
	}
}
