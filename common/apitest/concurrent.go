package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// testConcurrent runs readers of role=admin while writers add and delete
// admins, and checks that no response is torn: every body is valid JSON,
// every user in it holds the role, appears once, in id order, and is exactly
// a user that existed at some point. Under -race it also checks the locks.
func testConcurrent(t *testing.T, newStage api.NewStage) {
	const (
		readers, reads     = 4, 60
		writers, perWriter = 2, 25
		rounds             = 3
	)
	s := newServer(t, newStage)

	// Every user that may ever be returned: the generated admins and the
	// admins the writers will add, whose ids interleave with theirs.
	known := map[string]user.User{}
	for _, u := range s.store.WithRole(user.RoleAdmin) {
		known[u.ID] = u
	}
	extra := make([][]user.User, writers)
	for w := range writers {
		for i := range perWriter {
			u := user.User{
				ID:    fmt.Sprintf("u%07d-w%d", i*397%user.DefaultCount, w),
				Name:  fmt.Sprintf("writer %d \"user\" %d <&>", w, i),
				Email: fmt.Sprintf("w%d.u%d@example.com", w, i),
				Roles: []string{"viewer", user.RoleAdmin, fmt.Sprintf("w%d", w)},
			}
			extra[w] = append(extra[w], u)
			known[u.ID] = u
		}
	}

	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for range rounds {
				for _, u := range extra[w] {
					if r := s.do("POST", "/users", string(mustMarshal(u))); r.Code != http.StatusCreated {
						t.Errorf("writer POST %s: status %d", u.ID, r.Code)
						return
					}
				}
				for _, u := range extra[w] {
					if r := s.do("DELETE", "/users/"+u.ID, ""); r.Code != http.StatusNoContent {
						t.Errorf("writer DELETE %s: status %d", u.ID, r.Code)
						return
					}
				}
			}
		})
	}
	for range readers {
		wg.Go(func() {
			for range reads {
				r := s.do("GET", ListTarget(user.RoleAdmin), "")
				if err := checkSnapshot(r.Code, r.Body.Bytes(), user.RoleAdmin, known); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	s.checkLists("after the writers, who deleted all they added", user.RoleAdmin)
}

// checkSnapshot reports how a list response read during writes is torn.
func checkSnapshot(status int, body []byte, role string, known map[string]user.User) error {
	if status != http.StatusOK {
		return fmt.Errorf("reader: status %d", status)
	}
	var got []user.User
	if err := json.Unmarshal(body, &got); err != nil {
		return fmt.Errorf("reader: torn body, not JSON: %w", err)
	}
	for i, u := range got {
		if !u.HasRole(role) {
			return fmt.Errorf("reader: %s returned for role %q but holds %q", u.ID, role, u.Roles)
		}
		if i > 0 && got[i-1].ID >= u.ID {
			return fmt.Errorf("reader: %s after %s: ids repeated or out of order", u.ID, got[i-1].ID)
		}
		if v, ok := known[u.ID]; !ok || !reflect.DeepEqual(u, v) {
			return fmt.Errorf("reader: %s as returned never existed: %+v", u.ID, u)
		}
	}
	return nil
}

// testStageCalls calls the stage itself from readers and writers in tight
// loops over a role of a few users. A stage that takes its read lock twice
// in one call deadlocks only when a writer queues between the two, a window
// of nanoseconds that thousands of short calls hit and testConcurrent's
// requests rarely do; a deadlock shows as the test's timeout.
func testStageCalls(t *testing.T, newStage api.NewStage) {
	const readers, writers, calls, role = 4, 2, 3000, "rare-role"
	stage := newStage(user.MustGenerate(1000, user.DefaultSeed))
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range calls {
				id := fmt.Sprintf("zz-w%d-%d", w, i%3)
				if !stage.Add(user.User{ID: id, Name: "n", Email: "e@example.com", Roles: []string{role}}) || !stage.Delete(id) {
					t.Errorf("writer: Add or Delete of %s refused", id)
					return
				}
			}
		})
	}
	for range readers {
		wg.Go(func() {
			for range calls {
				body := stage.ListByRole(role)
				if !json.Valid(body) {
					t.Errorf("ListByRole(%s) gave no JSON: %q", role, body)
					return
				}
				api.Recycle(stage, body)
			}
		})
	}
	wg.Wait()
}

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
