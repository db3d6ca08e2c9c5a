package main

import (
	"slices"
	"sort"
)

// A roleList is a role's users in blocks, in ascending id order. A read
// copies whole blocks: two copies for the 100 admins instead of a hundred
// (BenchmarkCopyPieces measures what the number of copies costs).
// A write rebuilds one block and copies the list of block pointers. Blocks
// and lists are never modified once in the index, so they share arrays.
type roleList []*block

// blockUsers is the most users a block holds: enough that a read makes few
// copies, few enough that rebuilding a block copies about 9 KB.
const blockUsers = 64

// block is one to blockUsers of a role's users and their bytes.
type block struct {
	users []*stored // ascending id
	json  []byte    // the users' stored bytes, back to back: ",{...},{...}"
}

// newBlock lays out the bytes of users, which are in ascending id order.
func newBlock(users []*stored) *block {
	size := 0
	for _, u := range users {
		size += len(u.json)
	}
	b := &block{users: users, json: make([]byte, 0, size)}
	for _, u := range users {
		b.json = append(b.json, u.json...)
	}
	return b
}

// newRoleList cuts users, in ascending id order, into full blocks.
func newRoleList(users []*stored) (l roleList) {
	for run := range slices.Chunk(users, blockUsers) {
		l = append(l, newBlock(run))
	}
	return l
}

// with returns l with u inserted in id order. Neither modifies l.
func (l roleList) with(u *stored) roleList {
	if len(l) == 0 {
		return roleList{newBlock([]*stored{u})}
	}
	k := l.find(u.ID)
	j, _ := searchID(l[k].users, u.ID)
	return l.replace(k, slices.Concat(l[k].users[:j], []*stored{u}, l[k].users[j:]))
}

// without returns l without the user with id, which it holds.
func (l roleList) without(id string) roleList {
	k := l.find(id)
	j, _ := searchID(l[k].users, id)
	return l.replace(k, slices.Concat(l[k].users[:j], l[k].users[j+1:]))
}

// replace returns l with users in block k's place: no block if none, two
// halves if too many, so that the next writes into either have room.
func (l roleList) replace(k int, users []*stored) roleList {
	var blocks roleList
	switch half := len(users) / 2; {
	case len(users) > blockUsers:
		blocks = roleList{newBlock(users[:half]), newBlock(users[half:])}
	case len(users) > 0:
		blocks = roleList{newBlock(users)}
	}
	return slices.Concat(l[:k], blocks, l[k+1:])
}

// find returns the last block whose first id is not above id, else 0.
func (l roleList) find(id string) int {
	return max(0, sort.Search(len(l), func(k int) bool { return l[k].users[0].ID > id })-1)
}
