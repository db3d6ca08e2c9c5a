package main

import (
	"slices"
	"strings"
	"sync"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// Store keeps every user in one slice in ascending id order, and an index
// from each role to the users holding it, guarded by a read-write lock:
// many requests read at once, a write excludes them all.
//
// The index holds pointers to the users, not their positions in s.users:
// a position shifts for every user behind one that is inserted or deleted,
// so an index of positions (the case study's first version) goes wrong at
// the first delete from the middle, while a pointer names the same user
// however the slices that hold it shift. Each role's list is kept in
// ascending id order, the order the API answers in, so a lookup never sorts.
//
// A lookup hands out a view, not a copy: findByRole returns the index's own
// list, and ListByRole encodes it after the read lock is released. Two rules,
// which every write below follows, are what make that safe:
//
//   - A stored user is never modified. Add stores a new *user.User, Delete
//     drops one, and nothing writes through it; changing a user would mean
//     storing a new value in its place.
//   - A published list is never modified, nor any of its blocks. A write
//     builds a new list for every role it touches (copy on write) and puts
//     it in the map under the write lock, so the list that a reader took
//     stays as it was.
//
// The garbage collector keeps a deleted user alive while a reader still
// points to it (no dangling pointer, unlike the case study's const User*),
// but it does nothing against data races: the rules do. view_test.go and
// the conformance suite's concurrent test, run under -race, check them.
// s.users and the map are only read under the lock, so writes still change
// them in place.
//
// Each user is stored with its JSON, encoded once when it is written (see
// stored), and each role's list lays its users' JSON out in blocks (see
// roleList), so a read only copies a few blocks.
type Store struct {
	mu     sync.RWMutex
	users  []*stored           // ascending id
	byRole map[string]roleList // role -> the users holding it, ascending id
}

// stored is a user and its JSON, encoded when the user is written: at
// start-up and on Add. Like the user, the JSON is never modified, so it is
// right for as long as the user is stored. One encoding serves every role
// of the user: each role's blocks copy the same bytes. The JSON starts with
// the comma that comes before the user in a list, so that blocks lay users'
// bytes back to back.
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

// findByRole is one map lookup: its cost follows the number of matches, not
// the number of users. The list it returns is the index's own, a read-only
// view that stays valid after the lock is released (see Store).
func (s *Store) findByRole(role string) roleList {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.byRole[role]
}

// clone is a deep copy of u. In Go it copies the struct and the roles
// slice; the strings share their bytes, because Go strings are immutable and
// copying one copies a two-word header (unlike a C++ std::string).
func clone(u *user.User) user.User {
	c := *u
	c.Roles = slices.Clone(u.Roles)
	return c
}

// Get returns a copy of the user with id. Here the copy stays: the user
// leaves this package for code that may do anything with it, Get is not the
// path this stage speeds up, and one small allocation there is cheaper than
// a rule that every caller must keep.
func (s *Store) Get(id string) (user.User, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, found := searchID(s.users, id)
	if !found {
		return user.User{}, false
	}
	return clone(s.users[i].User), true
}

// Add inserts u at its place in id order, in s.users and in the list of
// each of its roles. u is encoded before the lock is taken, so that readers
// do not wait for the encoding.
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

// Delete removes the user with id from s.users and from the list of each of
// its roles. A role that nobody holds any more leaves the map, so that the
// index does not grow with every role ever written.
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
