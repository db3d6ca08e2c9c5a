package main

import (
	"slices"
	"strings"
	"sync"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// Store keeps every user in one slice in ascending id order, guarded by a
// read-write lock: many requests read at once, a write excludes them all.
type Store struct {
	mu    sync.RWMutex
	users []*user.User // ascending id
}

// New returns a Store holding users, which are in ascending id order.
func New(users []user.User) api.Stage {
	s := &Store{users: make([]*user.User, len(users))}
	for i := range users {
		s.users[i] = &users[i]
	}
	return s
}

// ListByRole answers GET /users?role=role.
func (s *Store) ListByRole(role string) []byte {
	return encodeUsers(s.findByRole(role))
}

// findByRole compares role with every role of every user: 10,000 users with
// about five roles each make some 50,000 string comparisons per request,
// whether 100 users match or none. Matches are returned as copies so that
// the caller can never see or cause a change to the stored users.
func (s *Store) findByRole(role string) []user.User {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var found []user.User
	for _, u := range s.users {
		for _, r := range u.Roles {
			if r == role {
				found = append(found, clone(u))
				break
			}
		}
	}
	return found
}

// clone is a deep copy of u. In Go it copies the struct and the roles
// slice; the strings share their bytes, because Go strings are immutable and
// copying one copies a two-word header (unlike a C++ std::string).
func clone(u *user.User) user.User {
	c := *u
	c.Roles = slices.Clone(u.Roles)
	return c
}

// Get returns a copy of the user with id.
func (s *Store) Get(id string) (user.User, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, found := s.search(id)
	if !found {
		return user.User{}, false
	}
	return clone(s.users[i]), true
}

// Add inserts u at its place in id order.
func (s *Store) Add(u user.User) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, found := s.search(u.ID)
	if found {
		return false
	}
	s.users = slices.Insert(s.users, i, &u)
	return true
}

// Delete removes the user with id.
func (s *Store) Delete(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, found := s.search(id)
	if !found {
		return false
	}
	s.users = slices.Delete(s.users, i, i+1)
	return true
}

// search finds id's position in s.users by binary search; s.mu must be held.
func (s *Store) search(id string) (int, bool) {
	return slices.BinarySearchFunc(s.users, id, func(u *user.User, id string) int {
		return strings.Compare(u.ID, id)
	})
}
