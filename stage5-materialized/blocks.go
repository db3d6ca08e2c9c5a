package main

import (
	"slices"
	"strings"
)

// A role's list holds its users' JSON in blocks: each block is up to
// blockUsers consecutive users of the role, in ascending id order, with
// their stored bytes laid back to back. A read copies whole blocks
// (encodeUsers), so the 100 admins, in blocks of 64 and 36 users, cost two
// copies instead of a hundred. That is what this layout buys: at the size of
// one user (about 140 bytes), the fixed price of a copy outweighs the bytes
// it moves, so fewer, longer copies are faster (BenchmarkCopyPieces).
//
// A write rebuilds only the block it touches and copies the list of block
// pointers, so its cost follows blockUsers plus the role's size divided by
// blockUsers, where a list of user pointers copied whole would follow the
// role's size.
//
// Blocks and lists are never modified once they are in the index (copy on
// write, the rules of Store); they may share backing arrays for that reason.
type roleList []*block

// blockUsers is the most users that one block holds: large enough that a
// read makes few copies, small enough that rebuilding a block on a write
// copies about 9 KB.
const blockUsers = 64

// block is a run of a role's users and their JSON.
type block struct {
	users []*stored // ascending id: at least one, at most blockUsers
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
func newRoleList(users []*stored) roleList {
	var l roleList
	for run := range slices.Chunk(users, blockUsers) {
		l = append(l, newBlock(run))
	}
	return l
}

// with returns l with u inserted in id order; l is not modified. A block
// that would hold too many users is split in two halves, so that the next
// writes into either half have room. Blocks are never merged.
func (l roleList) with(u *stored) roleList {
	if len(l) == 0 {
		return roleList{newBlock([]*stored{u})}
	}
	k := l.find(u.ID)
	users := l[k].users
	j, _ := searchID(users, u.ID)
	users = slices.Concat(users[:j], []*stored{u}, users[j:])
	replaced := roleList{newBlock(users)}
	if len(users) > blockUsers {
		half := len(users) / 2
		replaced = roleList{newBlock(users[:half]), newBlock(users[half:])}
	}
	return slices.Concat(l[:k], replaced, l[k+1:])
}

// without returns l without the user with id, which it holds; l is not
// modified. A block left empty is dropped; a list left empty is nil.
func (l roleList) without(id string) roleList {
	k := l.find(id)
	users := l[k].users
	j, _ := searchID(users, id)
	users = slices.Concat(users[:j], users[j+1:])
	if len(users) == 0 {
		return slices.Concat(l[:k], l[k+1:])
	}
	return slices.Concat(l[:k], roleList{newBlock(users)}, l[k+1:])
}

// find returns the position of the block where id is, or where it belongs:
// the last block whose first user's id is not above id, or the first block.
func (l roleList) find(id string) int {
	k, found := slices.BinarySearchFunc(l, id, func(b *block, id string) int {
		return strings.Compare(b.users[0].ID, id)
	})
	if found || k == 0 {
		return k
	}
	return k - 1
}
