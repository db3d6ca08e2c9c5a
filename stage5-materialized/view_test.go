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
// the lock. Updating the lists in place (slices.Insert and slices.Delete on
// the shared backing array, as stage1 does) fails this test even without
// -race: the view's elements shift under it.
func TestViewOutlivesWrites(t *testing.T) {
	s := New(user.MustGenerate(user.DefaultCount, user.DefaultSeed)).(*Store)
	view := s.findByRole(user.RoleAdmin)
	before := slices.Clone(view)
	want := encodeUsers(view)

	// Delete every other admin (the first one and some from the middle
	// included), then add admins whose ids sort between the remaining ones.
	remaining := len(before)
	for i := 0; i < len(before); i += 2 {
		if !s.Delete(before[i].ID) {
			t.Fatalf("Delete(%s) found no user", before[i].ID)
		}
		remaining--
	}
	for i := 1; i < len(before); i += 4 {
		added := user.User{ID: before[i].ID + "-new", Name: "new", Email: "new@example.com",
			Roles: []string{user.RoleAdmin, fmt.Sprintf("added-%d", i)}}
		if !s.Add(added) {
			t.Fatalf("Add(%s) refused", added.ID)
		}
		remaining++
	}

	if !slices.Equal(view, before) {
		t.Errorf("a view taken before the writes changed after them: writes must build new lists, not edit the published ones")
	}
	if got := encodeUsers(before); !bytes.Equal(got, want) {
		t.Errorf("the users of the old view encode to other bytes than before the writes: a stored user was modified")
	}
	// The store itself has moved on: half the admins gone, the new ones in.
	if now := len(s.findByRole(user.RoleAdmin)); now != remaining {
		t.Errorf("after the writes role %q has %d users, want %d", user.RoleAdmin, now, remaining)
	}
}
