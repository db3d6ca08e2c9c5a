package main

import (
	"slices"
	"strings"
	"sync"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// Store keeps every user, encoded once on write, in one slice in ascending
// id order, and an index from each role to its users' blocks, guarded by a
// read-write lock. ListByRole encodes the index's own list after the lock
// is released, which is safe because no write modifies a stored user, a
// published list or its blocks: it builds new ones and puts them in the map
// under the write lock (view_test.go and the conformance suite, under -race,
// check it). s.users and the map are only read under the lock.
type Store struct {
	mu     sync.RWMutex
	users  []*stored           // ascending id
	byRole map[string]roleList // role -> the users holding it, ascending id
}

// stored is a user and its JSON, encoded when the user is written, after
// the comma that comes before it in a list, so that blocks lay users' bytes
// back to back. Like the user, it is never modified.
type stored struct {
	*user.User
	json []byte // ",{...}"
}

// newStored encodes u, cloned to its length: it lives as long as the user,
// and append may have grown it to twice that.
func newStored(u *user.User) *stored {
	return &stored{User: u, json: slices.Clone(appendUser([]byte{','}, u))}
}

// New returns a Store holding users, which are in ascending id order.
func New(users []user.User) api.Stage {
	s := &Store{users: make([]*stored, len(users)), byRole: map[string]roleList{}}
	holders := map[string][]*stored{}
	for i := range users {
		s.users[i] = newStored(&users[i])
		// users come in id order, so appending keeps every list sorted.
		for _, r := range users[i].Roles {
			holders[r] = append(holders[r], s.users[i])
		}
	}
	for r, list := range holders {
		s.byRole[r] = newRoleList(list)
	}
	return s
}

// ListByRole answers GET /users?role=role.
func (s *Store) ListByRole(role string) []byte {
	return encodeUsers(s.findByRole(role))
}

// Recycle takes body back once it is written, for a later one (buffer.go).
func (s *Store) Recycle(body []byte) { putBuffer(body) }

// findByRole is one map lookup; the list it returns is a read-only view.
func (s *Store) findByRole(role string) roleList {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.byRole[role]
}

// clone is a deep copy of u; its strings, immutable, share their bytes.
func clone(u *user.User) user.User {
	c := *u
	c.Roles = slices.Clone(u.Roles)
	return c
}

// Get returns a copy of the user with id, which leaves this package.
func (s *Store) Get(id string) (user.User, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, found := searchID(s.users, id)
	if !found {
		return user.User{}, false
	}
	return clone(s.users[i].User), true
}

// Add inserts u in id order in s.users and in each of its roles' lists,
// encoded before the lock is taken so that readers do not wait for that.
func (s *Store) Add(u user.User) bool {
	added := newStored(&u)
	s.mu.Lock()
	defer s.mu.Unlock()
	i, found := searchID(s.users, u.ID)
	if found {
		return false
	}
	s.users = slices.Insert(s.users, i, added)
	for _, r := range u.Roles {
		s.byRole[r] = s.byRole[r].with(added) // a new list: copy on write
	}
	return true
}

// Delete removes the user with id from s.users and from its roles' lists;
// a role nobody holds leaves the map, so that it does not grow for good.
func (s *Store) Delete(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, found := searchID(s.users, id)
	if !found {
		return false
	}
	for _, r := range s.users[i].Roles {
		if list := s.byRole[r].without(id); len(list) > 0 { // a new list: copy on write
			s.byRole[r] = list
		} else {
			delete(s.byRole, r)
		}
	}
	s.users = slices.Delete(s.users, i, i+1)
	return true
}

// searchID finds id's position in users, which are in ascending id order.
func searchID(users []*stored, id string) (int, bool) {
	return slices.BinarySearchFunc(users, id, func(u *stored, id string) int {
		return strings.Compare(u.ID, id)
	})
}
