package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// ViewOutlivesWrites checks the rule that replaces stage 1's copies (stage
// 2 on): a list that find (a store's findByRole) has handed out keeps the
// same users in the same order whatever is written afterwards, so a reader
// can encode it after releasing the lock. Lists updated in place, as stage
// 1's are, fail it even without -race. s is a new store of the generated users.
func ViewOutlivesWrites[View ~[]E, E comparable](t *testing.T, s api.Stage, find func(role string) View, encode func(View) []byte) {
	ViewOutlivesWritesFunc(t, s, find, encode, func(v View) []E { return v })
}

// ViewOutlivesWritesFunc is ViewOutlivesWrites for a view that is not a
// slice, such as stage 6's blocks: listed reads its elements as a reader would.
func ViewOutlivesWritesFunc[View any, E comparable](t *testing.T, s api.Stage, find func(role string) View, encode func(View) []byte, listed func(View) []E) {
	view := find(user.RoleAdmin)
	before := slices.Clone(listed(view))
	want := slices.Clone(encode(view)) // a copy: the body may be reused
	var admins []user.User
	if err := json.Unmarshal(want, &admins); err != nil {
		t.Fatalf("the admins' list does not decode: %v", err)
	}

	// Delete every other admin, then add admins whose ids sort between the rest.
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

	if !slices.Equal(listed(view), before) {
		t.Errorf("a view taken before the writes changed after them: writes must build new lists, not edit the published ones")
	} else if got := encode(view); !bytes.Equal(got, want) {
		t.Errorf("the users of the old view encode to other bytes than before the writes: a stored user or its bytes were modified")
	}
	// The store itself has moved on: half the admins gone, the new ones in.
	if now := len(listed(find(user.RoleAdmin))); now != remaining {
		t.Errorf("after the writes role %q has %d users, want %d", user.RoleAdmin, now, remaining)
	}
}
