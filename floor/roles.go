package main

import (
	"slices"
	"strings"
)

// inPlaceRole is one role's users in ascending id order, and their body
// once it is built. The users are cut into runs of 1 to maxRunUsers
// consecutive users, so that a write moves at most a run's pointers: one
// flat slice would shift half the role's users for every insert or delete
// in its middle, 400 KB for a role of 100,000 users.
//
// The runs are changed in place, as the name says; stage 6's blocks look
// alike but are copied on every write. Nobody reads the runs without the
// floor's lock (a reader reads only the body, and the body is built under
// the write lock), so there is no old version to keep for a reader, and a
// write allocates nothing unless it splits a run.
type inPlaceRole struct {
	runs [][]*encodedUser
	body []byte // nil when a write has changed the users since it was built
}

// maxRunUsers is the most users that one run holds. A write moves up to
// this many pointers inside a run, plus, when it splits a run or empties
// one, the role's number of users divided by about maxRunUsers.
const maxRunUsers = 64

// newInPlaceRole cuts users, in ascending id order, into full runs. Each
// run from slices.Chunk has no capacity beyond its length, so inserting
// into one moves it to an array of its own and never writes over the next.
func newInPlaceRole(users []*encodedUser) *inPlaceRole {
	return &inPlaceRole{runs: slices.Collect(slices.Chunk(users, maxRunUsers))}
}

// insert files s at its place in id order and drops the body. A run that
// would hold too many users is split in two halves, so that the next writes
// into either half have room; runs are never merged.
func (l *inPlaceRole) insert(s *encodedUser) {
	l.body = nil
	if len(l.runs) == 0 {
		l.runs = [][]*encodedUser{{s}}
		return
	}
	k := l.find(s.user.ID)
	b := l.runs[k]
	i, _ := searchID(b, s.user.ID)
	b = slices.Insert(b, i, s)
	if len(b) > maxRunUsers {
		half := len(b) / 2
		// The first half gets no capacity beyond its length: an insert
		// into it must not write over the second, which shares its array.
		l.runs = slices.Insert(l.runs, k+1, b[half:])
		b = b[:half:half]
	}
	l.runs[k] = b
}

// remove takes the user with id out of the list, which holds it, and drops
// the body. A run left empty is dropped too.
func (l *inPlaceRole) remove(id string) {
	l.body = nil
	k := l.find(id)
	b := l.runs[k]
	i, found := searchID(b, id)
	if !found {
		panic("floor: removing user " + id + " from a role it does not hold")
	}
	if len(b) == 1 {
		l.runs = slices.Delete(l.runs, k, k+1)
		return
	}
	l.runs[k] = slices.Delete(b, i, i+1)
}

// empty reports whether nobody holds the role any more.
func (l *inPlaceRole) empty() bool { return len(l.runs) == 0 }

// find returns the position of the run where id is, or where it belongs:
// the last run whose first user's id is not above id, or the first run.
func (l *inPlaceRole) find(id string) int {
	k, found := slices.BinarySearchFunc(l.runs, id, func(b []*encodedUser, id string) int {
		return strings.Compare(b[0].user.ID, id)
	})
	if found || k == 0 {
		return k
	}
	return k - 1
}

// searchID finds id's position in users, which are in ascending id order.
func searchID(users []*encodedUser, id string) (int, bool) {
	return slices.BinarySearchFunc(users, id, func(s *encodedUser, id string) int {
		return strings.Compare(s.user.ID, id)
	})
}

// build makes l.body a new slice, never writing into the old one: a reader
// may be sending the old body at this moment. encoding/json.Marshal of a
// slice is '[', its elements' encodings joined by ',', and ']', so joining
// the users' stored encodings gives Marshal's bytes without encoding anyone
// again: it copies their bytes instead of running reflection over them.
func (l *inPlaceRole) build() {
	size, count := len("[]"), 0
	for _, b := range l.runs {
		for _, s := range b {
			size += len(s.json)
		}
		count += len(b)
	}
	body := make([]byte, 0, size+count-1) // and a comma between two users
	body = append(body, '[')
	for _, b := range l.runs {
		for _, s := range b {
			if len(body) > 1 {
				body = append(body, ',')
			}
			body = append(body, s.json...)
		}
	}
	l.body = append(body, ']')
}
