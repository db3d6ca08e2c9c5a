package bench

import (
	"cmp"
	"fmt"
	"maps"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// writeSizes are the data sets of Write and Build.
func writeSizes() []int {
	sizes := []int{1_000, 10_000, 100_000}
	if millionRequested() {
		sizes = append(sizes, 1_000_000)
	}
	return sizes
}

// Write measures Add of a user whose id sorts into the middle of the data
// set, then Delete of it, in process. The user holds the roles that most
// users hold: three at every size, and ten at the default size.
func Write(b *testing.B, newStage api.NewStage) {
	cases := []struct{ users, roles int }{}
	for _, n := range writeSizes() {
		cases = append(cases, struct{ users, roles int }{n, 3})
	}
	cases = append(cases, struct{ users, roles int }{user.DefaultCount, 10})
	for _, c := range cases {
		b.Run(fmt.Sprintf("users=%d/roles=%d", c.users, c.roles), func(b *testing.B) {
			users := Users(c.users)
			roles := mostHeldRoles(users, c.roles)
			stage := newStage(users)
			id := users[c.users/2].ID + "-written" // sorts right after the middle user
			b.ReportAllocs()
			stop := CPUTime(b)
			for b.Loop() {
				// The stage owns what Add receives: new Roles every time.
				u := user.User{ID: id, Name: "Written User", Email: "written@example.com", Roles: slices.Clone(roles)}
				if !stage.Add(u) {
					b.Fatalf("Add(%s) refused", id)
				}
				if !stage.Delete(id) {
					b.Fatalf("Delete(%s) found no user", id)
				}
			}
			stop()
		})
	}
}

// mostHeldRoles returns the n roles that most users hold, most held first.
func mostHeldRoles(users []user.User, n int) []string {
	count := map[string]int{}
	for _, u := range users {
		for _, r := range u.Roles {
			count[r]++
		}
	}
	roles := slices.Collect(maps.Keys(count))
	slices.SortFunc(roles, func(a, b string) int { return cmp.Or(count[b]-count[a], strings.Compare(a, b)) })
	return roles[:min(n, len(roles))]
}

// Build measures building a stage from the generated users, and the heap
// it then holds beyond the users themselves (held-B/user); and the same
// for 10,000 users of the own shape with 1, 4 and 32 roles each.
func Build(b *testing.B, newStage api.NewStage) {
	for _, n := range writeSizes() {
		b.Run(fmt.Sprintf("users=%d", n), func(b *testing.B) { build(b, newStage, Users(n)) })
	}
	for _, roles := range []int{1, 4, api.MaxRoles} {
		shape := Shape{Roles: roles, Holders: 1}
		b.Run(shape.Name(), func(b *testing.B) {
			users := make([]user.User, user.DefaultCount)
			for n := range users {
				users[n] = shape.User(n)
			}
			build(b, newStage, users)
		})
	}
}

func build(b *testing.B, newStage api.NewStage, users []user.User) {
	var stage api.Stage
	b.ReportAllocs()
	stop := CPUTime(b)
	for b.Loop() {
		stage = nil // let the previous one go before the next is built
		stage = newStage(users)
	}
	stop()
	stage = nil
	before := liveHeapBytes()
	stage = newStage(users)
	held := liveHeapBytes() - before
	runtime.KeepAlive(stage)
	b.ReportMetric(float64(held)/float64(len(users)), "held-B/user")
}

// liveHeapBytes collects garbage and returns the bytes of heap that survived.
func liveHeapBytes() int64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return int64(sample[0].Value.Uint64())
}
