package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/bench"
	"example.com/userperf/common/user"
)

// usersOf is every user of l, in order.
func usersOf(l roleList) []*stored {
	var users []*stored
	for _, b := range l {
		users = append(users, b.users...)
	}
	return users
}

// TestBlocksFollowEveryWrite inserts users into one role in random order
// and deletes them again, enough of them to fill, split and empty blocks,
// and checks after every write that the list is what it must be: blocks of
// 1 to blockUsers users in ascending id order whose bytes are their users',
// and whose body is what encoding/json gives. It also checks that the list
// before each write is untouched, as readers holding it need.
func TestBlocksFollowEveryWrite(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var l roleList
	var want []*user.User // the role's users, kept sorted here by the test
	check := func(step string) {
		t.Helper()
		var prev string
		for k, b := range l {
			if len(b.users) == 0 || len(b.users) > blockUsers {
				t.Fatalf("after %s: block %d holds %d users, want 1 to %d", step, k, len(b.users), blockUsers)
			}
			var laid []byte
			for _, u := range b.users {
				if u.ID <= prev {
					t.Fatalf("after %s: user %s comes after %s", step, u.ID, prev)
				}
				prev = u.ID
				laid = append(laid, u.json...)
			}
			if !bytes.Equal(b.json, laid) {
				t.Fatalf("after %s: block %d's bytes are not its users' bytes", step, k)
			}
		}
		wantBody, _ := json.Marshal(want)
		if len(want) == 0 {
			wantBody = []byte("[]")
		}
		if got := encodeUsers(l); !bytes.Equal(got, wantBody) {
			t.Fatalf("after %s: body =\n%s\nwant\n%s", step, got, wantBody)
		}
	}

	ids := rng.Perm(5 * blockUsers)
	for _, n := range ids {
		u := &user.User{ID: fmt.Sprintf("u%04d", n), Name: "n", Email: "e", Roles: []string{"r"}}
		before, body := l, slices.Clone(encodeUsers(l))
		l = l.with(newStored(u))
		if !bytes.Equal(encodeUsers(before), body) {
			t.Fatalf("inserting %s changed the list that was there before", u.ID)
		}
		i, _ := slices.BinarySearchFunc(want, u.ID, func(w *user.User, id string) int { return strings.Compare(w.ID, id) })
		want = slices.Insert(want, i, u)
		check("inserting " + u.ID)
	}
	if len(l) < 6 {
		t.Fatalf("%d users fill only %d blocks: the test did not split any", len(ids), len(l))
	}
	for _, n := range rng.Perm(len(ids)) {
		id := fmt.Sprintf("u%04d", n)
		before, body := l, slices.Clone(encodeUsers(l))
		l = l.without(id)
		if !bytes.Equal(encodeUsers(before), body) {
			t.Fatalf("deleting %s changed the list that was there before", id)
		}
		want = slices.DeleteFunc(want, func(w *user.User) bool { return w.ID == id })
		check("deleting " + id)
	}
	if l != nil {
		t.Fatalf("after deleting every user the list holds %d blocks, want none", len(l))
	}
}

// BenchmarkCopyPieces measures why blocks pay: the same 15,000 bytes
// copied into one buffer as 100 pieces of 150 bytes (about one user each),
// as 2 pieces (as many as the blocks of the 100 admins, though those hold 64
// and 36 users), and as one.
func BenchmarkCopyPieces(b *testing.B) {
	const total = 15_000
	src := bytes.Repeat([]byte("x"), total)
	dst := make([]byte, 0, total)
	for _, pieces := range []int{100, 2, 1} {
		size := total / pieces
		var parts [][]byte
		for i := range pieces {
			parts = append(parts, src[i*size:(i+1)*size])
		}
		b.Run(fmt.Sprintf("pieces=%d", pieces), func(b *testing.B) {
			for b.Loop() {
				out := dst[:0]
				for _, p := range parts {
					out = append(out, p...)
				}
				dst = out
			}
			b.SetBytes(total)
		})
	}
}

// TestFullStoreWithinSoftLimit fills the store through the API, so that its
// ledger refuses what a server would, with users whose roles are their own
// (32 roles each) or shared by two (16 each): the shapes in which a stage
// that keeps a copy of each role's bytes holds the most for what the
// limits count. It checks that the heap that is live then leaves the soft
// limit a served stage runs with room for the lists in flight. Near the
// limit, every allocation of a read would make the collector mark the
// whole store.
func TestFullStoreWithinSoftLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("fills the store to its limit; skipped with -short")
	}
	for _, shape := range []bench.Shape{{Roles: api.MaxRoles, Holders: 1}, {Roles: api.MaxRoles / 2, Holders: 2}} {
		t.Run(shape.Name(), func(t *testing.T) {
			users := user.MustGenerate(user.DefaultCount, user.DefaultSeed)
			h := api.NewHandler(New(users), users)
			added, err := shape.Fill(h)
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if limit := bench.SoftLimit() - api.DefaultLimits.MaxInFlightBytes; m.HeapAlloc > uint64(limit) {
				t.Errorf("with %d users added until the store was full, the live heap is %d MiB, "+
					"over the soft limit less the lists in flight, %d MiB", added, m.HeapAlloc>>20, limit>>20)
			}
			runtime.KeepAlive(h)
		})
	}
}
