package main

import (
	"slices"
	"strings"
)

// roleList is one role's users in ascending id order, and their body once
// it is built. The users are cut into blocks, runs of 1 to blockUsers
// consecutive users, so that a write moves at most a block's pointers: one
// flat slice would shift half the role's users for every insert or delete
// in its middle, 400 KB for a role of 100,000 users.
//
// Unlike stage 5's blocks, these are changed in place: nobody reads them
// without the floor's lock (a reader reads only the body, and the body is
// built under the write lock), so there is no old version to keep for a
// reader, and a write allocates nothing unless it splits a block.
type roleList struct {
	blocks [][]*stored
	body   []byte // nil when a write has changed the users since it was built
}

// blockUsers is the most users that one block holds. A write moves up to
// this many pointers inside a block, plus, when it splits a block or empties
// one, the role's number of users divided by about blockUsers.
const blockUsers = 64

// newRoleList cuts users, in ascending id order, into full blocks. Each
// block from slices.Chunk has no capacity beyond its length, so inserting
// into one moves it to an array of its own and never writes over the next.
func newRoleList(users []*stored) *roleList {
	return &roleList{blocks: slices.Collect(slices.Chunk(users, blockUsers))}
}

// insert files s at its place in id order and drops the body. A block that
// would hold too many users is split in two halves, so that the next writes
// into either half have room; blocks are never merged.
func (l *roleList) insert(s *stored) {
	l.body = nil
	if len(l.blocks) == 0 {
		l.blocks = [][]*stored{{s}}
		return
	}
	k := l.find(s.user.ID)
	b := l.blocks[k]
	i, _ := searchID(b, s.user.ID)
	b = slices.Insert(b, i, s)
	if len(b) > blockUsers {
		half := len(b) / 2
		// The first half gets no capacity beyond its length: an insert
		// into it must not write over the second, which shares its array.
		l.blocks = slices.Insert(l.blocks, k+1, b[half:])
		b = b[:half:half]
	}
	l.blocks[k] = b
}

// remove takes the user with id out of the list, which holds it, and drops
// the body. A block left empty is dropped too.
func (l *roleList) remove(id string) {
	l.body = nil
	k := l.find(id)
	b := l.blocks[k]
	i, found := searchID(b, id)
	if !found {
		panic("floor: removing user " + id + " from a role it does not hold")
	}
	if len(b) == 1 {
		l.blocks = slices.Delete(l.blocks, k, k+1)
		return
	}
	l.blocks[k] = slices.Delete(b, i, i+1)
}

// empty reports whether nobody holds the role any more.
func (l *roleList) empty() bool { return len(l.blocks) == 0 }

// find returns the position of the block where id is, or where it belongs:
// the last block whose first user's id is not above id, or the first block.
func (l *roleList) find(id string) int {
	k, found := slices.BinarySearchFunc(l.blocks, id, func(b []*stored, id string) int {
		return strings.Compare(b[0].user.ID, id)
	})
	if found || k == 0 {
		return k
	}
	return k - 1
}

// searchID finds id's position in users, which are in ascending id order.
func searchID(users []*stored, id string) (int, bool) {
	return slices.BinarySearchFunc(users, id, func(s *stored, id string) int {
		return strings.Compare(s.user.ID, id)
	})
}

// build makes l.body a new slice, never writing into the old one: a reader
// may be sending the old body at this moment. encoding/json.Marshal of a
// slice is '[', its elements' encodings joined by ',', and ']', so joining
// the users' stored encodings gives Marshal's bytes without encoding anyone
// again: it copies their bytes instead of running reflection over them.
func (l *roleList) build() {
	size, count := len("[]"), 0
	for _, b := range l.blocks {
		for _, s := range b {
			size += len(s.json)
		}
		count += len(b)
	}
	body := make([]byte, 0, size+count-1) // and a comma between two users
	body = append(body, '[')
	for _, b := range l.blocks {
		for _, s := range b {
			if len(body) > 1 {
				body = append(body, ',')
			}
			body = append(body, s.json...)
		}
	}
	l.body = append(body, ']')
}
