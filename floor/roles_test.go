package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"example.com/userperf/common/user"
)

// TestRoleFollowsEveryWrite adds users of one role in random order and
// deletes them again, enough to split runs, and reads the role after
// every write. Each body must be what encoding/json gives for the users the
// role holds at that moment, the runs must hold 1 to maxRunUsers
// users in id order, and a body handed out before a write must stay as it
// was: a reader may still be sending it.
func TestRoleFollowsEveryWrite(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	f := New(nil).(*Floor)
	var want []user.User // the role's users, in id order
	var handedOut [][]byte
	var copies [][]byte
	check := func(step string) {
		t.Helper()
		got, wantBody := f.ListByRole("r"), []byte("[]")
		if len(want) > 0 {
			wantBody, _ = json.Marshal(want)
		}
		if !bytes.Equal(got, wantBody) {
			t.Fatalf("after %s: body =\n%s\nwant\n%s", step, got, wantBody)
		}
		if l := f.roles["r"]; l != nil {
			checkRuns(t, step, l)
		}
		handedOut, copies = append(handedOut, got), append(copies, slices.Clone(got))
	}

	ids := rng.Perm(5 * maxRunUsers)
	for _, n := range ids {
		u := user.User{ID: fmt.Sprintf("u%04d", n), Name: "<n>", Email: "e", Roles: []string{"r"}}
		f.Add(u)
		i, _ := slices.BinarySearchFunc(want, u.ID, func(w user.User, id string) int { return strings.Compare(w.ID, id) })
		want = slices.Insert(want, i, u)
		check("adding " + u.ID)
	}
	if runs := len(f.roles["r"].runs); runs < 6 {
		t.Fatalf("%d users fill only %d runs: the test split none", len(ids), runs)
	}
	for _, n := range rng.Perm(len(ids)) {
		id := fmt.Sprintf("u%04d", n)
		f.Delete(id)
		want = slices.DeleteFunc(want, func(w user.User) bool { return w.ID == id })
		check("deleting " + id)
	}
	if _, ok := f.roles["r"]; ok {
		t.Errorf("the role is still in the map after its last user was deleted")
	}
	for i := range handedOut {
		if !bytes.Equal(handedOut[i], copies[i]) {
			t.Fatalf("body %d was changed by a later write", i)
		}
	}
}

// checkRuns checks that l's runs hold 1 to maxRunUsers users each, all
// holding the role, in ascending id order across the runs.
func checkRuns(t *testing.T, step string, l *inPlaceRole) {
	t.Helper()
	prev := ""
	for k, b := range l.runs {
		if len(b) == 0 || len(b) > maxRunUsers {
			t.Fatalf("after %s: run %d holds %d users, want 1 to %d", step, k, len(b), maxRunUsers)
		}
		for _, s := range b {
			if s.user.ID <= prev {
				t.Fatalf("after %s: user %s comes after %s", step, s.user.ID, prev)
			}
			prev = s.user.ID
		}
	}
}
