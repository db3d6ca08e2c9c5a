package main

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// Store keeps every user, and an index from each role to its users, in
// ascending id order and guarded by a read-write lock.
//
// A lookup hands out a view, not a copy: findByRole returns the index's own
// list, and ListByRole encodes it after the read lock is released. Two rules,
// which every write below follows, make that safe (view_test.go and the
// conformance suite's concurrent test check them under -race):
//
//   - A stored user is never modified: Add stores a new one.
//   - A published list is never modified, nor any of its blocks: a write
//     builds new ones (copy on write), put in the map under the write lock.
//
// Each user's JSON is encoded once, on write (see stored), and each role's
// list lays it out in blocks (see roleList): a read copies a few blocks.
type Store struct {
	mu     sync.RWMutex
	users  []*stored           // ascending id
	byRole map[string]roleList // role -> the users holding it, ascending id
}

// stored is a user and its JSON, encoded when the user is written and never
// modified. The JSON starts with the comma that comes before the user in a
// list, so that blocks lay users' bytes back to back.
type stored struct {
	*user.User
	json []byte // ",{...}"
}

// newStored encodes u, cut to its length: it lives as long as the user.
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
		for run := range slices.Chunk(list, blockUsers) {
			s.byRole[r] = append(s.byRole[r], newBlock(run))
		}
	}
	return s
}

// ListByRole answers GET /users?role=role.
func (s *Store) ListByRole(role string) []byte { return encodeUsers(s.findByRole(role)) }

// Recycle takes body back once it is written, for a later one (buffer.go).
func (s *Store) Recycle(body []byte) { putBuffer(body) }

// findByRole returns the index's own list of role: a read-only view that
// stays valid after the lock is released (see Store).
func (s *Store) findByRole(role string) roleList {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.byRole[role]
}

// clone is a deep copy of u: the strings, immutable, share their bytes.
func clone(u *user.User) user.User {
	c := *u
	c.Roles = slices.Clone(u.Roles)
	return c
}

// Get returns a copy of the user with id, for code that may change it.
func (s *Store) Get(id string) (user.User, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, found := searchID(s.users, id)
	if !found {
		return user.User{}, false
	}
	return clone(s.users[i].User), true
}

// Add inserts u in s.users and in the list of each of its roles, encoded
// before the lock is taken, so that readers do not wait for the encoding.
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
// its roles; a role that nobody holds any more leaves the map.
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

// A roleList is a role's users in blocks, in ascending id order: a read
// copies whole blocks, a write rebuilds the one that the id falls in. A new
// list shares the blocks that did not change.
type roleList []block

// block is 1 to blockUsers of a role's users and their stored bytes, back
// to back: enough for few copies on a read, few enough for small writes.
type block struct {
	users []*stored // ascending id
	json  []byte    // ",{...},{...}"
}

const blockUsers = 64 // see block

// newBlock lays out users' bytes; one user's are its own, not a copy.
func newBlock(users []*stored) block {
	if len(users) == 1 {
		return block{users, users[0].json}
	}
	size := 0
	for _, u := range users {
		size += len(u.json)
	}
	b := block{users, make([]byte, 0, size)}
	for _, u := range users {
		b.json = append(b.json, u.json...)
	}
	return b
}

// with returns l with u in id order, without returns l without the user
// with id, which it holds, and replace returns l with users in block k's
// place: none if empty, two halves if too many. None modifies l.
func (l roleList) with(u *stored) roleList {
	if len(l) == 0 {
		return roleList{newBlock([]*stored{u})}
	}
	k := l.find(u.ID)
	j, _ := searchID(l[k].users, u.ID)
	return l.replace(k, slices.Concat(l[k].users[:j], []*stored{u}, l[k].users[j:]))
}

func (l roleList) without(id string) roleList {
	k := l.find(id)
	j, _ := searchID(l[k].users, id)
	return l.replace(k, slices.Concat(l[k].users[:j], l[k].users[j+1:]))
}

func (l roleList) replace(k int, users []*stored) roleList {
	var blocks roleList
	if half := len(users) / 2; len(users) > blockUsers {
		blocks = roleList{newBlock(users[:half]), newBlock(users[half:])}
	} else if len(users) > 0 {
		blocks = roleList{newBlock(users)}
	}
	return slices.Concat(l[:k], blocks, l[k+1:])
}

// find returns the block that id falls in: the last whose first id is not
// above it, else the first.
func (l roleList) find(id string) int {
	return max(0, sort.Search(len(l), func(k int) bool { return l[k].users[0].ID > id })-1)
}
